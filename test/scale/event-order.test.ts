/**
 * Two "instances" in one process (two pools, two event stores, two PostgreSQL buses on one
 * database) append to the same emitter at the same time. Ids must be strictly increasing in
 * commit order, and every listener on either bus must see every event once, in id order; that
 * is what SSE streams and their Last-Event-ID resume rely on.
 */
import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { BusEvent } from "../../server/events/bus.js";
import { createEventStore, type ManagedEventStore } from "../../server/events/event-store.js";
import { PgEventBus } from "../../server/events/pg-bus.js";
import { openDb, type OpenedDb } from "../../server/store/db.js";
import type { PgSession } from "../../server/store/pg-session.js";
import type { FreshDatabase } from "../support/databases.js";
import { tempDataDir } from "../support/server.js";
import { postgresForScale } from "./cluster.js";

const pgDb = postgresForScale();

interface Node {
  opened: OpenedDb;
  bus: PgEventBus;
  store: ManagedEventStore;
  seen: BusEvent[];
}

// Skipped (with the notice printed by postgresForScale) when HEADWATER_TEST_DATABASE_URL is unset.
describe.skipIf(!pgDb)("event ids and bus order with two instances on one PostgreSQL database", () => {
  let fresh: FreshDatabase;
  const nodes: Node[] = [];
  const emitter = "dc_orderTest";
  const log = { warn: () => undefined };

  beforeAll(async () => {
    fresh = await pgDb!.create();
    for (let i = 0; i < 2; i++) {
      const opened = await openDb({ databaseUrl: fresh.databaseUrl, dataDir: tempDataDir() });
      const bus = await PgEventBus.start({ pool: opened.pgPool!, db: opened.db, log });
      const store = createEventStore({ db: opened.db, bus, retention: 10_000 });
      const node: Node = { opened, bus, store, seen: [] };
      bus.subscribe(emitter, (events) => node.seen.push(...events));
      nodes.push(node);
    }
  });
  afterAll(async () => {
    for (const n of nodes) {
      await n.store.close();
      await n.bus.close();
      await n.opened.close();
    }
    await fresh?.drop();
  });

  it("concurrent appends for one emitter: increasing ids, and each bus delivers all of them in id order", async () => {
    const perNode = 150;
    const appends: Array<Promise<unknown>> = [];
    for (let i = 0; i < perNode; i++) {
      for (const [n, node] of nodes.entries()) {
        appends.push(node.store.append([{ emitterId: emitter, ownerId: "u_order", channel: "", event: { n, i } }]));
      }
    }
    await Promise.all(appends);

    const stored = await nodes[0]!.opened.db
      .selectFrom("events")
      .select(["id", "sort_key"])
      .where("emitter_id", "=", emitter)
      .orderBy("sort_key")
      .execute();
    expect(stored).toHaveLength(perNode * nodes.length);
    expect(new Set(stored.map((r) => r.id)).size).toBe(stored.length);

    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && nodes.some((n) => n.seen.length < stored.length)) await new Promise((r) => setTimeout(r, 50));
    for (const node of nodes) {
      expect(node.seen.map((e) => e.sort_key)).toEqual(stored.map((r) => r.sort_key));
    }
  });

  it("a bus whose LISTEN connection was cut catches up on what it missed once it reconnects", async () => {
    const emitter = "dc_gapTest";
    const seen: BusEvent[] = [];
    const unsubscribe = nodes[0]!.bus.subscribe(emitter, (events) => seen.push(...events));
    const append = (node: Node, i: number) => node.store.append([{ emitterId: emitter, ownerId: "u_order", channel: "", event: { i } }]);
    await append(nodes[1]!, 0);
    while (seen.length < 1) await new Promise((r) => setTimeout(r, 20));

    // Cut node 0's LISTEN session from the server side (as a database restart or a proxy would).
    const pid = (nodes[0]!.bus as unknown as { session: PgSession }).session.backendPid;
    await sql`select pg_terminate_backend(${pid})`.execute(nodes[1]!.opened.db);
    for (let i = 1; i <= 5; i++) await append(nodes[1]!, i);
    await append(nodes[0]!, 6);

    const deadline = Date.now() + 15_000;
    while (seen.length < 7 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    unsubscribe();
    expect(seen.map((e) => (JSON.parse(e.event_json) as { i: number }).i)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("batches naming the same emitters in opposite orders on two instances all commit (no deadlock)", async () => {
    const [x, y] = ["dc_lockOrderX", "dc_lockOrderY"];
    const appends: Array<Promise<unknown>> = [];
    for (let i = 0; i < 100; i++) {
      for (const [n, node] of nodes.entries()) {
        const order = n === 0 ? [x, y] : [y, x];
        appends.push(node.store.append(order.map((emitterId) => ({ emitterId, ownerId: "u_order", channel: "", event: { n, i } }))));
      }
    }
    const results = await Promise.allSettled(appends);
    expect(results.filter((r) => r.status === "rejected").map((r) => String((r as PromiseRejectedResult).reason))).toEqual([]);
    const count = await nodes[0]!.opened.db
      .selectFrom("events")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("emitter_id", "in", [x, y])
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(400);
  });
});
