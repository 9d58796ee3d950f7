/**
 * The dispatcher over a real SQLite database with a recording queue: order per emitter, one job
 * per listener, retry when queueing fails (a platform failure), and outbox rows left by a
 * "crash" delivered by the next dispatcher.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalEventBus } from "../../server/events/bus.js";
import { createEventStore, type ManagedEventStore } from "../../server/events/event-store.js";
import { DeliveryDispatcher } from "../../server/delivery/dispatcher.js";
import type { InvocationJob, InvocationQueue } from "../../server/services.js";
import { countOutbox } from "../../server/store/repos/deliveries.js";
import { upsertSubscription } from "../../server/store/repos/subscriptions.js";
import { tempDb } from "../events/helpers.js";

class RecordingQueue implements InvocationQueue {
  jobs: InvocationJob[] = [];
  failuresLeft = 0;
  async enqueue(jobs: InvocationJob[]): Promise<void> {
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error("database is locked (simulated)");
    }
    this.jobs.push(...jobs);
  }
}

const quiet = { error: () => undefined };

describe("delivery dispatcher", () => {
  let db: Awaited<ReturnType<typeof tempDb>>;
  let store: ManagedEventStore;
  let queue: RecordingQueue;
  let dispatcher: DeliveryDispatcher | undefined;

  const subscribe = (emitter: string, listener: string, channel = "", owner = "u_1") =>
    upsertSubscription(db.db, { id: `sub_${emitter}${listener}${channel}`.replace(/[^A-Za-z0-9_]/g, ""), owner_id: owner, emitter_id: emitter, listener_id: listener, channel, created_at: 0 });
  const start = () => {
    dispatcher = new DeliveryDispatcher({ db: db.db, dialect: "sqlite", queue, events: store, log: quiet, pollMs: 50 });
    dispatcher.start();
    return dispatcher;
  };
  const until = async (cond: () => boolean | Promise<boolean>) => {
    for (let i = 0; i < 200 && !(await cond()); i++) await new Promise((r) => setTimeout(r, 25));
  };

  beforeEach(async () => {
    db = await tempDb();
    queue = new RecordingQueue();
    store = createEventStore({ db: db.db, bus: new LocalEventBus(), retention: 100, onOutbox: () => dispatcher?.wake() });
  });
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
    await store.close();
    await db.close();
  });

  it("queues one job per matching listener, in event order per emitter, with the hop count", async () => {
    await subscribe("dc_a", "p_one");
    await subscribe("dc_*", "p_two");
    await subscribe("dc_a", "p_logs", "$logs");
    start();
    for (let i = 0; i < 30; i++) {
      await store.append([
        { emitterId: "dc_a", ownerId: "u_1", channel: "", event: { i } },
        { emitterId: "dc_b", ownerId: "u_1", channel: "", event: { b: i }, hops: 2 },
      ]);
    }
    await store.append([{ emitterId: "dc_a", ownerId: "u_1", channel: "$logs", event: "log" }]);
    await store.append([{ emitterId: "dc_a", ownerId: "u_other", channel: "", event: "someone else's" }]);
    await until(() => queue.jobs.length >= 91);
    await dispatcher!.idle();
    const to = (id: string) => queue.jobs.filter((j) => j.targetId === id);
    expect(to("p_one").map((j) => j.event)).toEqual(Array.from({ length: 30 }, (_, i) => ({ i })));
    expect(to("p_two").filter((j) => j.origin!.emitterId === "dc_a").map((j) => (j.event as { i: number }).i)).toEqual([...Array(30).keys()]);
    expect(to("p_two").filter((j) => j.origin!.emitterId === "dc_b").map((j) => (j.event as { b: number }).b)).toEqual([...Array(30).keys()]);
    expect(to("p_two").find((j) => j.origin!.emitterId === "dc_b")!.origin!.hops).toBe(3);
    expect(to("p_logs").map((j) => j.event)).toEqual(["log"]);
    expect(queue.jobs).toHaveLength(91);
    expect(await countOutbox(db.db)).toBe(0);
  });

  it("retries when queueing fails, without losing or repeating a delivery", async () => {
    await subscribe("dc_a", "p_one");
    queue.failuresLeft = 2;
    start();
    await store.append([1, 2, 3].map((i) => ({ emitterId: "dc_a", ownerId: "u_1", channel: "", event: i })));
    await until(() => queue.jobs.length >= 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(queue.jobs.map((j) => j.event)).toEqual([1, 2, 3]);
  });

  it("delivers outbox rows left behind by a stopped dispatcher when the next one starts", async () => {
    await subscribe("dc_a", "p_one");
    // No dispatcher running: the rows wait in the outbox (as after a crash).
    await store.append([1, 2].map((i) => ({ emitterId: "dc_a", ownerId: "u_1", channel: "", event: i })));
    expect(await countOutbox(db.db)).toBe(2);
    start();
    await until(() => queue.jobs.length >= 2);
    expect(queue.jobs.map((j) => j.event)).toEqual([1, 2]);
  });

  it("records a cycle error instead of a ninth hop, and never routes that error", async () => {
    await subscribe("dc_a", "dc_a");
    await subscribe("dc_a", "p_watch", "$errors");
    start();
    await store.append([{ emitterId: "dc_a", ownerId: "u_1", channel: "", event: "deep", hops: 8 }]);
    await until(async () => (await db.db.selectFrom("events").select("id").where("channel", "=", "$errors").execute()).length > 0);
    await dispatcher!.idle();
    await new Promise((r) => setTimeout(r, 200));
    const errors = await db.db.selectFrom("events").selectAll().where("channel", "=", "$errors").execute();
    expect(errors).toHaveLength(1);
    expect(JSON.parse(errors[0]!.event_json)).toMatchObject({ error: { code: "SUBSCRIPTION_CYCLE" }, original_event: "deep" });
    expect(queue.jobs).toEqual([]);
  });
});
