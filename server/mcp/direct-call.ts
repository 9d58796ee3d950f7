/**
 * The hot path of `/mcp`: a `tools/call`, answered without the SDK's per-request server
 * instance. Calls are stateless (every one a POST of its own), and through the SDK each builds
 * an McpServer, a transport and a protocol exchange (web Request and Response included) to run
 * one tool, which cost more than the REST call the tool wraps. Here the tool runs through
 * `callTool` (the SDK handler's steps on the same schemas) and the answer is encoded as the SDK
 * encodes it for the request's revision:
 * - 2026-07-28: classified by the SDK's own `classifyInboundRequest` (era, envelope, header
 *   cross-checks); the result stamped as that revision's are, answered as JSON;
 * - 2025-11-25: a call with nothing but a name and arguments, of a tool that only reads (a
 *   read answers at once: the SDK keeps a long answer's stream alive, this path does not);
 *   answered as the SDK's stateless transport does, one SSE message.
 *
 * Only a request that is plainly valid takes this path: anything the SDK might refuse or treat
 * specially (another method or revision, a missing or mismatched header, progress or task
 * metadata, an unknown tool, arguments that do not validate) goes to the SDK, which owns those
 * answers. test/mcp/direct-call.test.ts holds the two paths to the same answers.
 */
import type { IncomingHttpHeaders } from "node:http";
import { classifyInboundRequest, isJsonContentType, SERVER_INFO_META_KEY } from "@modelcontextprotocol/server";
import { serverInfo, toolNamed } from "../../shared/mcp/index.js";
import { structuredJson } from "../../shared/mcp/results.js";
import { callTool, type AnyTool } from "../../shared/mcp/tools/define.js";
import type { McpDeps } from "../../shared/mcp/index.js";

/** The revisions served here (the SDK serves every other one it knows). */
const MODERN = "2026-07-28";
const LEGACY = "2025-11-25";

/** What the request and its params may hold on this path: nothing that asks for more than a call. */
const BODY_KEYS = new Set(["jsonrpc", "id", "method", "params"]);
const MODERN_PARAM_KEYS = new Set(["name", "arguments", "_meta"]);
const LEGACY_PARAM_KEYS = new Set(["name", "arguments"]);

/** Tools that only read, but may wait long for their answer: the SDK serves them on 2025-11-25. */
const WAITING = new Set(["wait_for_events"]);

/**
 * Envelopes (`params._meta`, as JSON) the SDK has classified as a valid 2026-07-28 claim. A
 * client sends the same one with every call, and validating it is most of the classification's
 * cost; the rest (the request's shape, its headers) is checked here on every call. Bounded: a
 * client varying its envelope only keeps it small.
 */
const validEnvelopes = new Set<string>();
const MAX_ENVELOPES = 256;

export interface DirectCall {
  era: "modern" | "legacy";
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

/**
 * The id and params of a JSON-RPC `tools/call` of the shape the SDK's schema accepts (an id is a
 * string or a safe integer), narrowed to params with `allowed` members and a known tool.
 */
function plainCall(body: unknown, allowed: Set<string>) {
  if (!isPlainObject(body) || !onlyKeys(body, BODY_KEYS) || body.jsonrpc !== "2.0" || body.method !== "tools/call") return undefined;
  const { id, params } = body;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return undefined;
  if (!isPlainObject(params) || !onlyKeys(params, allowed) || typeof params.name !== "string") return undefined;
  if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
  const tool = toolNamed(params.name);
  return tool ? { id: id as string | number, params, tool } : undefined;
}

/** The call, when `body` is a `tools/call` this path answers; undefined: the SDK's. */
export function directCallOf(body: unknown, headers: IncomingHttpHeaders): DirectCall | undefined {
  if (!isJsonContentType(header(headers, "content-type") ?? null)) return undefined;
  const version = header(headers, "mcp-protocol-version");
  if (version === MODERN) return modernCallOf(body, headers);
  if (version === LEGACY) return legacyCallOf(body, headers);
  return undefined;
}

function modernCallOf(body: unknown, headers: IncomingHttpHeaders): DirectCall | undefined {
  const mcpMethodHeader = header(headers, "mcp-method");
  const mcpNameHeader = header(headers, "mcp-name");
  if (mcpMethodHeader !== "tools/call" || mcpNameHeader === undefined) return undefined;
  const call = plainCall(body, MODERN_PARAM_KEYS);
  if (!call || call.params.name !== mcpNameHeader || !isPlainObject(call.params._meta)) return undefined;

  const envelope = JSON.stringify(call.params._meta);
  if (!validEnvelopes.has(envelope)) {
    const route = classifyInboundRequest({ httpMethod: "POST", body, protocolVersionHeader: MODERN, mcpMethodHeader, mcpNameHeader });
    if (route.kind !== "modern" || route.messageKind !== "request" || route.classification.revision !== MODERN) return undefined;
    if (validEnvelopes.size >= MAX_ENVELOPES) validEnvelopes.clear();
    validEnvelopes.add(envelope);
  }
  return { era: "modern", id: call.id, tool: call.tool, arguments: call.params.arguments };
}

function legacyCallOf(body: unknown, headers: IncomingHttpHeaders): DirectCall | undefined {
  // The stateless transport's own checks: what the client accepts (else its 406).
  const accept = header(headers, "accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
  const call = plainCall(body, LEGACY_PARAM_KEYS);
  if (!call || call.tool.annotations.readOnlyHint !== true || WAITING.has(call.tool.name)) return undefined;
  return { era: "legacy", id: call.id, tool: call.tool, arguments: call.params.arguments };
}

/** An answer of the direct path: its body, and the type it is sent as. */
export interface DirectAnswer {
  contentType: "application/json" | "text/event-stream";
  body: string;
}

/**
 * Runs the call (`signalFor` makes its signal, aborted when the call is to stop); the answer as
 * the SDK writes it for the call's revision, or undefined when the arguments do not validate
 * (then nothing ran, and the SDK answers).
 */
export async function answerDirectCall(call: DirectCall, deps: McpDeps, signalFor: () => AbortSignal, version: string): Promise<DirectAnswer | undefined> {
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
  const id = JSON.stringify(call.id);
  if (call.era === "legacy") {
    // The stateless 2025-11-25 transport's answer: the response, one SSE message, and the end.
    return { contentType: "text/event-stream", body: `event: message\ndata: {"result":${objectJson(result)},"jsonrpc":"2.0","id":${id}}\n\n` };
  }
  const stamped = { ...result, resultType: "complete", _meta: { [SERVER_INFO_META_KEY]: serverInfo(version) } };
  return { contentType: "application/json", body: `{"result":${objectJson(stamped)},"jsonrpc":"2.0","id":${id}}` };
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
