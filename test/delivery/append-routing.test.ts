/**
 * Routing in the append transaction, on SQLite and PostgreSQL with the real job table: one job
 * per matching listener, in event order, with the hop count; events and their jobs commit
 * together or not at all; a job's completion commits with its results, once; an earlier
 * version's outbox rows are delivered once; a ninth hop becomes a cycle error.
 */
import fs from "node:fs";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { drainLegacyOutbox } from "../../server/delivery/legacy-outbox.js";
import { LocalEventBus } from "../../server/events/bus.js";
import { createEventStore, type ManagedEventStore } from "../../server/events/event-store.js";
import { DurableQueue } from "../../server/runtime/queue.js";
import type { InvocationJob } from "../../server/services.js";
import type { Db } from "../../server/store/db.js";
import { JobAlreadyCompletedError } from "../../server/store/repos/completions.js";
import { JobsRepo } from "../../server/store/repos/jobs.js";
import { upsertSubscription } from "../../server/store/repos/subscriptions.js";
import { openDb, type OpenedDb } from "../../server/store/db.js";
import { testDatabases, type FreshDatabase } from "../support/databases.js";
import { tempDataDir } from "../support/server.js";

/** The real queue's inserts, with a switch that makes the next one fail (a platform failure). */
class TableQueue extends DurableQueue {
  failNext = false;
  woken: string[] = [];
  override async enqueueIn(trx: Db, jobs: InvocationJob[]): Promise<void> {
    if (this.failNext) {
      this.failNext = false;
      throw new Error("database is locked (simulated)");
    }
    return super.enqueueIn(trx, jobs);
  }
  override wake(targets: Iterable<string>): void {
    this.woken.push(...targets);
  }
}

const quiet = { error: () => undefined };

