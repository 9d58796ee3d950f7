/**
 * What keeps an agent within its user's rights and its context's size: the key and the Origin
 * at `/mcp`, another user's resources refused as unknown, a disabled user refused, the /v1 rate
 * limit applying to tool calls, results cut under 64 KB, and 2025-11-25 sessions.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { call, connect, connectHttp, echoSource, refused, type Era } from "./helpers.js";

const ALLOWED = "https://agents.example.test";
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

let s: TestServer;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  s = await startServer({ env: { HEADWATER_MCP_ALLOWED_ORIGINS: `${ALLOWED}, http://localhost:9` } });
  [alice, bob] = await Promise.all([s.newUser(), s.newUser()]);
});
afterAll(async () => {
  await s?.stop();
});

/** A request written by hand (headers fetch would refuse to send); resolves with the answer's text. */
function rawHttp(text: string): Promise<string> {
  const { port } = new URL(s.origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1", () => socket.end(text));
    let out = "";
    socket.on("data", (c) => (out += c.toString()));
    socket.on("end", () => resolve(out));
    socket.on("error", reject);
  });
}

const mcpPost = (headers: Record<string, string>, body: unknown = INIT) =>
  fetch(`${s.origin}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });

describe("the door", () => {
  it("refuses a missing or unknown key with 401, WWW-Authenticate: Bearer and the error body", async () => {
    const tries: Array<Record<string, string>> = [{}, { authorization: "Bearer not-a-key-of-anyone" }, { authorization: "Basic abc" }];
    for (const headers of tries) {
      const res = await mcpPost(headers);
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(await res.json()).toMatchObject({ code: "unauthorized", error: expect.any(String) });
    }
  });

  it("refuses an Origin that is not allowed with 403 (DNS rebinding), and serves an allowed one", async () => {
    const evil = await mcpPost({ authorization: `Bearer ${alice.key}`, origin: "http://evil.example" });
    expect(evil.status).toBe(403);
    expect(await evil.json()).toMatchObject({ code: "forbidden" });
    // Refused before the key is even looked at.
    expect((await mcpPost({ origin: "http://localhost:7433" })).status).toBe(403);
    const ok = await mcpPost({ authorization: `Bearer ${alice.key}`, origin: ALLOWED });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("mcp-session-id")).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // Without Origin (not a browser): served.
    expect((await mcpPost({ authorization: `Bearer ${alice.key}` })).status).toBe(200);
  });

  it("answers malformed JSON-RPC with a 4xx, never a 5xx", async () => {
    const auth = { authorization: `Bearer ${alice.key}` };
    for (const body of ["{not json", "[]", "42", '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}']) {
      const res = await fetch(`${s.origin}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...auth },
        body,
      });
      expect(res.status, body).toBeLessThan(500);
      await res.arrayBuffer();
    }
    // A Host header that is no host (DNS rebinding tries all sorts): refused or served, never a 5xx.
    const odd = await rawHttp(`POST /mcp HTTP/1.1\r\nHost: a b\r\nAuthorization: Bearer ${alice.key}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${JSON.stringify(INIT).length}\r\nConnection: close\r\n\r\n${JSON.stringify(INIT)}`);
    expect(odd).toMatch(/^HTTP\/1\.1 [24]\d\d /);
    const wrongType = await fetch(`${s.origin}/mcp`, { method: "POST", headers: { ...auth, "content-type": "text/plain" }, body: "hi" });
    expect(wrongType.status).toBeGreaterThanOrEqual(400);
    expect(wrongType.status).toBeLessThan(500);
  });

  it("keeps 2025-11-25 sessions for subscriptions only: GET and DELETE need one, unknown ones are 404", async () => {
    const auth = { authorization: `Bearer ${alice.key}` };
    const get = (h: Record<string, string>) => fetch(`${s.origin}/mcp`, { headers: { accept: "text/event-stream", ...auth, ...h } });
    expect((await get({})).status).toBe(405);
    expect((await get({ "mcp-session-id": "nope" })).status).toBe(404);
    const session = (await mcpPost(auth)).headers.get("mcp-session-id")!;
    // Another user cannot use it.
    expect((await get({ "mcp-session-id": session, authorization: `Bearer ${bob.key}` })).status).toBe(404);
    // A request with no session, or an unknown one, is served statelessly all the same.
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };
    expect((await mcpPost({ ...auth, "mcp-protocol-version": "2025-11-25" }, list)).status).toBe(200);
    expect((await mcpPost({ ...auth, "mcp-protocol-version": "2025-11-25", "mcp-session-id": "elsewhere" }, list)).status).toBe(200);
    const del = (id: string) => fetch(`${s.origin}/mcp`, { method: "DELETE", headers: { ...auth, "mcp-session-id": id } });
    expect((await del(session)).status).toBe(200);
    expect((await del(session)).status).toBe(404);
    // Once ended here, the session is a 404 for anything, so the client initializes again.
    expect((await mcpPost({ ...auth, "mcp-protocol-version": "2025-11-25", "mcp-session-id": session }, list)).status).toBe(404);
  });
});

