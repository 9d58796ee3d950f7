/**
 * The hot path of `/mcp`: a 2026-07-28 `tools/call`, answered without the SDK's per-request
 * server instance. That revision is stateless, so every call is one POST; through the SDK each
 * builds an McpServer, a transport and a protocol exchange (web Request and Response included)
 * to run one tool, which cost more than the REST call the tool wraps. Here the request is
 * classified by the SDK's own `classifyInboundRequest` (era, envelope, header cross-checks),
 * the tool runs through `callTool` (the SDK handler's steps on the same schemas) and the answer
 * is encoded as the SDK encodes a 2026-07-28 result.
 *
 * Only a request that is plainly valid takes this path: anything the SDK might refuse or treat
 * specially (another method or revision, a missing or mismatched header, a task-augmented call,
 * an unknown tool, arguments that do not validate) goes to the SDK, which owns those answers.
 * test/mcp/direct-call.test.ts holds the two paths to the same answers.
 */
import type { IncomingHttpHeaders } from "node:http";
import { classifyInboundRequest, isJsonContentType, SERVER_INFO_META_KEY } from "@modelcontextprotocol/server";
import { serverInfo, toolNamed } from "../../shared/mcp/index.js";
import { structuredJson } from "../../shared/mcp/results.js";
import { callTool, type AnyTool } from "../../shared/mcp/tools/define.js";
import type { McpDeps } from "../../shared/mcp/index.js";

/** The revision served here (the SDK serves every other one it knows). */
const REVISION = "2026-07-28";

/** What the request and its params may hold on this path: nothing that asks for more than a call. */
const BODY_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const PARAM_KEYS = new Set(["name", "arguments", "_meta"]);

/**
 * Envelopes (`params._meta`, as JSON) the SDK has classified as a valid 2026-07-28 claim. A
 * client sends the same one with every call, and validating it is most of the classification's
 * cost; the rest (the request's shape, its headers) is checked here on every call. Bounded: a
 * client varying its envelope only keeps it small.
 */
const validEnvelopes = new Set<string>();
const MAX_ENVELOPES = 256;

export interface DirectCall {
  id: string | number;
  tool: AnyTool;
  arguments: unknown;
}

const header = (headers: IncomingHttpHeaders, name: string) => {
  const v = headers[name];
  return typeof v === "string" ? v.trim() : undefined;
};

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const onlyKeys = (o: Record<string, unknown>, allowed: Set<string>) => Object.keys(o).every((k) => allowed.has(k));

/** The call, when `body` is a 2026-07-28 `tools/call` this path answers; undefined: the SDK's. */
export function directCallOf(body: unknown, headers: IncomingHttpHeaders): DirectCall | undefined {
  if (!isJsonContentType(header(headers, "content-type") ?? null)) return undefined;
  const protocolVersionHeader = header(headers, "mcp-protocol-version");
  const mcpMethodHeader = header(headers, "mcp-method");
  const mcpNameHeader = header(headers, "mcp-name");
  if (protocolVersionHeader !== REVISION || mcpMethodHeader !== "tools/call" || mcpNameHeader === undefined) return undefined;

  // The shape the SDK's JSON-RPC schema accepts (an id is a string or a safe integer), narrowed.
  if (!isPlainObject(body) || !onlyKeys(body, BODY_KEYS) || body.jsonrpc !== "2.0" || body.method !== "tools/call") return undefined;
  const { id, params } = body;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || !onlyKeys(params, PARAM_KEYS) || !isPlainObject(params._meta)) return undefined;
  if (params.name !== mcpNameHeader || (params.arguments !== undefined && !isPlainObject(params.arguments))) return undefined;
  const tool = toolNamed(mcpNameHeader);
  if (!tool) return undefined;

  const envelope = JSON.stringify(params._meta);
  if (!validEnvelopes.has(envelope)) {
    const route = classifyInboundRequest({ httpMethod: "POST", body, protocolVersionHeader, mcpMethodHeader, mcpNameHeader });
    if (route.kind !== "modern" || route.messageKind !== "request" || route.classification.revision !== REVISION) return undefined;
    if (validEnvelopes.size >= MAX_ENVELOPES) validEnvelopes.clear();
    validEnvelopes.add(envelope);
  }
  return { id: id as string | number, tool, arguments: params.arguments };
}

/**
 * Runs the call (`signalFor` makes its signal, aborted when the call is to stop); the JSON-RPC
 * answer as the SDK writes it for 2026-07-28, or undefined when the arguments do not validate
 * (then nothing ran, and the SDK answers).
 */
export async function answerDirectCall(call: DirectCall, deps: McpDeps, signalFor: () => AbortSignal, version: string): Promise<string | undefined> {
  // Made when a tool asks (few wait on anything): most calls need no signal and its listeners.
  let signal: AbortSignal | undefined;
  const ctx = {
    deps,
    get signal() {
      return (signal ??= signalFor());
    },
  };
  const result = await callTool(call.tool, call.arguments, ctx);
  if (!result) return undefined;
  const stamped = { ...result, resultType: "complete", _meta: { [SERVER_INFO_META_KEY]: serverInfo(version) } };
  return `{"result":${objectJson(stamped)},"jsonrpc":"2.0","id":${JSON.stringify(call.id)}}`;
}

/**
 * `JSON.stringify(result)`, the same text, but a structured answer is not serialized a second
 * time: its text content already is its JSON (results.ts).
 */
function objectJson(result: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(result)) {
    if (value === undefined) continue;
    const known = key === "structuredContent" && typeof value === "object" && value !== null ? structuredJson(value) : undefined;
    parts.push(`${JSON.stringify(key)}:${known ?? JSON.stringify(value)}`);
  }
  return `{${parts.join(",")}}`;
}
