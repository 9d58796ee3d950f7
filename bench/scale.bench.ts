/**
 * Scale-out: HTTP ingest through one instance vs spread over two instances on one PostgreSQL
 * database (separate processes, as behind a load balancer). Each operation sends a batch of
 * requests to 8 HTTP sources, 32 in flight at a time:
 * - "ack": until every request is acknowledged (200, the job is durably queued);
 * - "to events": until every request has run and its event is stored (what a listener sees).
 * The ratios (1 instance / 2 instances) above 1 mean two instances ingest faster.
 * Needs HEADWATER_TEST_DATABASE_URL (a PostgreSQL the bench may create databases on).
 */
import type { Client } from "../shared/client/index.js";
import { startCluster, type Cluster } from "../test/scale/cluster.js";
import { defineBench } from "./harness.js";

const SOURCES = 8;
const BATCH = 200;
const IN_FLIGHT = 32;

const recorder = `
export default {
  name: "Recorder",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body); },
};`;

async function sendAll(urls: string[], count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await fetch(urls[i % urls.length]!, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ i }),
      });
      await res.text();
      if (res.status !== 200) throw new Error(`ingest answered ${res.status}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

async function storedCount(client: Client, ids: string[]): Promise<number> {
  const pages = await Promise.all(ids.map((id) => client.listSourceEvents(id, { limit: 1 })));
  return pages.reduce((n, p) => n + (p.page_info.total_count ?? 0), 0);
}

export default defineBench("scale-out on PostgreSQL", async () => {
  if (!process.env.HEADWATER_TEST_DATABASE_URL) {
    console.log("HEADWATER_TEST_DATABASE_URL is not set: the scale-out bench is skipped.");
    return { cases: [] };
  }
  const cluster: Cluster = await startCluster(["A", "B"], { HEADWATER_EVENT_RETENTION: "1000000", HEADWATER_LOG_LEVEL: "error" });
  const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
  const ids: string[] = [];
  for (let i = 0; i < SOURCES; i++) ids.push((await a.client.createSource({ component_code: recorder })).id);
  const endpoints = (origins: string[]) => ids.flatMap((id) => origins.map((o) => `${o}/e/${id}`));
  const oneInstance = endpoints([a.server.origin]);
  const twoInstances = endpoints([a.server.origin, b.server.origin]);
  let expected = 0;

  const toEvents = async (urls: string[]) => {
    expected += BATCH;
    await sendAll(urls, BATCH);
    while ((await storedCount(a.client, ids)) < expected) await new Promise((r) => setTimeout(r, 20));
  };
  const ack = async (urls: string[]) => {
    expected += BATCH;
    await sendAll(urls, BATCH);
  };
  // Acknowledged jobs still run after an "ack" operation. The first (untimed, warm-up) call of
  // an "ack" case first waits for the previous case's backlog, so cases do not share one.
  const settle = async () => {
    while ((await storedCount(a.client, ids)) < expected) await new Promise((r) => setTimeout(r, 50));
  };
  const settledFirst = (fn: () => Promise<void>) => {
    let first = true;
    return async () => {
      if (first) await settle();
      first = false;
      await fn();
    };
  };

  const ACK1 = `ack ${BATCH} requests, 1 instance`;
  const ACK2 = `ack ${BATCH} requests, 2 instances`;
  const EV1 = `${BATCH} requests to events, 1 instance`;
  const EV2 = `${BATCH} requests to events, 2 instances`;
  return {
    cases: [
      { name: EV1, run: () => toEvents(oneInstance), iterations: 8, warmup: 2 },
      { name: EV2, run: () => toEvents(twoInstances), iterations: 8, warmup: 2 },
      { name: ACK1, run: settledFirst(() => ack(oneInstance)), iterations: 8, warmup: 1 },
      { name: ACK2, run: settledFirst(() => ack(twoInstances)), iterations: 8, warmup: 1 },
    ],
    ratios: [
      [EV1, EV2],
      [ACK1, ACK2],
    ],
    teardown: async () => {
      await settle();
      await cluster.stop();
    },
  };
});
