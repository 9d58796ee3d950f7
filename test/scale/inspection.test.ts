/**
 * Event inspection with two server processes on one PostgreSQL database: search, stats and
 * replay answer the same whichever instance is asked, and count what both instances did.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StatsPoint } from "../../shared/resources/index.js";
import { relaySource } from "../delivery/helpers.js";
import { uniqueKey } from "../support/fixtures.js";
import { allEvents, postgresForScale, startCluster, waitForEventsWhere, type Cluster } from "./cluster.js";

const post = async (url: string, body: unknown) => {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  await res.text();
  return res.status;
};

describe.skipIf(!postgresForScale())("event inspection across instances", () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster(["a", "b"], { HEADWATER_EVENT_RETENTION: "1000" });
  }, 180_000);
  afterAll(() => cluster?.stop());

  it("searches, counts and replays what both instances took in", async () => {
    const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
    const source = (await a.client.createSource({ component_code: relaySource(uniqueKey("insp")), name: "insp" })).id;
    const listener = (await a.client.createSource({ component_code: relaySource(uniqueKey("lst")), name: "lst" })).id;
    await b.client.createSubscription({ emitter_id: source, listener_id: listener });

    // 20 requests, alternately to each instance's endpoint.
    for (let i = 0; i < 20; i++) {
      const via = i % 2 === 0 ? a : b;
      expect(await post(`${via.server.origin}/e/${source}`, { i, parity: i % 2 === 0 ? "even-number" : "odd-number" })).toBeLessThan(300);
    }
    await waitForEventsWhere(b.client, source, (es) => es.length === 20, 60_000, "20 events of the source");
    await waitForEventsWhere(a.client, listener, (es) => es.length === 20, 60_000, "20 deliveries to the listener");

    // Search through either instance finds the events both appended.
    const odd = await b.client.listSourceEvents(source, { q: "ODD-NUMBER", limit: 100 });
    expect(odd.page_info.total_count).toBe(10);
    expect(odd.data.map((e) => (e.event as { i: number }).i)).toEqual([19, 17, 15, 13, 11, 9, 7, 5, 3, 1]);

    // Stats count every event and run, whichever instance stored or ran it.
    const sum = (s: { series: StatsPoint[] }, k: keyof Omit<StatsPoint, "t">) => s.series.reduce((n, p) => n + p[k], 0);
    const deadline = Date.now() + 30_000;
    let stats = await a.client.getSourceStats(source);
    while (sum(stats, "invocations") < 20 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      stats = await a.client.getSourceStats(source);
    }
    expect(sum(stats, "events")).toBe(20);
    expect(sum(stats, "invocations")).toBe(20);
    expect(sum(await b.client.getSourceStats(listener), "invocations")).toBe(20);

    // Replay through b: each event once more, in order, with both instances running the queue.
    expect(await b.client.replaySourceEvents(source)).toEqual({ events: 20, deliveries: 20 });
    const got = await waitForEventsWhere(a.client, listener, (es) => es.length >= 40, 60_000, "40 deliveries to the listener");
    await new Promise((r) => setTimeout(r, 1000));
    const final = await allEvents(a.client, listener);
    expect(final).toHaveLength(40);
    const is = final.map((e) => (e.event as { relayed: { i: number } }).relayed.i);
    expect(is.slice(20)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(got.length).toBe(40);
  }, 180_000);
});
