/** `GET /sources/{id}/stats` and `GET /workflows/{id}/stats` (decisions.md "Event inspection"). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Stats, StatsPoint } from "../../shared/resources/index.js";
import { post, sleep } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { emitDirect, newSource } from "./fixtures.js";

const total = (s: Stats, k: keyof Omit<StatsPoint, "t">) => s.series.reduce((n, p) => n + p[k], 0);

describe.each(testDatabases())("event stats on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    // Retention at its minimum: appends past it must still count.
    srv = await startServer({ db, env: { HEADWATER_EVENT_RETENTION: "100" } });
    alice = await srv.newUser();
    bob = await srv.newUser();
  });
  afterAll(() => srv?.stop());

  it("counts events, errors and logs as appended, one point per minute of the last hour, zeros included", async () => {
    const source = await newSource(alice);
    const before = Date.now();
    await emitDirect(srv, alice, source, Array.from({ length: 150 }, (_, i) => ({ i })));
    await emitDirect(srv, alice, source, [{ error: "x" }, { error: "y" }], "$errors");
    await emitDirect(srv, alice, source, [{ message: "hi" }], "$logs");
    await emitDirect(srv, alice, source, [{ other: 1 }], "orders");
    const stats = await alice.client.getSourceStats(source);
    expect(stats.bucket).toBe("minute");
    // The last hour, by minute: the minute an hour ago up to this one.
    expect(stats.series.length).toBeGreaterThanOrEqual(60);
    expect(stats.series.length).toBeLessThanOrEqual(61);
    for (let i = 1; i < stats.series.length; i++) expect(stats.series[i]!.t - stats.series[i - 1]!.t).toBe(60_000);
    expect(stats.series.every((p) => p.t % 60_000 === 0)).toBe(true);
    const last = stats.series.at(-1)!;
    expect(last.t).toBeLessThanOrEqual(Date.now());
    expect(last.t).toBeGreaterThan(Date.now() - 120_000);
    // Retention kept 100 of the 150, but all were counted; named channels count as events.
    expect(total(stats, "events")).toBe(151);
    expect(total(stats, "errors")).toBe(2);
    expect(total(stats, "logs")).toBe(1);
    expect(stats.series.filter((p) => p.events > 0).every((p) => p.t >= before - 60_000)).toBe(true);
    expect(stats.series[0]).toMatchObject({ events: 0, errors: 0, logs: 0, invocations: 0, compute_ms: 0 });
    expect((await alice.client.listSourceEvents(source)).page_info.total_count).toBe(100);

    // Deleting events does not change the figures.
    await alice.client.deleteSourceEvents(source);
    const after = await alice.client.getSourceStats(source);
    expect(total(after, "events")).toBe(151);
  });

  it("counts invocations and compute time when runs end", async () => {
    const source = await srv.newUser().then(async (u) => ({ u, id: await newSource(u) }));
    const endpoint = `${srv.origin}/e/${source.id}`;
    for (let i = 0; i < 3; i++) expect(await post(endpoint, { i })).toBeLessThan(300);
    const deadline = Date.now() + 20_000;
    let stats = await source.u.client.getSourceStats(source.id);
    while (total(stats, "invocations") < 3 && Date.now() < deadline) {
      await sleep(100);
      stats = await source.u.client.getSourceStats(source.id);
    }
    expect(total(stats, "invocations")).toBe(3);
    expect(total(stats, "events")).toBe(3);
    expect(total(stats, "compute_ms")).toBeGreaterThanOrEqual(0);
  });

  it("counts a workflow's events and answers hour and day buckets over a given window", async () => {
    const wf = await alice.client.createWorkflow({ name: "w", steps: [{ code: "export default defineComponent({ async run() {} });" }] });
    await emitDirect(srv, alice, wf.id, [{ a: 1 }, { a: 2 }]);
    const now = Date.now();
    const hours = await alice.client.getWorkflowStats(wf.id, { since: now - 5 * 3_600_000, until: now, bucket: "hour" });
    expect(hours.bucket).toBe("hour");
    expect(hours.series.length).toBe(6);
    expect(hours.series.every((p) => p.t % 3_600_000 === 0)).toBe(true);
    expect(hours.series.at(-1)!.events).toBe(2);
    const days = await alice.client.getWorkflowStats(wf.id, { since: now - 6 * 86_400_000, until: now, bucket: "day" });
    expect(days.series.length).toBe(7);
    expect(days.series.at(-1)!.events).toBe(2);
    expect(total(days, "events")).toBe(2);
    // A window in the past, on minute boundaries: 60 minutes of zeros.
    const minute = now - (now % 60_000);
    const past = await alice.client.getWorkflowStats(wf.id, { since: minute - 3 * 3_600_000, until: minute - 2 * 3_600_000 });
    expect(past.series[0]!.t).toBe(minute - 3 * 3_600_000);
    expect(total(past, "events")).toBe(0);
    expect(past.series.length).toBe(60);
  });

  it("refuses bad input with a 4xx in the error shape", async () => {
    const source = await newSource(alice);
    const now = Date.now();
    const cases: Array<[string, number, RegExp]> = [
      [`bucket=week`, 400, /bucket/],
      [`since=${now}&until=${now - 1000}`, 400, /since is later than until/],
      [`since=${now - 32 * 86_400_000}&until=${now}`, 400, /31 days/],
      [`since=${now - 400 * 86_400_000}&until=${now}&bucket=hour`, 400, /366 days/],
      [`since=abc`, 400, /since/],
      [`until=-5`, 400, /until/],
    ];
    for (const [query, status, message] of cases) {
      const res = await fetch(`${srv.baseUrl}/sources/${source}/stats?${query}`, { headers: { authorization: `Bearer ${alice.key}` } });
      expect(res.status, query).toBe(status);
      const body = (await res.json()) as { error: string; code: string };
      expect(body.error, query).toMatch(message);
      expect(typeof body.code).toBe("string");
    }
    // 31 days of minutes exactly is fine.
    const ok = await alice.client.getSourceStats(source, { since: now - 31 * 86_400_000, until: now });
    expect(ok.series.length).toBeGreaterThanOrEqual(44_640);
    await expect(alice.client.getSourceStats("dc_nope")).rejects.toMatchObject({ status: 404 });
    await expect(alice.client.getSourceStats("p_nope")).rejects.toMatchObject({ status: 404 });
    await expect(alice.client.getWorkflowStats(source)).rejects.toMatchObject({ status: 404 });
    await expect(bob.client.getSourceStats(source)).rejects.toMatchObject({ status: 404 });
  });

  it("documents search, replay and stats in the OpenAPI document", async () => {
    const doc = (await (await fetch(`${srv.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; responses: Record<string, unknown> }>>;
    };
    for (const kind of ["sources", "workflows"]) {
      expect(doc.paths[`/v1/${kind}/{id}/events/replay`]?.post?.responses["202"], kind).toBeDefined();
      expect(doc.paths[`/v1/${kind}/{id}/stats`]?.get?.parameters?.map((p) => p.name), kind).toEqual(expect.arrayContaining(["since", "until", "bucket"]));
      expect(doc.paths[`/v1/${kind}/{id}/event_summaries`]?.get?.parameters?.map((p) => p.name), kind).toContain("q");
    }
    expect(doc.paths["/v1/workflows/{id}/$errors/event_summaries"]?.get?.parameters?.map((p) => p.name)).toContain("q");
  });
});
