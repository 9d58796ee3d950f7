/**
 * Durability: a server killed with SIGKILL while it ingests HTTP requests loses none that it
 * acknowledged; after a restart each of them is an event of the source, and the deliveries to a
 * subscribed workflow that were pending at the crash happen too.
 */
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createClient, type Client } from "../../shared/client/index.js";
import { testDatabases, type FreshDatabase } from "../support/databases.js";
import { uniqueKey } from "../support/fixtures.js";
import { randomKey, spawnServer, tempDataDir, type SpawnedServer } from "../support/server.js";
import { relaySource, sleep, step } from "./helpers.js";

async function allEvents(list: (after?: string) => Promise<{ data: Array<{ id: string; event: unknown }>; page_info: { end_cursor: string | null } }>) {
  const out: unknown[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await list(after);
    out.push(...page.data.map((e) => e.event));
    if (page.data.length < 100 || !page.page_info.end_cursor) return out;
    after = page.page_info.end_cursor;
  }
}

describe.each(testDatabases())("kill -9 during ingest on $name", (db) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it("keeps every acknowledged request and delivers what was pending", async () => {
    const fresh: FreshDatabase = await db.create();
    cleanups.push(() => fresh.drop());
    const dataDir = tempDataDir();
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const apiKey = randomKey();
    // A short invocation timeout keeps the runtime's target leases short: on PostgreSQL a lease
    // held by the killed process blocks its target until it expires (timeout + 60 s,
    // runtime/queue.ts); SQLite frees them at start.
    const env = { HEADWATER_EVENT_RETENTION: "100000", HEADWATER_INVOCATION_TIMEOUT_MS: "2000" };
    let server: SpawnedServer = await spawnServer({ dataDir, databaseUrl: fresh.databaseUrl, apiKey, env });
    cleanups.push(() => server.stop("SIGKILL"));
    let client: Client = createClient({ baseUrl: server.baseUrl, apiKey });

    const source = await client.createSource({ component_code: relaySource(uniqueKey("crash")), name: "crash" });
    const wf = await client.createWorkflow({ name: "downstream", steps: [{ code: step("$.send.emit(steps.trigger.event);") }] });
    await client.createSubscription({ emitter_id: source.id, listener_id: wf.id });

    // Ingest with 8 concurrent senders; kill the server while they are going.
    const acked: number[] = [];
    let n = 0;
    let stop = false;
    const endpoint = `${server.origin}/e/${source.id}`;
    const sender = async () => {
      while (!stop) {
        const i = n++;
        try {
          const res = await fetch(endpoint, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ i }) });
          if (res.status === 200) acked.push(i);
          await res.text();
        } catch {
          return; // the server is gone
        }
      }
    };
    const senders = Array.from({ length: 8 }, sender);
    while (acked.length < 300) await sleep(20);
    await server.stop("SIGKILL");
    stop = true;
    await Promise.all(senders);
    expect(acked.length).toBeGreaterThanOrEqual(300);

    server = await spawnServer({ dataDir, databaseUrl: fresh.databaseUrl, apiKey, env });
    client = createClient({ baseUrl: server.baseUrl, apiKey });
    const want = new Set(acked);
    const missing = async (list: (after?: string) => ReturnType<Client["listSourceEvents"]>, pick: (e: unknown) => number | undefined) => {
      const got = new Set((await allEvents(list)).map(pick));
      return [...want].filter((i) => !got.has(i));
    };
    const sourceList = (after?: string) => client.listSourceEvents(source.id, { limit: 100, after, expand: "event" });
    const wfList = (after?: string) => client.listWorkflowEvents(wf.id, { limit: 100, after, expand: "event" });
    const deadline = Date.now() + 150_000;
    let lostAtSource: number[];
    let lostDownstream: number[];
    do {
      lostAtSource = await missing(sourceList, (e) => (e as { i?: number }).i);
      lostDownstream = await missing(wfList, (e) => (e as { raw_event?: { i?: number } }).raw_event?.i);
      if (lostAtSource.length === 0 && lostDownstream.length === 0) break;
      await sleep(500);
    } while (Date.now() < deadline);
    expect(lostAtSource).toEqual([]);
    expect(lostDownstream).toEqual([]);
    await server.stop();
  }, 240_000);
});
