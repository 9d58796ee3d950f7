/**
 * Driving Headwater's MCP server with the SDK's own client: over Streamable HTTP (`/mcp` of a
 * test server) or stdio (`headwater mcp` on that server, as an agent's config runs it), in
 * protocol revision 2025-11-25 (initialize handshake) or 2026-07-28 (stateless).
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { expect } from "vitest";
import { cliEnv } from "../cli/helpers.js";
import { REPO_ROOT, type TestServer } from "../support/server.js";

export { echoSource, relayStep } from "./fixtures.js";

export type Era = "2025-11-25" | "2026-07-28";
export type Via = "http" | "stdio";
export const ERAS: Era[] = ["2025-11-25", "2026-07-28"];

export interface Connected {
  client: Client;
  /** Everything the stdio server wrote on stderr (empty over HTTP). */
  stderr(): string;
  close(): Promise<void>;
}

const newClient = (era: Era) =>
  new Client({ name: "headwater-tests", version: "1.0.0" }, era === "2026-07-28" ? { versionNegotiation: { mode: { pin: "2026-07-28" } } } : {});

export async function connectHttp(s: TestServer, key: string, era: Era): Promise<Connected> {
  const client = newClient(era);
  const transport = new StreamableHTTPClientTransport(new URL(`${s.origin}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  await client.connect(transport);
  return { client, stderr: () => "", close: () => client.close() };
}

export async function connectStdio(s: TestServer, key: string, era: Era): Promise<Connected> {
  const client = newClient(era);
  const env = cliEnv({ env: { HEADWATER_API_URL: s.baseUrl, HEADWATER_API_KEY: key } });
  const transport = new StdioClientTransport({
    command: "headwater",
    args: ["mcp"],
    env: Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined)),
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (c: Buffer) => (err += c.toString()));
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

export const connect = (via: Via, s: TestServer, key: string, era: Era) =>
  via === "http" ? connectHttp(s, key, era) : connectStdio(s, key, era);

type Structured = Record<string, unknown>;

/** Calls a tool that must succeed; returns its structuredContent (checked against its text). */
export async function call<T = Structured>(c: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const r = await c.callTool({ name, arguments: args });
  const text = (r.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
  expect(r.isError, `${name} refused: ${text}`).toBeFalsy();
  expect(JSON.parse(text)).toEqual(r.structuredContent);
  return r.structuredContent as T;
}

/** Calls a tool that must be refused; returns the `{error, code}` it carries. */
export async function refused(c: Client, name: string, args: Record<string, unknown> = {}): Promise<{ error: string; code: string; status?: number }> {
  const r = await c.callTool({ name, arguments: args });
  expect(r.isError, `${name} should be refused: ${JSON.stringify(r.structuredContent)}`).toBe(true);
  const text = (r.content as Array<{ type: string; text?: string }>)[0]?.text ?? "";
  try {
    return JSON.parse(text) as { error: string; code: string };
  } catch {
    // The SDK's own refusals (input validation) are plain text.
    return { error: text, code: "invalid_input" };
  }
}

/** Resolves once `pred` holds (checked every 20 ms), or fails after `ms`. */
export async function until(pred: () => boolean, ms = 5000, what = "condition"): Promise<void> {
  const t0 = Date.now();
  while (!pred()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