describe.each(testDatabases())("routing in the append transaction on $name", (database) => {
  let fresh: FreshDatabase;
  let dataDir: string;
  let db: OpenedDb;
  let store: ManagedEventStore;
  let queue: TableQueue;

  const subscribe = (emitter: string, listener: string, channel = "", owner = "u_1") =>
    upsertSubscription(db.db, { id: `sub_${emitter}${listener}${channel}`.replace(/[^A-Za-z0-9_]/g, ""), owner_id: owner, emitter_id: emitter, listener_id: listener, channel, created_at: 0 });
  /** Every queued job, oldest first, as the runner would read it. */
  const jobs = async () =>
    (await db.db.selectFrom("jobs").selectAll().orderBy("id").execute()).map((r) => ({
      id: r.id,
      targetId: r.target_id,
      ...(JSON.parse(r.payload) as { event: unknown; origin: NonNullable<InvocationJob["origin"]> }),
    }));
  const events = async (channel = "") =>
    (await db.db.selectFrom("events").selectAll().where("channel", "=", channel).orderBy("sort_key").execute()).map((r) => JSON.parse(r.event_json) as unknown);

  beforeEach(async () => {
    fresh = await database.create();
    dataDir = tempDataDir();
    db = await openDb({ databaseUrl: fresh.databaseUrl, dataDir });
    queue = new TableQueue(new JobsRepo(db.db), { concurrency: 1, leaseMs: 30_000 });
    store = createEventStore({ db: db.db, bus: new LocalEventBus(), retention: 100 });
    store.routeTo(queue);
  });
  afterEach(async () => {
    await store.close();
    await db.close();
    await fresh.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("queues one job per matching listener, in event order per emitter, with the hop count, as the append commits", async () => {
    await subscribe("dc_a", "p_one");
    await subscribe("dc_*", "p_two");
    await subscribe("dc_a", "p_logs", "$logs");
    for (let i = 0; i < 30; i++) {
      await store.append([
        { emitterId: "dc_a", ownerId: "u_1", channel: "", event: { i } },
        { emitterId: "dc_b", ownerId: "u_1", channel: "", event: { b: i }, hops: 2 },
      ]);
    }
    await store.append([{ emitterId: "dc_a", ownerId: "u_1", channel: "$logs", event: "log" }]);
    await store.append([{ emitterId: "dc_a", ownerId: "u_other", channel: "", event: "someone else's" }]);
    // No wait: the jobs are durable when append resolves.
    const all = await jobs();
    const to = (id: string) => all.filter((j) => j.targetId === id);
    expect(to("p_one").map((j) => j.event)).toEqual(Array.from({ length: 30 }, (_, i) => ({ i })));
    expect(to("p_two").filter((j) => j.origin.emitterId === "dc_a").map((j) => (j.event as { i: number }).i)).toEqual([...Array(30).keys()]);
    expect(to("p_two").filter((j) => j.origin.emitterId === "dc_b").map((j) => (j.event as { b: number }).b)).toEqual([...Array(30).keys()]);
    expect(to("p_two").find((j) => j.origin.emitterId === "dc_b")!.origin.hops).toBe(3);
    expect(to("p_logs").map((j) => j.event)).toEqual(["log"]);
    expect(all).toHaveLength(91);
    expect(new Set(queue.woken)).toEqual(new Set(["p_one", "p_two", "p_logs"]));
  });

  it("stores neither the events nor their jobs when queueing fails, and refuses the append", async () => {
    await subscribe("dc_a", "p_one");
    queue.failNext = true;
    await expect(store.append([1, 2].map((i) => ({ emitterId: "dc_a", ownerId: "u_1", channel: "", event: i })))).rejects.toThrow(/locked/);
    expect(await events()).toEqual([]);
    expect(await jobs()).toEqual([]);
    await store.append([3].map((i) => ({ emitterId: "dc_a", ownerId: "u_1", channel: "", event: i })));
    expect(await events()).toEqual([3]);
    expect((await jobs()).map((j) => j.event)).toEqual([3]);
  });

  it("commits a job's results with its deletion, once: a second commit of the same job stores nothing", async () => {
    const [jobId] = await new JobsRepo(db.db).enqueue([{ targetId: "dc_a", ownerId: "u_1", trigger: "http", payload: "{}" }]);
    const completion = { jobIds: [jobId!], state: { sourceId: "dc_a", changes: { k: '"v"' } }, usage: { userId: "u_1", day: "2026-01-01", invocations: 1, computeMs: 5 } };
    await store.commit([{ emitterId: "dc_a", ownerId: "u_1", channel: "", event: "first" }], completion);
    expect(await db.db.selectFrom("jobs").select("id").execute()).toEqual([]);
    // A second run of that job (its lease ran out elsewhere) must not store a second copy.
    const again = store.commit([{ emitterId: "dc_a", ownerId: "u_1", channel: "", event: "second" }], completion);
    // Another caller in the same group commits regardless of that refusal.
    const other = store.append([{ emitterId: "dc_b", ownerId: "u_1", channel: "", event: "other" }]);
    await expect(again).rejects.toBeInstanceOf(JobAlreadyCompletedError);
    await other;
    expect(await events()).toEqual(["first", "other"]);
    expect(await db.db.selectFrom("source_state").select(["key", "value"]).execute()).toEqual([{ key: "k", value: '"v"' }]);
    expect(await db.db.selectFrom("quota_usage").select(["invocations", "compute_ms"]).execute()).toEqual([{ invocations: 1, compute_ms: 5 }]);
  });

  it("delivers an earlier version's outbox rows once, and removes them with their jobs", async () => {
    await subscribe("dc_a", "p_one");
    // What a version before routing in the append transaction left behind.
    await db.db
      .insertInto("delivery_outbox")
      .values([1, 2].map((i) => ({ emitter_id: "dc_a", sort_key: `k${i}`, event_id: `${i}-0`, channel: "", owner_id: "u_1", hops: 0, event_json: String(i), created_at_ms: 0 })))
      .execute();
    const opts = { db: db.db, dialect: db.dialect, queue, events: store, log: quiet };
    await drainLegacyOutbox(opts);
    await drainLegacyOutbox(opts);
    expect((await jobs()).map((j) => [j.targetId, j.event, j.origin.eventId])).toEqual([
      ["p_one", 1, "1-0"],
      ["p_one", 2, "2-0"],
    ]);
    expect(await db.db.selectFrom("delivery_outbox").selectAll().execute()).toEqual([]);
  });

  it("records a cycle error instead of a ninth hop, in the same commit, and never routes that error", async () => {
    await subscribe("dc_a", "dc_a");
    await subscribe("dc_a", "p_watch", "$errors");
    await store.append([{ emitterId: "dc_a", ownerId: "u_1", channel: "", event: "deep", hops: 8 }]);
    const errors = await events("$errors");
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ error: { code: "SUBSCRIPTION_CYCLE" }, original_event: "deep" });
    expect(await jobs()).toEqual([]);
  });
});