describe.each(["2025-11-25", "2026-07-28"] as Era[])("protocol %s", (era) => {
  it("refuses another user's source, workflow and events as not found", async () => {
    const theirs = await bob.client.createSource({ component_code: echoSource(uniqueKey("bob")), name: uniqueKey("bobs") });
    const wf = await bob.client.createWorkflow({ name: "bobs", steps: [{ code: "export default defineComponent({ async run() {} })" }] });
    const conn = await connectHttp(s, alice.key, era);
    try {
      const c = conn.client;
      for (const [tool, args] of [
        ["get_source", { id: theirs.id }],
        ["get_source", { id: theirs.name }],
        ["update_source", { id: theirs.id, active: false }],
        ["delete_source", { id: theirs.id }],
        ["list_events", { id: theirs.id }],
        ["list_events", { id: wf.id }],
        ["get_event", { id: theirs.id, event_id: "1-0" }],
        ["wait_for_events", { id: theirs.id, timeout_seconds: 2, after_event_id: "0-0" }],
        ["replay_events", { id: theirs.id }],
        ["delete_events", { id: theirs.id }],
        ["event_stats", { id: wf.id }],
        ["send_test_event", { id: theirs.id }],
      ] as const) {
        const r = await refused(c, tool, args);
        expect(r.code, `${tool} ${JSON.stringify(r)}`).toBe("not_found");
      }
      // subscribe: their emitter into my listener is refused by REST as not found too.
      const mine = await call<{ source: { id: string } }>(c, "create_source", { component_code: echoSource(uniqueKey("mine")) });
      expect((await refused(c, "subscribe", { emitter_id: theirs.id, listener_id: mine.source.id })).status).toBe(404);
      expect((await bob.client.getSource(theirs.id)).active).toBe(true);
    } finally {
      await conn.close();
    }
  });

  it("cuts an over-long result under 64 KB and says so", async () => {
    const u = await s.newUser();
    const src = await u.client.createSource({ component_code: echoSource(uniqueKey("big")) });
    const url = `${s.origin}/e/${src.id}`;
    const send = (body: unknown) =>
      fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.status);
    // 18 events of 3.8 KB (each under the 4 KB cut, 68 KB together), then one of 200 KB.
    for (let i = 0; i < 18; i++) expect(await send({ i, pad: "x".repeat(3800) })).toBe(200);
    expect(await send({ big: "y".repeat(200_000) })).toBe(200);
    const conn = await connect("http", s, u.key, era);
    try {
      const c = conn.client;
      const waited = await call<{ events: unknown[]; last_event_id: string; truncated?: boolean }>(c, "wait_for_events", {
        id: src.id,
        after_event_id: "0-0",
        max: 100,
        timeout_seconds: 5,
      });
      expect(waited.events.length).toBeGreaterThan(0);
      for (let n = 0; n < 200 && (await u.client.listSourceEvents(src.id, { limit: 1 })).page_info.total_count < 19; n++) {
        await new Promise((r) => setTimeout(r, 100));
      }
      const text = async (name: string, args: Record<string, unknown>) => {
        const r = await c.callTool({ name, arguments: args });
        const t = (r.content as Array<{ text: string }>)[0]!.text;
        expect(Buffer.byteLength(t)).toBeLessThanOrEqual(64 * 1024);
        return JSON.parse(t) as Record<string, unknown>;
      };
      const all = await text("wait_for_events", { id: src.id, after_event_id: "0-0", max: 100, timeout_seconds: 5 });
      const got = all.events as Array<{ id: string }>;
      expect(all.truncated).toBe(true);
      expect(got.length).toBeLessThan(19);
      expect(all.last_event_id).toBe(got[got.length - 1]!.id);

      const page = await text("list_events", { id: src.id, limit: 19 });
      const events = page.events as Array<{ id: string; event: { big?: string; truncated?: boolean; size?: number }; truncated?: boolean }>;
      expect(events[0]!.truncated).toBe(true);
      expect(events[0]!.event).toMatchObject({ truncated: true, size: expect.any(Number) });
      expect(page.truncated).toBe(true);
      expect(page.note).toMatch(/cursor/);
      expect(events.length).toBeLessThan(19);
      expect(page.next_cursor).toBe(events[events.length - 1]!.id);
      const rest = await text("list_events", { id: src.id, limit: 100, cursor: page.next_cursor });
      expect(events.length + (rest.events as unknown[]).length).toBeGreaterThanOrEqual(19);

      const whole = await text("get_event", { id: src.id, event_id: events[0]!.id });
      expect(whole.truncated).toBe(true);
      expect(whole.note).toMatch(/cut from/);
      expect(JSON.stringify(whole.event)).toContain("yyyy");
    } finally {
      await conn.close();
    }
  });
});

