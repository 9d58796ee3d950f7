/**
 * Exactly once across crashes. A server ingests HTTP requests from 16 concurrent senders into a
 * source that emits each request's body; a listener source and a workflow are subscribed to it.
 * The whole process group (server and sandbox workers) is killed with SIGKILL several times
 * mid-stream, mid-delivery, and restarted on the same data. Afterwards:
 * - every acknowledged request is exactly one event of the source (nothing lost, nothing twice),
 *   and no request is stored twice, acknowledged or not;
 * - every event of the source reaches the listener source and the workflow exactly once.
 */
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, type Client } from "../../shared/client/index.js";
import { testDatabases, type FreshDatabase } from "../support/databases.js";
import { uniqueKey } from "../support/fixtures.js";
import { randomKey, spawnServer, tempDataDir, type SpawnedServer } from "../support/server.js";
import { relaySource, sleep, step } from "./helpers.js";

const ROUNDS = 5;
const SENDERS = 16;
/** Acknowledged requests per round before the kill (plus a random share of a round's stream). */
const ACKS_PER_ROUND = 150;
/**
 * Time budgets (a run normally takes ~20 s per database). Each wait fails with its own message
 * when its budget runs out, and the test's timeout is their sum plus room for the rest (setup,
 * the kills, the final listings, the stop), so a slow machine gets a clear failure, not a timeout.
 */
const START_MS = 30_000;
const ACKS_MS = 30_000;
const CATCH_UP_MS = 90_000;
const REST_MS = 90_000;
const TEST_TIMEOUT_MS = (ROUNDS + 1) * START_MS + ROUNDS * ACKS_MS + CATCH_UP_MS + REST_MS;

type Page = { data: Array<{ id: string; event: unknown }>; page_info: { end_cursor: string | null } };

async function allEvents(list: (after?: string) => Promise<Page>): Promise<unknown[]> {
  const out: unknown[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await list(after);
    out.push(...page.data.map((e) => e.event));
    if (page.data.length < 100 || !page.page_info.end_cursor) return out;
    after = page.page_info.end_cursor;
  }
}

/** How many times each request number occurs among the events. */
function counts(events: unknown[], pick: (e: unknown) => number | undefined): Map<number, number> {
  const seen = new Map<number, number>();
  for (const e of events) {
    const i = pick(e);
    if (i !== undefined) seen.set(i, (seen.get(i) ?? 0) + 1);
  }
  return seen;
}

const twice = (seen: Map<number, number>) => [...seen].filter(([, n]) => n > 1).map(([i, n]) => `${i}×${n}`);

describe.each(testDatabases())("kill -9 of the whole server, several times, on $name", (db) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it("stores every acknowledged request once and delivers every event once to each listener", async () => {
    const fresh: FreshDatabase = await db.create();
    cleanups.push(() => fresh.drop());
    const dataDir = tempDataDir();
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const apiKey = randomKey();
    // A generous run time limit: on a loaded machine a relay run that timed out would be an
    // `$errors` record instead of an event, which this test would read as a lost delivery.
    const env = { HEADWATER_EVENT_RETENTION: "100000", HEADWATER_INVOCATION_TIMEOUT_MS: "30000" };
    const start = () => spawnServer({ dataDir, databaseUrl: fresh.databaseUrl, apiKey, env, detached: true, timeoutMs: START_MS });
    let server: SpawnedServer = await start();
    cleanups.push(() => server.killGroup());
    let client: Client = createClient({ baseUrl: server.baseUrl, apiKey });

    const source = await client.createSource({ component_code: relaySource(uniqueKey("crash")), name: "crash" });
    const listener = await client.createSource({ component_code: relaySource(uniqueKey("listener")), name: "listener" });
    const wf = await client.createWorkflow({ name: "downstream", steps: [{ code: step("$.send.emit(steps.trigger.event);") }] });
    await client.createSubscription({ emitter_id: source.id, listener_id: listener.id });
    await client.createSubscription({ emitter_id: source.id, listener_id: wf.id });

    const acked = new Set<number>();
    let n = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      // 16 senders, each request numbered; a 200 is an acknowledgement.
      let stop = false;
      const endpoint = `${server.origin}/e/${source.id}`;
      const sender = async () => {
        while (!stop) {
          const i = n++;
          try {
            const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ i }) });
            await res.text();
            if (res.status === 200) acked.add(i);
          } catch {
            return; // the server is gone
          }
        }
      };
      const senders = Array.from({ length: SENDERS }, sender);
      const target = acked.size + ACKS_PER_ROUND + Math.floor(Math.random() * ACKS_PER_ROUND);
      const deadline = Date.now() + ACKS_MS;
      while (acked.size < target && Date.now() < deadline) await sleep(5);
      expect(acked.size, `round ${round}: acknowledgements before the kill`).toBeGreaterThanOrEqual(target);
      await server.killGroup();
      stop = true;
      await Promise.all(senders);
      server = await start();
      client = createClient({ baseUrl: server.baseUrl, apiKey });
    }

    // After the last restart: wait until the listeners have caught up with the source.
    const sourceList = (after?: string) => client.listSourceEvents(source.id, { limit: 100, after, expand: "event" });
    const listenerList = (after?: string) => client.listSourceEvents(listener.id, { limit: 100, after, expand: "event" });
    const wfList = (after?: string) => client.listWorkflowEvents(wf.id, { limit: 100, after, expand: "event" });
    const atSource = (e: unknown) => (e as { i?: number }).i;
    const atListener = (e: unknown) => (e as { relayed?: { i?: number } }).relayed?.i;
    const atWorkflow = (e: unknown) => (e as { raw_event?: { i?: number } }).raw_event?.i;
    let stored = new Map<number, number>();
    let relayed = new Map<number, number>();
    let ran = new Map<number, number>();
    const caughtUp = Date.now() + CATCH_UP_MS;
    do {
      stored = counts(await allEvents(sourceList), atSource);
      relayed = counts(await allEvents(listenerList), atListener);
      ran = counts(await allEvents(wfList), atWorkflow);
      const lost = [...acked].some((i) => !stored.has(i));
      if (!lost && relayed.size >= stored.size && ran.size >= stored.size) break;
      await sleep(500);
    } while (Date.now() < caughtUp);

    // Exactly once at the source: every acknowledged request, no request twice.
    expect([...acked].filter((i) => !stored.has(i)), "acknowledged requests lost").toEqual([]);
    expect(twice(stored), "requests stored twice").toEqual([]);
    expect([...stored.keys()].filter((i) => i >= n), "events nobody sent").toEqual([]);
    // Exactly once at each listener: each of the source's events, once.
    expect([...stored.keys()].filter((i) => !relayed.has(i)), "events the listener source missed").toEqual([]);
    expect([...stored.keys()].filter((i) => !ran.has(i)), "events the workflow missed").toEqual([]);
    expect(twice(relayed), "events the listener source got twice").toEqual([]);
    expect(twice(ran), "events the workflow got twice").toEqual([]);
    expect(relayed.size).toBe(stored.size);
    expect(ran.size).toBe(stored.size);
    console.log(
      `${db.name}: ${ROUNDS} kills, ${acked.size} acknowledged of ${n} sent, ${stored.size} stored, each delivered once to 2 listeners`,
    );
    await server.stop();
  }, TEST_TIMEOUT_MS);
});
