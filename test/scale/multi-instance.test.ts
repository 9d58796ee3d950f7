/**
 * Two server processes on one PostgreSQL database behind an imaginary load balancer: any
 * instance answers any request, events reach SSE streams on the other instance in order,
 * timers fire once per tick, and killing an instance loses nothing it acknowledged.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../shared/client/index.js";
import { openSse, type SseReader } from "../streams/sse-reader.js";
import { allEvents, compareEventIds, postgresForScale, startCluster, waitForEventsWhere, type Cluster, type Instance } from "./cluster.js";

const recorder = `
export default {
  name: "Recorder",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body); },
};`;

const responder = `
export default {
  name: "Responder",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run(event) {
    this.http.respond({ status: 201, body: { echo: event.body } });
    this.$emit(event.body);
  },
};`;

// Tells the test it started, then holds its run (and its target's lease) for a minute. Custom
// responses run on the instance that received the request.
const holder = `
export default {
  name: "Holder",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run(event) {
    await fetch(event.body.notify);
    await new Promise((r) => setTimeout(r, 60000));
    this.http.respond({ status: 200, body: "held" });
  },
};`;

const ticker = `
export default {
  name: "Ticker",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 1 } } },
};`;

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as unknown) : undefined };
}

interface HitCounter {
  url: string;
  waitFor(n: number, ms: number): Promise<void>;
  close(): Promise<void>;
}

/** An HTTP server on loopback counting the requests it gets. */
async function hitCounter(): Promise<HitCounter> {
  let hits = 0;
  const server = http.createServer((_req, res) => {
    hits++;
    res.end("ok");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/started`,
    async waitFor(n, ms) {
      const deadline = Date.now() + ms;
      while (hits < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      if (hits < n) throw new Error(`${hits} of ${n} runs started within ${ms} ms`);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const bodiesOf = (events: Array<{ event?: unknown }>) => events.map((e) => (e.event as { i: number }).i);

// Skipped (with the notice printed by postgresForScale) when HEADWATER_TEST_DATABASE_URL is unset.
describe.skipIf(!postgresForScale())("several instances on one PostgreSQL database", () => {
  let cluster: Cluster;
  let a: Instance;
  let b: Instance;
  const streams: SseReader[] = [];
  let starts: HitCounter;
  const sse = async (inst: Instance, sourceId: string, lastEventId?: string) => {
    const headers: Record<string, string> = { authorization: `Bearer ${cluster.apiKey}` };
    if (lastEventId) headers["last-event-id"] = lastEventId;
    const s = await openSse(`${inst.server.origin}/sources/${sourceId}/sse`, headers);
    expect(s.status).toBe(200);
    streams.push(s);
    return s;
  };

  beforeAll(async () => {
    starts = await hitCounter();
    // Loopback allowed so the holder source can tell the test it started.
    cluster = await startCluster(["A", "B"], { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "true" });
    [a, b] = cluster.instances as [Instance, Instance];
  }, 120_000);
  afterAll(async () => {
    for (const s of streams) s.close();
    await cluster?.stop();
    await starts?.close();
  });

  it("a source made through A is listed and triggered through B; B's SSE gets A's events in order; resume crosses instances", async () => {
    const source = await a.client.createSource({ component_code: recorder, name: "cross" });
    const listed = await b.client.listMySources({ limit: 100 });
    expect(listed.data.map((s) => s.id)).toContain(source.id);
    expect((await b.client.getSource(source.id)).name).toBe("cross");

    const live = await sse(b, source.id);
    for (let i = 1; i <= 20; i++) {
      expect(await post(`${a.server.origin}/e/${source.id}`, { i })).toEqual({ status: 200, json: { success: true } });
    }
    const seen = await live.waitFor(20, 20_000);
    expect(seen.map((m) => (JSON.parse(m.data) as { event: { i: number } }).event.i)).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
    const ids = seen.map((m) => m.id!);
    expect([...ids].sort(compareEventIds)).toEqual(ids);
    live.close();

    // Triggered through B while nobody listens; resumed on A from the last id B's stream sent.
    for (let i = 21; i <= 30; i++) expect((await post(`${b.server.origin}/e/${source.id}`, { i })).status).toBe(200);
    await waitForEventsWhere(a.client, source.id, (e) => e.length >= 30, 20_000, "30 events");
    const resumed = await sse(a, source.id, ids.at(-1));
    const rest = await resumed.waitFor(10, 20_000);
    expect(rest.map((m) => (JSON.parse(m.data) as { event: { i: number } }).event.i)).toEqual(Array.from({ length: 10 }, (_, k) => k + 21));
    expect(rest.every((m) => compareEventIds(m.id!, ids.at(-1)!) > 0)).toBe(true);
    resumed.close();
  });

  it("custom responses come back through whichever instance received the request", async () => {
    const source = await a.client.createSource({ component_code: responder });
    const sends: Array<Promise<{ status: number; json: unknown }>> = [];
    // Concurrent requests on both instances: each instance runs some of the other's jobs.
    for (let i = 1; i <= 24; i++) {
      const inst = i % 2 === 0 ? a : b;
      sends.push(post(`${inst.server.origin}/e/${source.id}`, { i }));
    }
    const answers = await Promise.all(sends);
    expect(answers.map((r) => r.status)).toEqual(Array(24).fill(201));
    expect(answers.map((r) => (r.json as { echo: { i: number } }).echo.i)).toEqual(Array.from({ length: 24 }, (_, k) => k + 1));
    const events = await waitForEventsWhere(a.client, source.id, (e) => e.length >= 24, 20_000, "24 events");
    expect(new Set(bodiesOf(events)).size).toBe(24);
  });

  it("events appended through both instances at once are seen in one id order by streams on both", async () => {
    const source = await b.client.createSource({ component_code: recorder });
    const onA = await sse(a, source.id);
    const onB = await sse(b, source.id);
    const sends: Array<Promise<{ status: number }>> = [];
    for (let i = 1; i <= 60; i++) sends.push(post(`${(i % 2 ? a : b).server.origin}/e/${source.id}`, { i }));
    expect((await Promise.all(sends)).every((r) => r.status === 200)).toBe(true);
    const stored = await waitForEventsWhere(a.client, source.id, (e) => e.length >= 60, 30_000, "60 events");
    const storedIds = stored.map((e) => e.id);
    expect([...storedIds].sort(compareEventIds)).toEqual(storedIds);
    expect(new Set(bodiesOf(stored)).size).toBe(60);
    // Every stream: every stored event, once, in id order, whichever instance appended it.
    expect((await onA.waitFor(60, 20_000)).map((m) => m.id)).toEqual(storedIds);
    expect((await onB.waitFor(60, 20_000)).map((m) => m.id)).toEqual(storedIds);
  });

  it("a workflow subscribed through B gets, once and in order, the events ingested through both", async () => {
    const source = await a.client.createSource({ component_code: recorder });
    const wf = await b.client.createWorkflow({
      name: "collect",
      steps: [{ name: "fwd", code: "export default defineComponent({ async run({ steps, $ }) { $.send.emit(steps.trigger.event); } });" }],
    });
    await b.client.createSubscription({ emitter_id: source.id, listener_id: wf.id });
    // One request at a time (alternating instances), so the source's event order is the send order.
    for (let i = 1; i <= 20; i++) expect((await post(`${(i % 2 ? a : b).server.origin}/e/${source.id}`, { i })).status).toBe(200);
    const deadline = Date.now() + 30_000;
    let got: number[] = [];
    while (Date.now() < deadline) {
      const page = await a.client.listWorkflowEvents(wf.id, { limit: 100, expand: "event" });
      got = [...page.data].reverse().map((e) => (e.event as { raw_event: { i: number } }).raw_event.i);
      if (got.length >= 20) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const emitted = bodiesOf(await allEvents(a.client, source.id));
    expect(got).toEqual(emitted);
    expect([...got].sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, k) => k + 1));
  });

  it("quota counters stay exact while both instances run a user's invocations", async () => {
    const made = await a.client.createUser({ username: `quota_${Date.now()}`, email: "quota@example.test" });
    const user = createClient({ baseUrl: b.server.baseUrl, apiKey: made.api_key! });
    const sources = [await user.createSource({ component_code: recorder }), await user.createSource({ component_code: recorder })];
    const sends: Array<Promise<{ status: number }>> = [];
    for (let i = 1; i <= 40; i++) {
      sends.push(post(`${(i % 2 ? a : b).server.origin}/e/${sources[i % 2]!.id}`, { i }));
    }
    expect((await Promise.all(sends)).every((r) => r.status === 200)).toBe(true);
    for (const s of sources) await waitForEventsWhere(user, s.id, (e) => e.length >= 20, 30_000, "20 events");
    // Both sources' jobs ran on both instances; each run was counted once.
    expect((await user.getMe()).daily_invocations_used).toBe(40);
  });

  it("a 1-second timer fires once per tick with both running, and B keeps firing when A is killed; nothing A acknowledged is lost", { timeout: 120_000 }, async () => {
    const timer = await a.client.createSource({ component_code: ticker });
    // The window starts once the timer exists, not after the next source is made (a sandbox
    // start, a second or more on a loaded machine, while the timer already ticks).
    const t0 = Date.now();
    const slow = await a.client.createSource({
      component_code: recorder.replace("async run(event) {", "async run(event) { await new Promise((r) => setTimeout(r, 30));"),
    });

    // About six ticks with both instances polling the same timer row.
    await new Promise((r) => setTimeout(r, 6500));
    const both = await allEvents(a.client, timer.id);
    const stamps = both.map((e) => (e.event as { timestamp: number }).timestamp);
    expect(new Set(stamps).size, `double fire: ${JSON.stringify(stamps)}`).toBe(stamps.length);
    // Jitter (and a tick's run still queued on a loaded machine) may shift a tick across the
    // window's edges, never double it.
    const elapsedTicks = Math.floor((Date.now() - t0) / 1000);
    expect(stamps.length).toBeGreaterThanOrEqual(elapsedTicks - 3);
    expect(stamps.length).toBeLessThanOrEqual(elapsedTicks + 1);

    // A runs a long job (holding its target's lease), and acknowledges requests; then it dies.
    const held = await a.client.createSource({ component_code: holder });
    const holding = post(`${a.server.origin}/e/${held.id}`, { notify: starts.url }).catch(() => undefined);
    await starts.waitFor(1, 20_000);
    for (let i = 1; i <= 40; i++) {
      expect(await post(`${a.server.origin}/e/${slow.id}`, { i })).toEqual({ status: 200, json: { success: true } });
    }
    expect(await a.server.stop("SIGKILL")).toBe(null);
    const killedAt = Date.now();
    await holding;

    // B sees A's sessions gone and takes its leases over, well before they would expire (30 s):
    // the run cut by the kill starts again on B.
    await starts.waitFor(2, 20_000);

    // B takes A's jobs over (at once, or once A's lease on the target expires).
    const events = await waitForEventsWhere(b.client, slow.id, (e) => new Set(bodiesOf(e)).size >= 40, 60_000, "all 40 acknowledged events");
    const seen = bodiesOf(events);
    expect([...new Set(seen)].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, k) => k + 1));
    // At least once and in order: a run cut by the kill may repeat, nothing goes backwards.
    expect(seen).toEqual([...seen].sort((x, y) => x - y));

    // The timer keeps ticking on B alone, still once per tick.
    await waitForEventsWhere(
      b.client,
      timer.id,
      (e) => e.filter((x) => x.indexed_at_ms > killedAt).length >= 3,
      45_000,
      "three ticks after the kill",
    );
    const after = await allEvents(b.client, timer.id);
    const allStamps = after.map((e) => (e.event as { timestamp: number }).timestamp);
    expect(new Set(allStamps).size, `double fire: ${JSON.stringify(allStamps)}`).toBe(allStamps.length);
  });
});
