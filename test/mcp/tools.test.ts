/**
 * Every tool, resource and the prompt, driven by the SDK's own client over both transports
 * (`/mcp` and `headwater mcp`) in both protocol revisions: one walk from deploying a source to
 * deleting it, as an agent would make it.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { call, connect, echoSource, ERAS, refused, relayStep, type Connected, type Era, type Via } from "./helpers.js";

interface Src {
  id: string;
  name: string;
  component_id: string;
  endpoint_url: string;
  active: boolean;
}
interface Ev {
  id: string;
  event: unknown;
  metadata: { summary?: string };
  truncated?: boolean;
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.stop();
});

const combos: Array<[Via, Era]> = (["http", "stdio"] as const).flatMap((via) => ERAS.map((era): [Via, Era] => [via, era]));

describe.each(combos)("over %s, protocol %s", (via, era) => {
  let u: TestUser;
  let conn: Connected;
  let c: Client;
  beforeAll(async () => {
    u = await s.newUser();
    conn = await connect(via, s, u.key, era);
    c = conn.client;
  });
  afterAll(async () => {
    await conn?.close();
  });

  it("lists the tools of the contract, each with schemas and hints", async () => {
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(
      [
        "whoami", "list_components", "get_component", "list_sources", "get_source", "create_source", "update_source",
        "delete_source", "list_events", "get_event", "wait_for_events", "replay_events", "delete_events", "event_stats",
        "list_subscriptions", "subscribe", "unsubscribe", "list_workflows", "create_workflow", "send_test_event",
        "list_actions", "run_action", "list_runs", "get_run", "rerun", "update_workflow", "cancel_run", "get_draft",
        "update_draft", "deploy_draft", "list_versions", "get_version", "restore_version", "test_workflow",
        "compare_runs",
        "list_env", "set_env", "delete_env",
        "run_workflow", "next_schedule_ticks",
        "list_data_stores", "create_data_store", "get_record", "set_record", "delete_record", "list_records", "increment_record",
      ].sort(),
    );
    for (const t of tools) {
      expect(t.description!.length, t.name).toBeGreaterThan(40);
      expect(t.outputSchema, t.name).toBeDefined();
      expect(typeof t.annotations?.readOnlyHint, t.name).toBe("boolean");
      expect(typeof t.annotations?.destructiveHint, t.name).toBe("boolean");
      expect(typeof t.annotations?.idempotentHint, t.name).toBe("boolean");
    }
    // A source or workflow is named `id` by every tool (subscriptions name two: emitter_id, listener_id).
    for (const t of tools) {
      const params = Object.keys((t.inputSchema as { properties?: Record<string, unknown> }).properties ?? {});
      expect(params.filter((p) => ["source", "source_id", "workflow", "workflow_id"].includes(p)), t.name).toEqual([]);
    }
    const byName = Object.fromEntries(tools.map((t) => [t.name, t.annotations!]));
    expect(byName.list_events!.readOnlyHint).toBe(true);
    expect(byName.delete_source!.destructiveHint).toBe(true);
    expect(byName.delete_events!.destructiveHint).toBe(true);
    expect(byName.create_source!.readOnlyHint).toBe(false);
  });

  it("walks a source from deploy to delete: every tool, the resources and the prompt", async () => {
    const me = await call<{ user: Record<string, unknown> }>(c, "whoami");
    expect(me.user.id).toBe(u.user.id);
    expect(JSON.stringify(me)).not.toContain(u.key);

    const name = uniqueKey("echo");
    const { source } = await call<{ source: Src }>(c, "create_source", { component_code: echoSource(uniqueKey("mcp-echo")), name });
    expect(source.endpoint_url).toBe(`${s.origin}/e/${source.id}`);
    expect((await call<{ source: Src }>(c, "get_source", { id: name })).source.id).toBe(source.id);
    expect((await call<{ sources: Src[] }>(c, "list_sources")).sources.map((x) => x.id)).toContain(source.id);
    const comps = await call<{ components: Array<{ id: string; code?: string }> }>(c, "list_components", { limit: 5 });
    expect(comps.components.map((x) => x.id)).toContain(source.component_id);
    expect(comps.components[0]!.code).toBeUndefined();
    expect((await call<{ component: { code: string } }>(c, "get_component", { component: source.component_id })).component.code).toContain("MCP echo");

    const renamed = `${name}-2`;
    const upd = await call<{ source: Src }>(c, "update_source", { id: source.id, name: renamed });
    expect(upd.source).toMatchObject({ id: source.id, name: renamed, active: true });

    // Wait, then send: the wait answers with the event the request made.
    const waiting = call<{ events: Ev[]; timed_out: boolean; last_event_id: string }>(c, "wait_for_events", { id: source.id, timeout_seconds: 20 });
    await new Promise((r) => setTimeout(r, 300));
    const sent = await call<{ status: number; body: string }>(c, "send_test_event", { id: renamed, body: { hello: "mcp", era } });
    expect(sent.status).toBe(200);
    const waited = await waiting;
    expect(waited.timed_out).toBe(false);
    expect(waited.events.map((e) => e.event)).toEqual([{ hello: "mcp", era }]);
    const eventId = waited.last_event_id;

    const found = await call<{ events: Ev[]; total_count: number }>(c, "list_events", { id: source.id, q: "mcp" });
    expect(found.events.map((e) => e.id)).toEqual([eventId]);
    expect((await call<{ events: Ev[] }>(c, "list_events", { id: source.id, q: "absent-text" })).events).toEqual([]);
    const logs = await call<{ events: Ev[] }>(c, "list_events", { id: renamed, channel: "$logs" });
    expect(JSON.stringify(logs.events[0]?.event)).toContain("got POST");
    const one = await call<{ event: Ev; channel: string }>(c, "get_event", { id: source.id, event_id: eventId });
    expect(one.event).toMatchObject({ id: eventId, event: { hello: "mcp", era }, metadata: { summary: "request POST" } });

    // A workflow that relays what it receives; replayed to, and waited on through its own stream.
    const { workflow } = await call<{ workflow: { id: string; endpoint_url: string } }>(c, "create_workflow", {
      name: `relay-${era}`,
      steps: [{ name: "relay", code: relayStep }],
    });
    expect((await call<{ workflows: Array<{ id: string }> }>(c, "list_workflows")).workflows.map((w) => w.id)).toContain(workflow.id);
    const sub = await call<{ subscription: { emitter_id: string; listener_id: string } }>(c, "subscribe", {
      emitter_id: source.id,
      listener_id: workflow.id,
    });
    expect(sub.subscription).toMatchObject({ emitter_id: source.id, listener_id: workflow.id });
    const subs = await call<{ subscriptions: Array<{ listener_id: string }> }>(c, "list_subscriptions");
    expect(subs.subscriptions.map((x) => x.listener_id)).toContain(workflow.id);
    const relayed = call<{ events: Ev[] }>(c, "wait_for_events", { id: workflow.id, after_event_id: "0-0", timeout_seconds: 20 });
    const replay = await call<{ events: number; deliveries: number }>(c, "replay_events", { id: source.id, listener_id: workflow.id });
    expect(replay).toMatchObject({ events: 1, deliveries: 1 });
    expect((await relayed).events.map((e) => e.event)).toEqual([{ raw_event: { relayed: { hello: "mcp", era } } }]);

    const stats = await call<{ totals: { events: number; invocations: number }; series: unknown[] }>(c, "event_stats", { id: source.id });
    expect(stats.totals.events).toBe(1);
    expect(stats.totals.invocations).toBeGreaterThanOrEqual(1);
    expect(stats.series.length).toBeGreaterThan(0);

    // Resources: listed, read, as templates; the prompt reads the source's observations.
    const listed = await c.listResources();
    expect(listed.resources.map((r) => r.uri)).toEqual(
      expect.arrayContaining([`headwater://sources/${source.id}`, `headwater://sources/${source.id}/events`, `headwater://workflows/${workflow.id}/events`]),
    );
    const templates = await c.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate).sort()).toEqual(
      ["headwater://sources/{id}", "headwater://sources/{id}/events", "headwater://workflows/{id}", "headwater://workflows/{id}/events"].sort(),
    );
    const read = await c.readResource({ uri: `headwater://sources/${source.id}/events` });
    const body = JSON.parse((read.contents[0] as { text: string }).text) as { events: Ev[] };
    expect(body.events.map((e) => e.id)).toEqual([eventId]);
    const srcRes = await c.readResource({ uri: `headwater://sources/${source.id}` });
    expect(JSON.parse((srcRes.contents[0] as { text: string }).text)).toMatchObject({ id: source.id, name: renamed });
    const prompt = await c.getPrompt({ name: "debug_source", arguments: { source: renamed } });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    expect(text).toContain(source.id);
    expect(text).toContain("$errors");
    expect(text).toContain("got POST");

    // Undo it all.
    expect(await call(c, "unsubscribe", { emitter_id: source.id, listener_id: workflow.id })).toEqual({ deleted: true });
    expect(await call(c, "delete_events", { id: source.id })).toEqual({ id: source.id, accepted: true });
    expect((await call<{ events: Ev[] }>(c, "list_events", { id: source.id })).events).toEqual([]);
    expect(await call(c, "delete_source", { id: renamed })).toEqual({ deleted: true, id: source.id });
    expect((await refused(c, "get_source", { id: source.id })).code).toBe("not_found");
  });

  it("answers an empty wait at its timeout, and refuses bad input with a clear reason", async () => {
    const { source } = await call<{ source: Src }>(c, "create_source", { component_code: echoSource(uniqueKey("mcp-idle")) });
    const t0 = Date.now();
    const idle = await call<{ events: Ev[]; timed_out: boolean }>(c, "wait_for_events", { id: source.id, timeout_seconds: 1 });
    expect(idle).toMatchObject({ events: [], timed_out: true });
    expect(Date.now() - t0).toBeLessThan(5000);

    expect((await refused(c, "wait_for_events", { id: source.id, timeout_seconds: 61 })).error).toMatch(/timeout_seconds/);
    expect((await refused(c, "list_events", { id: source.id, cursor: "not-an-id" })).error).toMatch(/cursor/);
    expect((await refused(c, "create_source", { name: "nothing to deploy" })).code).toBe("bad_request");
    expect((await refused(c, "create_source", { component_code: "export default 42" })).status).toBe(400);
    expect((await refused(c, "delete_events", { id: "p_doesnotexist" })).code).toMatch(/not_found|bad_request/);
    expect((await refused(c, "get_event", { id: source.id, event_id: "1-0" })).code).toBe("not_found");
  });
});
