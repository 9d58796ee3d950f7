/**
 * Event inspection (issue 18), run by `npm run bench events` (the file name matches):
 * - search: the first page of `q` on a source with 100,000 retained events, on SQLite and on
 *   PostgreSQL (when HEADWATER_TEST_DATABASE_URL is set): a selective text (100 matches), a broad
 *   one (every event), one that matches nothing, and a two-character one (no trigram: a scan);
 * - the cost of stats counting on the ingest path: the event store's commit of one source run
 *   (one event and its invocation count, as a run of an endpoint commits), 32 in flight, with
 *   counting on and off, interleaved in one run on two fresh SQLite databases; the ratio is
 *   printed (before = off, after = on).
 * PostgreSQL's statistics are gathered (ANALYZE, as autovacuum does after a bulk load) before
 * the searches.
 */
import fs from "node:fs";
import pg from "pg";
import { relaySource } from "../test/delivery/helpers.js";
import { testDatabases } from "../test/support/databases.js";
import { uniqueKey } from "../test/support/fixtures.js";
import { startServer, tempDataDir, type TestServer, type TestUser } from "../test/support/server.js";
import { defineBench, type BenchCase } from "./harness.js";
import { openDb, type OpenedDb } from "../server/store/db.js";
import { LocalEventBus } from "../server/events/bus.js";
import { createEventStore, type ManagedEventStore } from "../server/events/event-store.js";
import { utcDay } from "../server/quotas/quotas.js";

const RETAINED = 100_000;

interface Searchable {
  name: string;
  srv: TestServer;
  u: TestUser;
  source: string;
}

async function fill(name: string, db: ReturnType<typeof testDatabases>[number]): Promise<Searchable> {
  const srv = await startServer({ db, env: { HEADWATER_EVENT_RETENTION: String(RETAINED) } });
  const u = await srv.newUser("bench");
  const source = (await u.client.createSource({ component_code: relaySource(uniqueKey("search")), name: "search" })).id;
  const store = srv.server.services.events.store;
  for (let b = 0; b < RETAINED / 1000; b++) {
    await store.append(
      Array.from({ length: 1000 }, (_, k) => {
        const i = b * 1000 + k;
        // customer-0000 .. customer-0999: each name on 100 events, spread over the whole range.
        return {
          emitterId: source,
          ownerId: u.user.id,
          channel: "",
          event: { i, customer: `customer-${String(i % 1000).padStart(4, "0")}`, status: i % 7 === 0 ? "refunded" : "paid", text: "retained event" },
          meta: { summary: `order ${i}` },
        };
      }),
    );
  }
  // What autovacuum does after such a load, before the searches a user would make.
  if (srv.databaseUrl) {
    const c = new pg.Client({ connectionString: srv.databaseUrl });
    await c.connect();
    await c.query("ANALYZE events");
    await c.end();
  }
  return { name, srv, u, source };
}

/** One commit of a source's run: its event and its invocation count, as the runtime commits it. */
function runCommit(store: ManagedEventStore, i: number) {
  return store.commit([{ emitterId: "dc_bench", ownerId: "u_bench", channel: "", event: { i, pad: "x".repeat(64) } }], {
    jobIds: [],
    usage: { userId: "u_bench", day: utcDay(), invocations: 1, computeMs: 2, targetId: "dc_bench" },
  });
}

/** `total` commits with 32 in flight; resolves with the elapsed ms. */
async function ingest(store: ManagedEventStore, total: number): Promise<number> {
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < total) await runCommit(store, next++);
  };
  await Promise.all(Array.from({ length: 32 }, worker));
  return performance.now() - t0;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export default defineBench("events-inspection", async () => {
  const dbs = testDatabases();
  const searchables: Searchable[] = [];
  for (const db of dbs) searchables.push(await fill(db.name, db));
  if (dbs.length === 1) console.log("  · HEADWATER_TEST_DATABASE_URL is not set: search is measured on SQLite only");

  const dirs = [tempDataDir(), tempDataDir()];
  const opened: OpenedDb[] = [];
  for (const dir of dirs) opened.push(await openDb({ dataDir: dir }));
  const stores = opened.map((o, k) =>
    createEventStore({ db: o.db, writes: o.writes, bus: new LocalEventBus(), retention: 1000, countStats: k === 1 }),
  );

  const cases: BenchCase[] = [];
  for (const s of searchables) {
    const search = (q: string) => () => s.u.client.listSourceEvents(s.source, { q });
    cases.push(
      { name: `${s.name}: search 100k retained, first page, 100 matches ("customer-0042")`, run: search("customer-0042"), iterations: 100, warmup: 5 },
      { name: `${s.name}: search 100k retained, first page, every event matches ("retained")`, run: search("retained"), iterations: 30, warmup: 3 },
      { name: `${s.name}: search 100k retained, first page, no match ("zzz-none")`, run: search("zzz-none"), iterations: 100, warmup: 5 },
      { name: `${s.name}: search 100k retained, first page, 2 characters ("Zq")`, run: search("Zq"), iterations: 10, warmup: 1 },
      { name: `${s.name}: event_summaries 100k retained, first page, no q`, run: () => s.u.client.listSourceEvents(s.source), iterations: 100, warmup: 5 },
    );
  }
  cases.push({
    name: "ingest: 2000 run commits (32 in flight), stats counting off vs on, 10 rounds interleaved",
    iterations: 1,
    warmup: 0,
    run: async () => {
      await ingest(stores[0]!, 2000);
      await ingest(stores[1]!, 2000);
      const off: number[] = [];
      const on: number[] = [];
      for (let r = 0; r < 10; r++) {
        // Alternating which goes first, so a drift of the machine weighs on both.
        if (r % 2 === 0) {
          off.push(await ingest(stores[0]!, 2000));
          on.push(await ingest(stores[1]!, 2000));
        } else {
          on.push(await ingest(stores[1]!, 2000));
          off.push(await ingest(stores[0]!, 2000));
        }
      }
      const perSec = (ms: number) => Math.round((2000 * 1000) / ms);
      console.log(`  · before (counting off): median ${perSec(median(off))} commits/s; rounds ${off.map(perSec).join(", ")}`);
      console.log(`  · after (counting on):   median ${perSec(median(on))} commits/s; rounds ${on.map(perSec).join(", ")}`);
      console.log(`  · ingest ratio after/before: ${(median(off) / median(on)).toFixed(3)} (1.000 = no cost; the issue asks for > 0.95)`);
    },
  });

  return {
    cases,
    ratios: searchables.map((s) => [
      `${s.name}: search 100k retained, first page, 100 matches ("customer-0042")`,
      `${s.name}: event_summaries 100k retained, first page, no q`,
    ]),
    teardown: async () => {
      for (const st of stores) await st.close();
      for (const o of opened) await o.close();
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
      for (const s of searchables) await s.srv.stop();
    },
  };
});
