/**
 * "Connect an agent" → Test: the host connects to the current connection's MCP endpoint
 * (`<origin>/mcp`, Streamable HTTP) as an agent would, with the connection's key as the bearer,
 * lists the tools and closes. The key stays here; the page gets the tool names and the protocol
 * revision, or an error in words (refused key, no /mcp, unreachable, too slow).
 *
 * The official MCP client (`@modelcontextprotocol/client`) is loaded on the first test only: it
 * is a few hundred kilobytes that the host never needs otherwise.
 */
import { mcpUrlOf, type AgentConnectionTest } from "../../shared/bridge.js";
import { HostError } from "./errors.js";

/** Connect and list, each; an agent's client would wait about as long before giving up. */
const STEP_TIMEOUT_MS = 10_000;

export interface AgentTestOptions {
  /** The connection's API base (`.../v1`). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
  timeoutMs?: number;
  /** Shown as the client's name in the server's logs. */
  clientVersion: string;
}

export async function testAgentConnection(opts: AgentTestOptions): Promise<AgentConnectionTest> {
  const url = mcpUrlOf(opts.baseUrl);
  const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
  // `auto`: ask with server/discover (2026-07-28) and fall back to initialize (2025-11-25), so the
  // test passes against any server an agent of either revision could use.
  const client = new Client(
    { name: "headwater-dashboard", version: opts.clientVersion },
    { versionNegotiation: { mode: "auto" } },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${opts.apiKey}` } },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
  const timeout = opts.timeoutMs ?? STEP_TIMEOUT_MS;
  try {
    await client.connect(transport, { timeout });
    const { tools } = await client.listTools(undefined, { timeout });
    const server = client.getServerVersion();
    const protocolVersion = client.getNegotiatedProtocolVersion();
    return {
      url,
      tools: tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}) })),
      ...(protocolVersion ? { protocolVersion } : {}),
      ...(server ? { server: { name: server.name, version: server.version } } : {}),
    };
  } catch (err) {
    throw agentError(err, url);
  } finally {
    // Ends a 2025-11-25 session on the server too (DELETE); a failure to close changes nothing.
    await client.close().catch(() => undefined);
  }
}

/**
 * The SDK's errors in words. They are recognised by shape (an HTTP status in `data.status`, a
 * string `code`), not by class: the SDK's classes are loaded lazily and brand-checked.
 */
export function agentError(err: unknown, url: string): HostError {
  if (err instanceof HostError) return err;
  const e = err as {
    code?: unknown;
    data?: { status?: unknown; text?: unknown };
    message?: unknown;
    cause?: unknown;
  };
  const status = typeof e?.data?.status === "number" ? e.data.status : undefined;
  const said = serverWords(e?.data?.text);
  if (status === 401) {
    return new HostError(
      401,
      "unauthorized",
      `The MCP endpoint ${url} refused this connection's API key${said ? `: ${said}` : ""}.`,
    );
  }
  if (status === 404 || status === 405) {
    return new HostError(
      404,
      "no_mcp",
      `There is no MCP endpoint at ${url} (HTTP ${status}): the server is not a Headwater server, or one from before MCP.`,
    );
  }
  if (status === 403) {
    return new HostError(
      403,
      "forbidden",
      `The MCP endpoint ${url} refused the request${said ? `: ${said}` : ""}.`,
    );
  }
  if (status !== undefined && status >= 400) {
    return new HostError(
      status >= 500 ? 502 : status,
      "unexpected_response",
      `The MCP endpoint ${url} answered HTTP ${status}${said ? `: ${said}` : ""}.`,
    );
  }
  if (status !== undefined) {
    // A 2xx that is not MCP: a web page or another API served at that path.
    return new HostError(
      502,
      "no_mcp",
      `${url} answered, but not as an MCP server (HTTP ${status}): the server is not a Headwater server, or one from before MCP.`,
    );
  }
  if (e?.code === "REQUEST_TIMEOUT") {
    return new HostError(504, "timeout", `The MCP endpoint ${url} did not answer in time.`);
  }
  const message = typeof e?.message === "string" ? e.message : String(err);
  // fetch's own failure (refused, DNS, TLS), thrown as it is or as the cause of the SDK's error;
  // the reason is at the end of the chain (`connect ECONNREFUSED ...`).
  const chain: Array<{ message?: unknown; code?: unknown; cause?: unknown }> = [];
  let link: unknown = err;
  while (link && typeof link === "object" && chain.length < 5) {
    chain.push(link);
    link = (link as { cause?: unknown }).cause;
  }
  if (chain.some((c) => typeof c.message === "string" && /fetch failed/i.test(c.message))) {
    const root = chain.at(-1)!;
    const reason =
      (typeof root.message === "string" && root.message) ||
      (typeof root.code === "string" && root.code) ||
      message;
    return new HostError(0, "network_error", `Cannot reach ${url}: ${reason}.`);
  }
  return new HostError(
    502,
    "unexpected_response",
    `The MCP endpoint ${url} did not answer as an MCP server: ${message}`,
  );
}

/** The server's `{error}` of a refusal, or its text when short; nothing for an HTML page. */
function serverWords(text: unknown): string | undefined {
  if (typeof text !== "string" || text.trim() === "") return undefined;
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown };
    const words =
      typeof body.error === "string"
        ? body.error
        : body.error && typeof body.error === "object"
          ? (body.error as { message?: unknown }).message
          : body.message;
    return typeof words === "string" ? words : undefined;
  } catch {
    return text.length <= 200 && !/^\s*</.test(text) ? text.trim() : undefined;
  }
}
