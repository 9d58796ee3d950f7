/**
 * What "Connect an agent" offers for a connection: its MCP URL, and the `mcpServers` entries an
 * MCP client (Claude Desktop, Claude Code, an IDE) takes, over stdio (`headwater mcp`, the CLI)
 * and over Streamable HTTP (`<origin>/mcp`). The key is always a placeholder: the page never has
 * it, and a configuration is something people paste into files and chats.
 */
import { mcpUrlOf, type KeyStorage, type Profile } from "../../../shared/bridge.js";

export const API_KEY_PLACEHOLDER = "<your API key>";

/**
 * The hosted service speaks the v1 API but has no `/mcp` (decisions.md: MCP is Headwater's), so
 * only the stdio server applies: it runs the tools on the agent's machine against that API.
 */
export function isHostedService(baseUrl: string): boolean {
  try {
    return /(^|\.)pipedream\.com$/i.test(new URL(baseUrl).hostname);
  } catch {
    return false;
  }
}

/** The MCP URL of a profile, or null while it has none (the Local server not started yet). */
export function profileMcpUrl(p: Profile): string | null {
  if (!p.baseUrl) return null;
  try {
    return mcpUrlOf(p.baseUrl);
  } catch {
    return null;
  }
}

/**
 * Whether `headwater mcp` finds the connection by itself. It does for the Local server when its
 * key is in the web host's key file, which the CLI reads (cli/connection/local.ts); a key in the
 * OS keychain or in memory is out of its reach, and a remote server is named by the variables.
 */
export function stdioFindsConnection(p: Profile, keyStorage: KeyStorage | undefined): boolean {
  return p.kind === "local" && keyStorage === "file";
}

export type AgentEnv = { HEADWATER_API_URL: string; HEADWATER_API_KEY: string };

/**
 * JSON as people write these files: indented, but an array of strings on one line
 * (`"args": ["headwater", "mcp"]`). A string with an escaped quote keeps the array as it was.
 */
export function prettyJson(value: unknown): string {
  return JSON.stringify(value, null, 2).replace(
    /\[\n\s+("[^"\n]*"(?:,\n\s+"[^"\n]*")*)\n\s+\]/g,
    (_all, items: string) => `[${items.replace(/,\n\s+/g, ", ")}]`,
  );
}

/** The stdio entry: `npx headwater mcp`, with the connection in `env` unless the CLI finds it. */
export function stdioConfig(env?: AgentEnv): string {
  return prettyJson({
    mcpServers: { headwater: { command: "npx", args: ["headwater", "mcp"], ...(env ? { env } : {}) } },
  });
}

/** The HTTP entry: the MCP URL with the key as a bearer token. */
export function httpConfig(mcpUrl: string): string {
  return prettyJson({
    mcpServers: {
      headwater: { type: "http", url: mcpUrl, headers: { Authorization: `Bearer ${API_KEY_PLACEHOLDER}` } },
    },
  });
}

/** The env of the stdio entry for a connection the CLI does not find by itself. */
export function envFor(p: Profile): AgentEnv {
  return { HEADWATER_API_URL: p.baseUrl, HEADWATER_API_KEY: API_KEY_PLACEHOLDER };
}

/** A tool's description cut to its first sentence, for a list of twenty. */
export function firstSentence(text: string | undefined, max = 110): string {
  if (!text) return "";
  const one = text.trim().split(/(?<=[.!?])\s+/)[0] ?? "";
  return one.length > max ? `${one.slice(0, max - 1).trimEnd()}…` : one;
}
