/**
 * A plainly valid `tools/call` (any on 2026-07-28, a read on 2025-11-25) is answered by
 * server/mcp/direct-call.ts, everything else by the SDK. The two must not be told apart: each
 * read-only tool answers the same JSON-RPC body both ways, and what the direct path declines
 * (bad arguments, an unknown tool, header mismatches, an ended session) gets the SDK's answer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { echoSource } from "./fixtures.js";

const REVISION = "2026-07-28";
const envelope = {
  "io.modelcontextprotocol/protocolVersion": REVISION,
  "io.modelcontextprotocol/clientInfo": { name: "direct-call-test", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

let s: TestServer;
let u: TestUser;
let other: TestUser;
let sourceId: string;
let eventId: string;
let workflowId: string;
let runId: string;

beforeAll(async () => {
  s = await startServer();
  u = await s.newUser();
  other = await s.newUser();
  const src = await u.client.createSource({ component_code: echoSource(uniqueKey("direct-echo")), name: "direct" });
  sourceId = src.id;
  await fetch(`${s.origin}/e/${src.id}`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"n":1}' });
  for (let i = 0; i < 100; i++) {
    const page = await u.client.listSourceEvents(src.id, { limit: 1 });
    if (page.data[0]) {
      eventId = page.data[0].id;
      break;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  const step = 'export default defineComponent({ async run() { console.log("ran"); return 1; } })';
  const wf = await u.client.createWorkflow({ name: "direct-runs", steps: [{ name: "log", code: step }] });
  workflowId = wf.id;
  await fetch(wf.endpoint_url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  for (let i = 0; i < 200 && !runId; i++) {
    const run = (await u.client.listWorkflowRuns(wf.id, { limit: 1 })).data[0];
    if (run && run.ended_at_ms !== null) runId = run.id;
    else await new Promise((r) => setTimeout(r, 50));
  }
});
afterAll(async () => {
  await s?.stop();
});

interface Post {
  params: Record<string, unknown>;
  headers?: Record<string, string>;
  key?: string;
  id?: unknown;
}

/** One POST to /mcp: its status and parsed body. */
async function post({ params, headers = {}, key = u.key, id = 7 }: Post): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${s.origin}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": REVISION,
      "mcp-method": "tools/call",
      "mcp-name": String(params.name),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { _meta: envelope, ...params } }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/**
 * The same call both ways: as is (direct), and with a params member the direct path does not
 * take and the SDK ignores (so the SDK answers it).
 */
async function bothWays(name: string, args: Record<string, unknown>) {
  const direct = await post({ params: { name, arguments: args } });
  const viaSdk = await post({ params: { name, arguments: args, unused: true } });
  return { direct, viaSdk };
}

describe("a 2026-07-28 tools/call, answered directly", () => {
  const readOnly: Array<[string, () => Record<string, unknown>]> = [
    ["whoami", () => ({})],
    ["list_components", () => ({})],
    ["list_sources", () => ({})],
    ["get_source", () => ({ id: sourceId })],
    ["list_events", () => ({ id: sourceId, limit: 5 })],
    ["get_event", () => ({ id: sourceId, event_id: eventId })],
    ["event_stats", () => ({ id: sourceId })],
    ["list_subscriptions", () => ({ id: sourceId })],
    ["list_workflows", () => ({})],
    ["list_actions", () => ({ q: "nothing-matches-this" })],
    ["list_runs", () => ({ id: workflowId })],
    ["get_run", () => ({ id: workflowId, run_id: runId })],
  ];

  it.each(readOnly)("%s answers what the SDK answers", async (name, args) => {
    const { direct, viaSdk } = await bothWays(name, args());
    expect(direct.status).toBe(200);
    expect(viaSdk.status).toBe(200);
    const result = direct.body.result as { isError?: boolean; resultType: string; _meta: Record<string, unknown> };
    expect(result.isError, JSON.stringify(result)).toBeUndefined();
    expect(result.resultType).toBe("complete");
    expect(direct.body).toEqual(viaSdk.body);
  });

  it("holds what the REST call it wraps answers (its answer is handed over in-process, not re-read)", async () => {
    const { direct } = await bothWays("list_events", { id: sourceId, limit: 5 });
    const events = (direct.body.result as { structuredContent: { events: unknown[] } }).structuredContent.events;
    const rest = await u.client.listSourceEvents(sourceId, { limit: 5, expand: "event" });
    expect(events).toEqual(rest.data);
  });

  it("a refusal (another user's source) is the same isError result both ways", async () => {
    const theirs = await other.client.createSource({ component_code: echoSource(uniqueKey("theirs")), name: "theirs" });
    const { direct, viaSdk } = await bothWays("get_source", { id: theirs.id });
    const result = direct.body.result as { isError: boolean; structuredContent: { code: string } };
    expect(result.isError).toBe(true);
    expect(result.structuredContent.code).toBe("not_found");
    expect(direct.body).toEqual(viaSdk.body);
  });

  it("bad arguments run nothing and get the SDK's input validation answer", async () => {
    const before = (await u.client.listMySources({ limit: 100 })).data.length;
    const { body } = await post({ params: { name: "create_source", arguments: { name: 5 } } });
    const result = body.result as { isError: boolean; content: Array<{ text: string }> };
    expect(result.isError).toBe(true);
    expect(result.content[0]!.text).toMatch(/^Input validation error: Invalid arguments for tool create_source/);
    expect((await u.client.listMySources({ limit: 100 })).data.length).toBe(before);
  });

  it("an unknown tool is the SDK's protocol error", async () => {
    const { body } = await post({ params: { name: "no_such_tool", arguments: {} } });
    expect(body.error).toMatchObject({ code: -32602, message: "Tool no_such_tool not found" });
  });

  it("a Mcp-Name header naming another tool is refused, and nothing runs", async () => {
    const before = (await u.client.listMySources({ limit: 100 })).data.length;
    const code = echoSource(uniqueKey("mismatch"));
    const { status, body } = await post({ params: { name: "create_source", arguments: { component_code: code } }, headers: { "mcp-name": "whoami" } });
    expect(status).toBe(400);
    expect(body.error).toBeDefined();
    expect((await u.client.listMySources({ limit: 100 })).data.length).toBe(before);
  });

  it("an invalid envelope is refused even after a valid one with the same client", async () => {
    expect((await post({ params: { name: "whoami", arguments: {} } })).status).toBe(200);
    const { status, body } = await post({ params: { name: "whoami", arguments: {}, _meta: { ...envelope, "io.modelcontextprotocol/clientInfo": "not an object" } } });
    expect(status).toBe(400);
    expect((body.error as { code: number }).code).toBe(-32602);
  });

  it("an id the JSON-RPC schema refuses is refused", async () => {
    const { status, body } = await post({ params: { name: "whoami", arguments: {} }, id: 1.5 });
    expect(status).toBe(400);
    expect(body.error).toBeDefined();
  });

  it("a revoked key is refused at once, though the same key was just served", async () => {
    const temp = await s.newUser();
    expect((await post({ params: { name: "whoami", arguments: {} }, key: temp.key })).status).toBe(200);
    await s.admin.updateUser(temp.user.id, { disabled: true });
    const { status, body } = await post({ params: { name: "whoami", arguments: {} }, key: temp.key });
    expect(status).toBe(403);
    expect(body.code).toBe("user_disabled");
  });

  it("a vouch header sent from outside stands for nobody", async () => {
    await post({ params: { name: "whoami", arguments: {} } });
    const me = (key: string) =>
      fetch(`${s.baseUrl}/users/me`, { headers: { authorization: `Bearer ${key}`, "x-headwater-vouch": "guessed" } });
    expect((await me("not-a-key")).status).toBe(401);
    expect((await me(u.key)).status).toBe(200);
  });
});

