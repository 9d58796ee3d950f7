/**
 * The durable queue and the timer claim on both databases, with two queue instances sharing
 * one database as two servers would: each job runs exactly once, a target's jobs one at a time
 * and in order, round robin between targets, platform failures retried; a job's results commit
 * with its deletion, once, even when two instances ran it; deliveries enqueued in a transaction
 * exist exactly when it commits.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { LocalEventBus } from "../../server/events/bus.js";
import { createEventStore } from "../../server/events/event-store.js";
import { delayedJob, delayedTarget, handleDelayedJobs } from "../../server/runtime/delayed-emits.js";
import { handleSourceJobs } from "../../server/runtime/source-jobs.js";
import { PlatformFailure } from "../../server/runtime/platform-failure.js";
import type { QueuedJob } from "../../server/runtime/queue-jobs.js";
import { DurableQueue } from "../../server/runtime/queue.js";
import { timerEvent } from "../../server/runtime/triggers/timer.js";
import { openDb, type OpenedDb } from "../../server/store/db.js";
import { JobAlreadyCompletedError } from "../../server/store/repos/completions.js";
import { insertJobs, jobIdAt, JobsRepo } from "../../server/store/repos/jobs.js";
import { TimersRepo } from "../../server/store/repos/timers.js";
import { testDatabases, type FreshDatabase } from "../support/databases.js";
import { tempDataDir } from "./helpers.js";

const until = async (cond: () => boolean, withinMs = 15_000) => {
  const deadline = Date.now() + withinMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe.each(testDatabases())("invocation queue on $name", (database) => {
  let fresh: FreshDatabase;
  let store: OpenedDb;
  let second: OpenedDb;

  beforeAll(async () => {
    fresh = await database.create();
    const dataDir = tempDataDir();
    store = await openDb({ databaseUrl: fresh.databaseUrl, dataDir });
    // Two servers share PostgreSQL. SQLite is one server's embedded database: a second
    // connection in the same thread would only deadlock its synchronous driver, so the two
    // "instances" share the connection there (the claims are still separate CAS updates).
    second = fresh.databaseUrl ? await openDb({ databaseUrl: fresh.databaseUrl, dataDir }) : store;
  });
  afterAll(async () => {
    if (second !== store) await second?.close();
    await store?.close();
    await fresh?.drop();
  });

  const makeQueue = (db: OpenedDb, concurrency: number) =>
    new DurableQueue(new JobsRepo(db.db), { concurrency, leaseMs: 30_000, pollMs: 20 });

  it("runs each job once, one at a time per target and in order, across two instances", async () => {
    const ran: Array<{ target: string; i: number }> = [];
    const active = new Map<string, number>();
    let overlap = false;
    const handler = async (job: QueuedJob) => {
      const n = (active.get(job.targetId) ?? 0) + 1;
      active.set(job.targetId, n);
      if (n > 1) overlap = true;
      await new Promise((r) => setTimeout(r, 2));
      ran.push({ target: job.targetId, i: (job.event as { i: number }).i });
      active.set(job.targetId, n - 1);
    };
    const a = makeQueue(store, 3);
    const b = makeQueue(second, 3);
    a.registerHandler("dc_", handler);
    b.registerHandler("dc_", handler);
    const targets = ["dc_q1", "dc_q2", "dc_q3", "dc_q4"];
    for (let i = 0; i < 10; i++) {
      await a.enqueue(targets.map((t) => ({ targetId: t, ownerId: "u_1", trigger: "event" as const, event: { i } })));
    }
    await Promise.all([a.start(), b.start()]);
    await until(() => ran.length >= 40);
    await Promise.all([a.stop(), b.stop()]);
    expect(ran).toHaveLength(40);
    expect(overlap).toBe(false);
    for (const t of targets) {
      expect(ran.filter((r) => r.target === t).map((r) => r.i)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    }
  });

  it("takes turns between targets: a backlog does not hold back another target", async () => {
    const order: string[] = [];
    const q = makeQueue(store, 1);
    q.registerHandler("dc_", async (job) => {
      order.push(job.targetId);
    });
    await q.enqueue(Array.from({ length: 6 }, () => ({ targetId: "dc_busy", ownerId: "u_1", trigger: "http" as const, event: {} })));
    await q.enqueue([{ targetId: "dc_quiet", ownerId: "u_2", trigger: "http", event: {} }]);
    await q.start();
    await until(() => order.length >= 7);
    await q.stop();
    expect(order.indexOf("dc_quiet")).toBeLessThanOrEqual(1);
  });

  it("retries a job after a platform failure, and gives other jobs of its target their turn after it", async () => {
    const seen: string[] = [];
    let failures = 0;
    const q = makeQueue(store, 2);
    q.registerHandler("dc_", async (job) => {
      const { n } = job.event as { n: string };
      if (n === "first" && failures === 0) {
        failures += 1;
        throw new PlatformFailure("worker died");
      }
      seen.push(`${n}#${job.attempts}`);
    });
    await q.enqueue([
      { targetId: "dc_retry", ownerId: "u_1", trigger: "http", event: { n: "first" } },
      { targetId: "dc_retry", ownerId: "u_1", trigger: "http", event: { n: "second" } },
    ]);
    await q.start();
    await until(() => seen.length >= 2);
    await q.stop();
    expect(seen).toEqual(["first#1", "second#0"]);
  });

  it("hands a batch handler consecutive jobs; a platform failure keeps the runs before it and retries that job", async () => {
    const batches: string[][] = [];
    let failed = false;
    const q = makeQueue(store, 1);
    q.registerBatchHandler(
      "dc_",
      async (jobs) => {
        const names = jobs.map((j) => `${(j.event as { n: number }).n}#${j.attempts}`);
        batches.push(names);
        const at = jobs.findIndex((j) => (j.event as { n: number }).n === 3);
        if (at >= 0 && !failed) {
          failed = true;
          return { ran: at, failure: new PlatformFailure("worker died") };
        }
        return { ran: jobs.length };
      },
      4,
    );
    await q.enqueue(Array.from({ length: 6 }, (_, n) => ({ targetId: "dc_batch", ownerId: "u_1", trigger: "http" as const, event: { n } })));
    await q.start();
    await until(() => batches.flat().filter((b) => b.startsWith("5#")).length > 0);
    await q.stop();
    // 0..2 ran once; 3 failed, came back first (attempt 1) and the rest followed it, in order.
    expect(batches[0]).toEqual(["0#0", "1#0", "2#0", "3#0"]);
    expect(batches.slice(1).flat()).toEqual(["3#1", "4#0", "5#0"]);
    expect(batches.every((b) => b.length <= 4)).toBe(true);
  });

  it("settles each job of a batch by its own result: it deletes only those the handler left unsettled", async () => {
    const seen: string[] = [];
    const q = makeQueue(store, 1);
    q.registerBatchHandler(
      "dc_",
      async (jobs) => {
        seen.push(jobs.map((j) => (j.event as { n: number }).n).join(","));
        const first = jobs[0]!;
        if ((first.event as { n: number }).n !== 0) return { ran: jobs.length };
        // Job 0 ran nothing; job 1 waits for its turn (kept, due a moment later): the batch ends there.
        await store.db.updateTable("jobs").set({ run_after: Date.now() + 100 }).where("id", "=", jobs[1]!.id).execute();
        return { ran: 2, committed: false, unsettled: [first.id] };
      },
      4,
    );
    await q.enqueue(Array.from({ length: 3 }, (_, n) => ({ targetId: "dc_settle", ownerId: "u_1", trigger: "http" as const, event: { n } })));
    await q.start();
    await until(() => seen.length === 2);
    await q.stop();
    // Job 1 was not deleted with job 0: it came back when due, with job 2 behind it.
    expect(seen).toEqual(["0,1,2", "1,2"]);
    expect(await store.db.selectFrom("jobs").select("id").where("target_id", "=", "dc_settle").execute()).toEqual([]);
  });

  it("runs a burst's backlog once and in order while it gives way to the requests still arriving, and stops mid-way", async () => {
    const ran: number[] = [];
    let batches = 0;
    const q = makeQueue(store, 2);
    q.registerBatchHandler("dc_", async (jobs) => {
      batches += 1;
      for (const j of jobs) ran.push((j.event as { n: number }).n);
      return { ran: jobs.length };
    });
    await q.start();
    // Requests of a burst: 50 at once, again and again, each acknowledged once its job is stored.
    const job = (n: number) => ({ targetId: "dc_burst", ownerId: "u_1", trigger: "http" as const, event: { n } });
    for (let wave = 0; wave < 8; wave++) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => q.enqueue([job(wave * 50 + i)])));
    }
    await until(() => ran.length >= 400);
    expect(ran).toEqual(Array.from({ length: 400 }, (_, n) => n));
    expect(batches).toBeLessThan(400);

    // A stop while the runner gives way to a burst ends the pause: it neither hangs nor runs on.
    for (let wave = 0; wave < 4; wave++) {
      await Promise.all(Array.from({ length: 50 }, (_, i) => q.enqueue([job(400 + wave * 50 + i)])));
    }
    await q.stop();
    const stoppedAt = ran.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(ran.length).toBe(stoppedAt);
    // What did not run is still queued, in order, for the next start.
    const left = await store.db.selectFrom("jobs").select("payload").where("target_id", "=", "dc_burst").orderBy("id").execute();
    expect(left.map((r) => (JSON.parse(r.payload) as { event: { n: number } }).event.n)).toEqual(
      Array.from({ length: 600 - stoppedAt }, (_, k) => stoppedAt + k),
    );
    await store.db.deleteFrom("jobs").where("target_id", "=", "dc_burst").execute();
  });

  it("a job enqueued on another instance while this one holds the target runs once, in order", async () => {
    const ran: Array<{ on: string; n: number }> = [];
    const a = makeQueue(store, 2);
    const b = makeQueue(second, 2);
    a.registerHandler("dc_", async (job) => {
      ran.push({ on: "a", n: (job.event as { n: number }).n });
    });
    b.registerHandler("dc_", async (job) => {
      ran.push({ on: "b", n: (job.event as { n: number }).n });
    });
    await a.start();
    await b.start();
    await a.enqueue([{ targetId: "dc_linger", ownerId: "u_1", trigger: "http", event: { n: 1 } }]);
    await until(() => ran.length === 1);
    // A still holds the target's lease for a moment, waiting for more work of its own.
    await b.enqueue([{ targetId: "dc_linger", ownerId: "u_1", trigger: "http", event: { n: 2 } }]);
    await until(() => ran.length === 2);
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all([a.stop(), b.stop()]);
    expect(ran.map((r) => r.n)).toEqual([1, 2]);
  });

  it("runs a job another instance stored before a request's job handed to this one's waiting runner, first", async () => {
    const ran: number[] = [];
    const handle = async (jobs: QueuedJob[]) => {
      for (const job of jobs) ran.push((job.event as { n: number }).n);
      return { ran: jobs.length };
    };
    // Two servers on one database; A's runner waits long for its next job, holding the lease.
    // B only takes requests here (it is not started), so A is the one that runs them.
    const make = (db: OpenedDb) =>
      new DurableQueue(new JobsRepo(db.db), { concurrency: 2, leaseMs: 30_000, pollMs: 20, lingerMs: 10_000, sharedDatabase: true });
    const a = make(store);
    const b = make(second);
    a.registerBatchHandler("dc_", handle, 10, { early: true });
    onTestFinished(() => a.stop());
    await a.start();
    const job = (n: number) => [{ targetId: "dc_handed_after", ownerId: "u_1", trigger: "http" as const, event: { n } }];
    await a.enqueue(job(1));
    await until(() => ran.length === 1);
    // Stored by B: A's runner does not hear of it.
    await b.enqueue(job(2));
    // Handed to A's waiting runner: it runs after the job B stored, and neither is left behind.
    await a.enqueue(job(3));
    await until(() => ran.length === 3, 5_000);
    expect(ran).toEqual([1, 2, 3]);
  });

  it("hands a request's job to its target's waiting runner while the insert commits: results after the insert, once; a refused insert leaves nothing", async () => {
    const events = createEventStore({ db: store.db, bus: new LocalEventBus(), retention: 100 });
    const seen: Array<{ n: number; early: boolean; storedAtStart: boolean }> = [];
    const jobRows = (n: number) =>
      store.db.selectFrom("jobs").select("id").where("target_id", "=", "dc_early").where("payload", "like", `%"n":${n}}%`).execute();
    /** Refuses the insert of the job with n = 3, as a full disk would. */
    class RefusingRepo extends JobsRepo {
      override enqueue(jobs: Parameters<JobsRepo["enqueue"]>[0]): Promise<string[]> {
        return jobs.some((j) => j.payload.includes('"n":3}')) ? Promise.reject(new Error("disk full")) : super.enqueue(jobs);
      }
    }
    const q = new DurableQueue(new RefusingRepo(store.db), { concurrency: 2, leaseMs: 30_000, pollMs: 20, lingerMs: 10_000 });
    q.registerBatchHandler(
      "dc_",
      async (jobs) => {
        // As the invoker does: the run goes on at once, its results wait for the job's insert.
        for (const job of jobs) {
          const n = (job.event as { n: number }).n;
          seen.push({ n, early: job.stored !== undefined, storedAtStart: (await jobRows(n)).length === 1 });
        }
        try {
          await Promise.all(jobs.map((j) => j.stored));
        } catch (err) {
          return { ran: 0, failure: new PlatformFailure(`not stored: ${(err as Error).message}`) };
        }
        await events.commit(jobs.map((j) => ({ emitterId: j.targetId, ownerId: "u_1", channel: "", event: j.event })), { jobIds: jobs.map((j) => j.id) });
        return { ran: jobs.length, committed: true };
      },
      100,
      { early: true },
    );
    // A failing run of this test must not leave a runner taking later tests' jobs.
    onTestFinished(async () => {
      await q.stop();
      await events.close();
    });
    const lingering = () => (q as unknown as { lingering: Map<string, unknown> }).lingering.has("dc_early");
    const waitingRunner = async () => {
      const deadline = Date.now() + 15_000;
      while (!lingering()) {
        if (Date.now() > deadline) throw new Error("the runner never waited for more jobs");
        await new Promise((r) => setTimeout(r, 1));
      }
    };
    const job = (n: number) => ({ targetId: "dc_early", ownerId: "u_1", trigger: "http" as const, event: { n } });
    await q.start();
    await q.enqueueWithIds([job(1)]);
    await until(() => seen.length === 1);
    await waitingRunner();
    await q.enqueueWithIds([job(2)]);
    await until(() => seen.length === 2);
    await waitingRunner();
    await expect(q.enqueueWithIds([job(3)])).rejects.toThrow(/disk full/);
    await until(() => seen.length === 3);
    await q.enqueueWithIds([job(4)]);
    await until(() => seen.length === 4);
    const stored = async () =>
      (await store.db.selectFrom("events").select("event_json").where("emitter_id", "=", "dc_early").orderBy("sort_key").execute()).map((r) => JSON.parse(r.event_json) as unknown);
    const deadline = Date.now() + 15_000;
    while ((await stored()).length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await q.stop();
    expect(seen.map((s) => [s.n, s.early])).toEqual([
      [1, false],
      [2, true],
      [3, true],
      [4, false],
    ]);
    // The handed job ran before its insert had committed (the embedded database commits after this turn).
    if (!fresh.databaseUrl) expect(seen[1]!.storedAtStart).toBe(false);
    // Each acknowledged job is one event; the refused one left nothing, and no job is left.
    expect(await stored()).toEqual([{ n: 1 }, { n: 2 }, { n: 4 }]);
    expect(await store.db.selectFrom("jobs").select("id").where("target_id", "=", "dc_early").execute()).toEqual([]);
  });

  it("runs requests that reach a waiting runner in the same turn as one batch, in order, up to its size; each stored once", async () => {
    const events = createEventStore({ db: store.db, bus: new LocalEventBus(), retention: 100 });
    const batches: Array<Array<{ n: number; handed: boolean }>> = [];
    const q = new DurableQueue(new JobsRepo(store.db), { concurrency: 2, leaseMs: 30_000, pollMs: 20, lingerMs: 10_000 });
    q.registerBatchHandler(
      "dc_same_turn",
      async (jobs) => {
        batches.push(jobs.map((j) => ({ n: (j.event as { n: number }).n, handed: j.hold !== undefined })));
        await Promise.all(jobs.map((j) => j.stored));
        await events.commit(jobs.map((j) => ({ emitterId: j.targetId, ownerId: "u_1", channel: "", event: j.event })), { jobIds: jobs.map((j) => j.id) });
        return { ran: jobs.length, committed: true };
      },
      2,
      { early: true },
    );
    onTestFinished(async () => {
      await q.stop();
      await events.close();
    });
    const lingering = () => (q as unknown as { lingering: Map<string, unknown> }).lingering.has("dc_same_turn");
    const job = (n: number) => ({ targetId: "dc_same_turn", ownerId: "u_1", trigger: "http" as const, event: { n } });
    await q.start();
    await q.enqueueWithIds([job(1)]);
    await until(() => batches.length === 1 && lingering());
    // Three requests read in one turn (as from three connections at once): the first two go to
    // the waiting runner together (its batch size is 2), the third is stored and runs after them.
    await Promise.all([q.enqueueWithIds([job(2)]), q.enqueueWithIds([job(3)]), q.enqueueWithIds([job(4)])]);
    await until(() => batches.flat().length === 4);
    await q.stop();
    expect(batches).toEqual([
      [{ n: 1, handed: false }],
      [
        { n: 2, handed: true },
        { n: 3, handed: true },
      ],
      [{ n: 4, handed: false }],
    ]);
    const stored = await store.db.selectFrom("events").select("event_json").where("emitter_id", "=", "dc_same_turn").orderBy("sort_key").execute();
    expect(stored.map((r) => JSON.parse(r.event_json) as unknown)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(await store.db.selectFrom("jobs").select("id").where("target_id", "=", "dc_same_turn").execute()).toEqual([]);
  });

  it("runs a job awaited by an HTTP request (custom response) on the instance that took the request", async () => {
    const ranOn: string[] = [];
    const a = makeQueue(store, 2);
    const b = makeQueue(second, 2);
    a.registerHandler("dc_", async () => {
      ranOn.push("a");
    });
    b.registerHandler("dc_", async () => {
      ranOn.push("b");
    });
    await b.start();
    await a.enqueueWithIds([{ targetId: "dc_affine", ownerId: "u_1", trigger: "http", event: {}, respondTo: "r1" }]);
    await new Promise((r) => setTimeout(r, 300));
    expect(ranOn).toEqual([]);
    await a.start();
    await until(() => ranOn.length >= 1);
    await Promise.all([a.stop(), b.stop()]);
    expect(ranOn).toEqual(["a"]);
  });

  it("lets exactly one of several instances fire a timer tick", async () => {
    const repos = [new TimersRepo(store.db), new TimersRepo(second.db)];
    const due = Date.now() - 1000;
    await repos[0]!.arm({ source_id: "dc_timer", owner_id: "u_1", interval_seconds: 60, cron: null, next_run_at: due });
    const row = (await repos[0]!.get("dc_timer"))!;
    const job = { targetId: "dc_timer", ownerId: "u_1", trigger: "timer", payload: JSON.stringify({ event: timerEvent(row) }) };
    const wins = await Promise.all([...repos, ...repos].map((r) => r.claimTick(row, due + 60_000, job)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect((await repos[1]!.get("dc_timer"))!.next_run_at).toBe(due + 60_000);
    const fired: unknown[] = [];
    const q = makeQueue(store, 1);
    q.registerHandler("dc_", async (j) => {
      fired.push(j.event);
    });
    await q.start();
    await until(() => fired.length >= 1);
    await new Promise((r) => setTimeout(r, 100));
    await q.stop();
    expect(fired).toEqual([{ timestamp: Math.floor(due / 1000), interval_seconds: 60 }]);
  });

  it("commits a job's results once when its lease ran out and another instance ran it too", async () => {
    const events = createEventStore({ db: store.db, bus: new LocalEventBus(), retention: 100 });
    const calls: string[] = [];
    const commits: string[] = [];
    // The slow run goes on only once the fast one has committed: whatever this machine's speed,
    // the slow run's commit comes second and must be refused.
    let fastCommitted!: () => void;
    const afterFast = new Promise<void>((resolve) => (fastCommitted = resolve));
    // A short lease that the slow instance does not renew in time (renewals come every second).
    const short = (db: OpenedDb) => new DurableQueue(new JobsRepo(db.db), { concurrency: 1, leaseMs: 300, pollMs: 20 });
    const runner = (name: "slow" | "fast") => async (job: QueuedJob) => {
      calls.push(name);
      if (name === "slow") await afterFast;
      try {
        await events.commit([{ emitterId: job.targetId, ownerId: "u_1", channel: "", event: { by: name } }], { jobIds: [job.id] });
        commits.push(`${name} committed`);
      } catch (err) {
        commits.push(`${name} refused`);
        throw new PlatformFailure((err as Error).message);
      } finally {
        if (name === "fast") fastCommitted();
      }
      return { committed: true };
    };
    const slow = short(store);
    const fast = short(second);
    slow.registerHandler("dc_", runner("slow"));
    fast.registerHandler("dc_", runner("fast"));
    await slow.enqueue([{ targetId: "dc_fenced", ownerId: "u_1", trigger: "http", event: {} }]);
    await slow.start();
    await until(() => calls.length === 1);
    await fast.start();
    // Both runs tried to commit (the fast one took the job over once the slow one's lease ran out).
    await until(() => commits.length === 2, 30_000);
    await Promise.all([slow.stop(), fast.stop()]);
    await events.close();
    expect(calls).toEqual(["slow", "fast"]);
    expect(commits).toEqual(["fast committed", "slow refused"]);
    const stored = await store.db.selectFrom("events").select("event_json").where("emitter_id", "=", "dc_fenced").execute();
    expect(stored.map((r) => JSON.parse(r.event_json) as unknown)).toEqual([{ by: "fast" }]);
    expect(await store.db.selectFrom("jobs").select("id").where("target_id", "=", "dc_fenced").execute()).toEqual([]);
  });

  it("runs a job enqueued in a transaction only once that transaction commits", async () => {
    const ran: unknown[] = [];
    const q = makeQueue(store, 1);
    q.registerHandler("dc_", async (job) => {
      ran.push(job.event);
    });
    await q.start();
    const job = { targetId: "dc_in_trx", ownerId: "u_1", trigger: "event" as const, event: { n: 1 } };
    await expect(
      store.db.transaction().execute(async (trx) => {
        await q.enqueueIn(trx, [job]);
        throw new Error("the events were not stored");
      }),
    ).rejects.toThrow(/not stored/);
    q.wake(["dc_in_trx"]);
    // A job of the same target enqueued after it: a target's jobs run in order, so had the rolled
    // back job been stored, it would run before this one.
    await q.enqueue([{ ...job, event: { probe: 1 } }]);
    await until(() => ran.length >= 1);
    expect(ran).toEqual([{ probe: 1 }]);
    await store.db.transaction().execute((trx) => q.enqueueIn(trx, [{ ...job, event: { n: 2 } }]));
    q.wake(["dc_in_trx"]);
    // And one more after the committed one: it ran by then, once.
    await q.enqueue([{ ...job, event: { probe: 2 } }]);
    await until(() => ran.length >= 3);
    await q.stop();
    expect(ran).toEqual([{ probe: 1 }, { n: 2 }, { probe: 2 }]);
  });

  it("holds an emit exactly when its run's completion commits, then stores it once when due, in due order, across two instances", async () => {
    const events = createEventStore({ db: store.db, bus: new LocalEventBus(), retention: 100 });
    const source = "dc_holder";
    const emit = (n: number) => ({ emitterId: source, ownerId: "u_1", channel: "later", event: { n }, meta: { id: `i${n}` }, hops: 1 });
    const heldJobs = () => store.db.selectFrom("jobs").select("id").where("target_id", "=", delayedTarget(source)).execute();
    const jobs = new JobsRepo(store.db);
    const [run] = await jobs.enqueue([{ targetId: source, ownerId: "u_1", trigger: "http", payload: "{}" }]);
    const now = Date.now();
    // A completion refused (its job completed elsewhere) holds nothing.
    await expect(events.commit([], { jobIds: ["000-gone"], delayed: [delayedJob(emit(0), now + 60_000)] })).rejects.toBeInstanceOf(
      JobAlreadyCompletedError,
    );
    expect(await heldJobs()).toEqual([]);
    // The run's completion: its job goes, two emits are held; the one emitted second is due first.
    await events.commit([], { jobIds: [run!], delayed: [delayedJob(emit(1), now + 1200), delayedJob(emit(2), now + 600)] });
    expect(await store.db.selectFrom("jobs").select("id").where("target_id", "=", source).execute()).toEqual([]);
    expect((await heldJobs()).length).toBe(2);

    const catalog = {
      source: async (id: string) => (id === source ? { id, userId: "u_1", componentId: "c", active: true, configuredProps: {} } : undefined),
      component: async () => undefined,
    };
    const queues = [makeQueue(store, 2), makeQueue(second, 2)];
    for (const q of queues) q.registerBatchHandler("de_", (batch) => handleDelayedJobs(batch, { catalog, events }));
    await Promise.all(queues.map((q) => q.start()));
    const stored = () =>
      store.db.selectFrom("events").select(["event_json", "indexed_at_ms", "hops", "meta_json"]).where("emitter_id", "=", source).where("channel", "=", "later").orderBy("sort_key").execute();
    const deadline = Date.now() + 20_000;
    while ((await stored()).length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // Both instances looked meanwhile: nothing more comes.
    await new Promise((r) => setTimeout(r, 300));
    await Promise.all(queues.map((q) => q.stop()));
    await events.close();
    const rows = await stored();
    expect(rows.map((r) => JSON.parse(r.event_json) as unknown)).toEqual([{ n: 2 }, { n: 1 }]);
    expect(rows[0]!.indexed_at_ms).toBeGreaterThanOrEqual(now + 600);
    expect(rows[1]!.indexed_at_ms).toBeGreaterThanOrEqual(now + 1200);
    expect(rows.map((r) => r.hops)).toEqual([1, 1]);
    expect(JSON.parse(rows[0]!.meta_json)).toMatchObject({ id: "i2" });
    expect(await heldJobs()).toEqual([]);
  });

  it("keeps due held emits and source jobs when reading their source fails, and runs them on the retry", async () => {
    const events = createEventStore({ db: store.db, bus: new LocalEventBus(), retention: 100 });
    const source = "dc_flaky";
    const source2 = "dc_flaky2";
    await events.commit([], {
      jobIds: [],
      delayed: [delayedJob({ emitterId: source, ownerId: "u_1", channel: "later", event: { n: 1 }, hops: 0 }, Date.now() + 50)],
    });
    await new JobsRepo(store.db).enqueue([{ targetId: source2, ownerId: "u_1", trigger: "http", payload: JSON.stringify({ event: { n: 2 } }) }]);
    // The database fails the first read of each source (a dropped connection), then answers.
    const failed = new Set<string>();
    const catalog = {
      source: async (id: string) => {
        if (!failed.has(id)) {
          failed.add(id);
          throw new Error("connection terminated unexpectedly");
        }
        return { id, userId: "u_1", componentId: "c", active: true, configuredProps: {} };
      },
      component: async () => ({ id: "c", props: [] }) as never,
    };
    const ran: unknown[] = [];
    const invoker = {
      // Like the real invoker: the runs' jobs go with their (here empty) results.
      runBatch: async (_s: unknown, _c: unknown, items: Array<{ event: unknown; jobId: string }>) => {
        await events.commit([], { jobIds: items.map((i) => i.jobId) });
        ran.push(...items.map((i) => i.event));
        return { ran: items.length };
      },
    } as never;
    const q = makeQueue(store, 2);
    q.registerBatchHandler("de_", (batch) => handleDelayedJobs(batch, { catalog, events }));
    q.registerBatchHandler("dc_", (batch) => handleSourceJobs(batch, { catalog, invoker, responders: { finish: () => undefined } as never }));
    await q.start();
    const stored = () => store.db.selectFrom("events").select("event_json").where("emitter_id", "=", source).execute();
    const deadline = Date.now() + 20_000;
    while (((await stored()).length < 1 || ran.length < 1) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    // Nothing runs twice meanwhile.
    await new Promise((r) => setTimeout(r, 300));
    await q.stop();
    await events.close();
    expect(failed).toEqual(new Set([source, source2]));
    expect((await stored()).map((r) => JSON.parse(r.event_json) as unknown)).toEqual([{ n: 1 }]);
    expect(ran).toEqual([{ n: 2 }]);
  });

  it("offers due held emits among ready targets by due time, not ahead of older work", async () => {
    const jobs = new JobsRepo(store.db);
    const t = Date.now() + 3_600_000;
    // A source's run enqueued at t, then an emit held until t + 10 on another source.
    // Its id made for t here (jobIdAt), not by newJobId: that one's clock would stay an hour ahead
    // for every later test of this process.
    await store.db.transaction().execute((trx) => insertJobs(trx, [{ id: jobIdAt(t), targetId: "dc_older", ownerId: "u_1", trigger: "http", payload: "{}" }], t));
    await store.db
      .transaction()
      .execute((trx) => insertJobs(trx, [{ targetId: delayedTarget("dc_later"), ownerId: "u_1", trigger: "delayed", payload: "{}", runAfter: t + 10, sortAt: t + 10 }], t));
    const ready = (await jobs.readyTargets(t + 20, 1000)).filter((id) => id.endsWith("dc_older") || id.endsWith("dc_later"));
    expect(ready).toEqual(["dc_older", delayedTarget("dc_later")]);
    await store.db.deleteFrom("jobs").where("target_id", "in", ["dc_older", delayedTarget("dc_later")]).execute();
  });
});
