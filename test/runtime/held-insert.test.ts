/**
 * A request's job handed to its source's waiting runner is not stored on its own: the
 * transaction of its run's results takes its insert over, and the request is acknowledged only
 * after that commit (server/runtime/held-insert.ts). When the results cannot take it over (a run
 * slower than the hold, a failed commit), the job is inserted alone, acknowledged after that
 * insert, and runs to one stored result, as any job. On both databases.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { LocalEventBus } from "../../server/events/bus.js";
import { createEventStore } from "../../server/events/event-store.js";
import { PlatformFailure } from "../../server/runtime/platform-failure.js";
import { DurableQueue } from "../../server/runtime/queue.js";
import { openDb, type OpenedDb } from "../../server/store/db.js";
import { JobsRepo } from "../../server/store/repos/jobs.js";
import { testDatabases, type FreshDatabase } from "../support/databases.js";
import { tempDataDir } from "./helpers.js";

const until = async (cond: () => boolean | Promise<boolean>, withinMs = 15_000) => {
  const deadline = Date.now() + withinMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 1));
  }
};

describe.each(testDatabases())("held inserts of handed-over requests on $name", (database) => {
  let fresh: FreshDatabase;
  let store: OpenedDb;

  beforeAll(async () => {
    fresh = await database.create();
    store = await openDb({ databaseUrl: fresh.databaseUrl, dataDir: tempDataDir() });
  });
  afterAll(async () => {
    await store?.close();
    await fresh?.drop();
  });

  it("acknowledges a handed-over request once its results are stored, without storing the job alone; a slow run or a failed commit stores it alone, and each runs to one result", async () => {
    const events = createEventStore({ db: store.db, bus: new LocalEventBus(), retention: 100 });
    /** Which jobs were inserted on their own, by n. */
    const insertedAlone: number[] = [];
    class CountingRepo extends JobsRepo {
      override enqueue(jobs: Parameters<JobsRepo["enqueue"]>[0]): Promise<string[]> {
        for (const j of jobs) insertedAlone.push((JSON.parse(j.payload) as { event: { n: number } }).event.n);
        return super.enqueue(jobs);
      }
    }
    let releaseSlow!: () => void;
    const slowRun = new Promise<void>((r) => (releaseSlow = r));
    const ran: Array<{ n: number; attempt: number; held: boolean }> = [];
    const q = new DurableQueue(new CountingRepo(store.db), { concurrency: 2, leaseMs: 30_000, pollMs: 20, lingerMs: 10_000 });
    q.registerBatchHandler(
      "dc_",
      async (jobs) => {
        // As the invoker does (server/runtime/invoke.ts): the results' transaction takes held
        // inserts over, waits for the others' inserts, and deletes those jobs.
        for (const j of jobs) ran.push({ n: (j.event as { n: number }).n, attempt: j.attempts, held: j.hold !== undefined });
        if (jobs.some((j) => (j.event as { n: number }).n === 3)) await slowRun;
        const taken = jobs.filter((j) => j.hold?.takeOver() === true);
        const rest = jobs.filter((j) => !taken.includes(j));
        try {
          await Promise.all(rest.map((j) => j.stored));
          if (jobs.some((j) => (j.event as { n: number }).n === 4 && j.attempts === 0)) throw new Error("disk full");
          await events.commit(
            jobs.map((j) => ({ emitterId: j.targetId, ownerId: "u_1", channel: "", event: j.event })),
            { jobIds: rest.map((j) => j.id) },
          );
        } catch (err) {
          for (const j of taken) await j.hold!.failed();
          return { ran: 0, failure: new PlatformFailure(`not stored: ${(err as Error).message}`) };
        }
        for (const j of taken) j.hold!.committed();
        return { ran: jobs.length, committed: true };
      },
      100,
      { early: true },
    );
    onTestFinished(async () => {
      releaseSlow();
      await q.stop();
      await events.close();
    });
    const stored = async () =>
      (await store.db.selectFrom("events").select("event_json").where("emitter_id", "=", "dc_held").orderBy("sort_key").execute()).map(
        (r) => (JSON.parse(r.event_json) as { n: number }).n,
      );
    const jobRows = async () => (await store.db.selectFrom("jobs").select("id").where("target_id", "=", "dc_held").execute()).length;
    const lingering = () => (q as unknown as { lingering: Map<string, unknown> }).lingering.has("dc_held");
    const job = (n: number) => ({ targetId: "dc_held", ownerId: "u_1", trigger: "http" as const, event: { n } });

    await q.start();
    await q.enqueueWithIds([job(1)]);
    await until(async () => (await stored()).length === 1);

    // Handed over: acknowledged with its result already stored, and never inserted on its own.
    await until(lingering);
    await q.enqueueWithIds([job(2)]);
    expect(await stored()).toEqual([1, 2]);
    expect(insertedAlone).toEqual([1]);
    expect(await jobRows()).toBe(0);

    // A run slower than the hold: the request is acknowledged once its job is stored alone,
    // while the run goes on; its result then commits with the job's deletion.
    await until(lingering);
    await q.enqueueWithIds([job(3)]);
    expect(insertedAlone).toEqual([1, 3]);
    expect(await jobRows()).toBe(1);
    expect(await stored()).toEqual([1, 2]);
    releaseSlow();
    await until(async () => (await stored()).length === 3);

    // The results' commit fails: the job is stored alone (then acknowledged), and its retry
    // stores its one result.
    await until(lingering);
    await q.enqueueWithIds([job(4)]);
    expect(insertedAlone).toEqual([1, 3, 4]);
    await until(async () => (await stored()).length === 4);
    await q.stop();

    expect(await stored()).toEqual([1, 2, 3, 4]);
    expect(await jobRows()).toBe(0);
    expect(ran.map((r) => [r.n, r.attempt, r.held])).toEqual([
      [1, 0, false],
      [2, 0, true],
      [3, 0, true],
      [4, 0, true],
      [4, 1, false],
    ]);
  });
});
