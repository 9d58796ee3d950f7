/**
 * GET /metrics (decisions.md, Operating a server): Prometheus text for an admin key or the
 * metrics token (401 otherwise), with the contract's families counting what happened, labels
 * by route pattern (no URLs, ids or user names), on a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { waitForEvents } from "../runtime/helpers.js";

const TOKEN = "metrics-token-0123456789abcdef";
const HTTP_SOURCE = `export default {
  name: "count", version: "0.1.0",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit({ n: 1 }); console.log("hit"); },
};`;

/** The value of one series (`name{labels}`), summed over series that match all given labels. */
function value(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let seen = false;
  for (const line of text.split("\n")) {
    if (line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) {
      sum += Number(m[3]);
      seen = true;
    }
  }
  return seen ? sum : NaN;
}

describe.each(testDatabases())("metrics on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  beforeAll(async () => {
    s = await startServer({ db, env: { HEADWATER_METRICS_TOKEN: TOKEN } });
    alice = await s.newUser();
  });
  afterAll(() => s?.stop());

  const scrape = async (auth?: string) => fetch(`${s.origin}/metrics`, auth ? { headers: { authorization: `Bearer ${auth}` } } : {});

  it("needs an admin key or the metrics token: 401 otherwise, in the error shape", async () => {
    for (const auth of [undefined, "not-a-key", alice.key, TOKEN.slice(0, -1)]) {
      const r = await scrape(auth);
      expect(r.status, String(auth)).toBe(401);
      expect(await r.json()).toMatchObject({ code: "unauthorized" });
    }
    const byAdmin = await scrape(s.adminKey);
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/);
    expect((await scrape(TOKEN)).status).toBe(200);
  });

  it("counts requests by route pattern, events, invocations, quota refusals, with no ids in labels", async () => {
    const src = await alice.client.createSource({ component_code: HTTP_SOURCE });
    const url = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
    const before = await (await scrape(TOKEN)).text();
    for (let i = 0; i < 3; i++) expect((await fetch(url, { method: "POST", body: "{}" })).status).toBe(200);
    await waitForEvents(alice.client, src.id, "", 3);
    await alice.client.getSource(src.id);
    await s.admin.updateUser(alice.user.id, { daily_invocations_quota: 0 });
    expect((await fetch(url, { method: "POST", body: "{}" })).status).toBe(429);
    const stream = new AbortController();
    const sse = await fetch(`${s.origin}/sources/${src.id}/sse`, { headers: { authorization: `Bearer ${alice.key}` }, signal: stream.signal });
    expect(sse.status).toBe(200);
    const after = await (await scrape(TOKEN)).text();
    stream.abort();

    const delta = (name: string, labels: Record<string, string>) => value(after, name, labels) - (value(before, name, labels) || 0);
    expect(delta("headwater_http_requests_total", { method: "POST", route: "/e/:id", status: "200" })).toBe(3);
    expect(delta("headwater_http_requests_total", { method: "POST", route: "/e/:id", status: "429" })).toBe(1);
    expect(delta("headwater_http_requests_total", { method: "GET", route: "/v1/sources/:id", status: "200" })).toBeGreaterThanOrEqual(1);
    expect(value(after, "headwater_http_request_duration_seconds_count", { route: "/v1/sources/:id" })).toBeGreaterThanOrEqual(1);
    expect(delta("headwater_events_appended_total", { channel: "emit" })).toBeGreaterThanOrEqual(3);
    expect(delta("headwater_events_appended_total", { channel: "logs" })).toBeGreaterThanOrEqual(3);
    expect(delta("headwater_invocations_total", { kind: "source", outcome: "ok" })).toBeGreaterThanOrEqual(3);
    expect(delta("headwater_quota_refusals_total", { quota: "invocations" })).toBeGreaterThanOrEqual(1);
    expect(value(after, "headwater_sse_streams")).toBeGreaterThanOrEqual(1);
    expect(value(after, "headwater_sandbox_processes")).toBeGreaterThanOrEqual(1);
    expect(value(after, "headwater_sandbox_spawns_total")).toBeGreaterThanOrEqual(1);
    expect(value(after, "headwater_queue_jobs")).toBeGreaterThanOrEqual(0);
    expect(value(after, "headwater_queue_oldest_job_age_seconds")).toBeGreaterThanOrEqual(0);
    expect(value(after, "headwater_db_commit_seconds_count")).toBeGreaterThan(0);
    expect(value(after, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    expect(value(after, "nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    // Labels are patterns and kinds: no ids, keys or user names anywhere.
    for (const secret of [src.id, alice.user.id, alice.user.username, alice.key, s.adminKey]) expect(after).not.toContain(secret);
  });

  it("counts the queue's jobs and the oldest one's age", async () => {
    const dbh = s.server.store.db;
    await dbh
      .insertInto("jobs")
      .values({ id: "999999999999999-test", target_id: "x_none", owner_id: "u_none", trigger: "http", payload: "{}", attempts: 0, run_after: Date.now() + 3_600_000, created_ms: Date.now() - 90_000 })
      .execute();
    const text = await (await scrape(s.adminKey)).text();
    expect(value(text, "headwater_queue_jobs")).toBeGreaterThanOrEqual(1);
    expect(value(text, "headwater_queue_oldest_job_age_seconds")).toBeGreaterThanOrEqual(89);
    await dbh.deleteFrom("jobs").where("id", "=", "999999999999999-test").execute();
  });
});