/** One 2025-11-25 POST to /mcp: its status, content type and JSON-RPC message (an SSE message's data). */
async function legacyPost(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(`${s.origin}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${u.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, ...body }),
  });
  const text = await res.text();
  const type = res.headers.get("content-type") ?? "";
  const data = type.startsWith("text/event-stream") ? /^data: (.*)$/m.exec(text)?.[1] : text;
  return { status: res.status, type, session: res.headers.get("mcp-session-id"), message: data ? (JSON.parse(data) as Record<string, unknown>) : undefined };
}

describe("a 2025-11-25 tools/call of a read, answered directly", () => {
  const reads: Array<[string, () => Record<string, unknown>]> = [
    ["whoami", () => ({})],
    ["list_sources", () => ({})],
    ["get_source", () => ({ id: sourceId })],
    ["list_events", () => ({ id: sourceId, limit: 5 })],
    ["event_stats", () => ({ id: sourceId })],
    ["list_runs", () => ({ id: workflowId, status: "success" })],
    ["get_run", () => ({ id: workflowId, run_id: runId })],
  ];

  it.each(reads)("%s answers the SSE message the SDK answers", async (name, args) => {
    const direct = await legacyPost({ method: "tools/call", params: { name, arguments: args() } });
    // An empty _meta: the direct path leaves it to the SDK, which reads nothing in it.
    const viaSdk = await legacyPost({ method: "tools/call", params: { name, arguments: args(), _meta: {} } });
    expect(direct.status).toBe(200);
    expect(direct.type).toBe("text/event-stream");
    expect((direct.message!.result as { isError?: boolean }).isError).toBeUndefined();
    expect(direct.message).toEqual(viaSdk.message);
  });

  it("a tool that changes things, bad arguments and an unknown tool get the SDK's answers", async () => {
    const bad = await legacyPost({ method: "tools/call", params: { name: "get_source", arguments: { id: 5 } } });
    expect((bad.message!.result as { content: Array<{ text: string }> }).content[0]!.text).toMatch(/^Input validation error/);
    const unknown = await legacyPost({ method: "tools/call", params: { name: "no_such_tool", arguments: {} } });
    expect(unknown.message!.error).toMatchObject({ code: -32602 });
  });

  it("a session that has ended is a 404, for a read too", async () => {
    const init = await legacyPost({
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "direct-call-test", version: "1" } },
    });
    expect(init.session).toBeTruthy();
    const session = { "mcp-session-id": init.session! };
    expect((await legacyPost({ method: "tools/call", params: { name: "whoami", arguments: {} } }, session)).status).toBe(200);
    const ended = await fetch(`${s.origin}/mcp`, { method: "DELETE", headers: { authorization: `Bearer ${u.key}`, ...session } });
    expect(ended.status).toBe(200);
    expect((await legacyPost({ method: "tools/call", params: { name: "whoami", arguments: {} } }, session)).status).toBe(404);
  });
});