describe("secrets", () => {
  it("masks secret props in what tools answer, and keeps them when the mask is sent back", async () => {
    const code = `export default {
      key: "${uniqueKey("secretive")}", name: "Secretive", version: "0.1.0",
      props: { http: "$.interface.http", apiToken: { type: "string" }, hidden: { type: "string", secret: true }, region: { type: "string" } },
      async run() {},
    };`;
    const conn = await connectHttp(s, alice.key, "2026-07-28");
    try {
      const c = conn.client;
      const props = { apiToken: "tok-123456", hidden: "shh-123456", region: "eu" };
      const made = await call<{ source: { id: string; configured_props: Record<string, unknown> } }>(c, "create_source", {
        component_code: code,
        configured_props: props,
      });
      expect(made.source.configured_props).toMatchObject({ apiToken: "••••", hidden: "••••", region: "eu" });
      const listed = await call<{ sources: Array<{ id: string; configured_props: Record<string, unknown> }> }>(c, "list_sources");
      expect(JSON.stringify(listed)).not.toContain("tok-123456");
      const read = await c.readResource({ uri: `headwater://sources/${made.source.id}` });
      expect((read.contents[0] as { text: string }).text).not.toContain("tok-123456");
      // The model edits what it saw: the masked values go back as they were shown.
      const { source } = await call<{ source: { configured_props: Record<string, unknown> } }>(c, "get_source", { id: made.source.id });
      await call(c, "update_source", { id: made.source.id, configured_props: { ...source.configured_props, region: "us" } });
      expect((await alice.client.getSource(made.source.id)).configured_props).toMatchObject({ apiToken: "tok-123456", hidden: "shh-123456", region: "us" });
    } finally {
      await conn.close();
    }
  });
});

describe("GET /workflows/{id}/sse", () => {
  it("streams a workflow's emits to its owner only, as a source's stream does", async () => {
    const wf = await alice.client.createWorkflow({ name: "sse", steps: [{ code: "export default defineComponent({ async run({ $ }) { $.send.emit({ ok: 1 }); } })" }] });
    const open = (id: string, key: string) => fetch(`${s.origin}/workflows/${id}/sse`, { headers: { authorization: `Bearer ${key}` } });
    expect((await open(wf.id, bob.key)).status).toBe(404);
    const src = await alice.client.createSource({ component_code: echoSource(uniqueKey("not-a-workflow")) });
    expect((await open(src.id, alice.key)).status).toBe(404);
    expect((await fetch(`${s.origin}/workflows/${wf.id}/sse`)).status).toBe(401);
    const controller = new AbortController();
    const res = await fetch(`${s.origin}/workflows/${wf.id}/sse?last_event_id=0-0`, {
      headers: { authorization: `Bearer ${alice.key}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/text\/event-stream/);
    expect((await fetch(wf.endpoint_url, { method: "POST" })).status).toBe(200);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    while (!text.includes('"ok":1')) text += (await reader.read()).value ?? "";
    expect(text).toMatch(/^id: \d+-\d+$/m);
    controller.abort();
  });
});

describe("a user's limits", () => {
  it("refuses a disabled user's calls: 403 at /mcp", async () => {
    const u = await s.newUser();
    const conn = await connectHttp(s, u.key, "2026-07-28");
    try {
      await call(conn.client, "whoami");
      await s.admin.updateUser(u.user.id, { disabled: true });
      await expect(conn.client.callTool({ name: "whoami", arguments: {} })).rejects.toThrow(/403|disabled/i);
      const res = await mcpPost({ authorization: `Bearer ${u.key}` });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ code: "user_disabled" });
    } finally {
      await conn.close();
    }
  });

  it("applies the /v1 rate limit to tool calls (they are /v1 requests in-process)", async () => {
    const limited = await startServer({ env: { HEADWATER_RATE_LIMIT: "1" } });
    try {
      const u = await limited.newUser();
      const conn = await connectHttp(limited, u.key, "2026-07-28");
      try {
        const codes: string[] = [];
        for (let i = 0; i < 4; i++) {
          const r = await conn.client.callTool({ name: "whoami", arguments: {} });
          codes.push(r.isError ? (r.structuredContent as { code: string }).code : "ok");
        }
        expect(codes.slice(0, 2)).toEqual(["ok", "ok"]);
        expect(codes).toContain("rate_limited");
      } finally {
        await conn.close();
      }
    } finally {
      await limited.stop();
    }
  });
});
