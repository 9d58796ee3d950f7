/**
 * The durable invocation queue (InvocationQueue of services.ts). Every invocation goes through
 * it: HTTP requests, timer ticks, subscription deliveries. A job is a row (store/repos/jobs.ts)
 * until it has run, so pending jobs survive a crash or restart and run afterwards.
 *
 * - One job at a time per target, oldest first: the runner holds the target's lease (a CAS
 *   UPDATE, valid across server instances) while its jobs run, renewing it as it goes; a
 *   crashed instance's lease runs out after `leaseMs` and another instance takes the jobs over.
 * - While it holds the lease, the runner goes on with the target's next jobs (up to TURN_JOBS)
 *   without giving the lease back, and hands a batch handler up to its batch size at once: a
 *   busy source costs a few statements per batch instead of several per job.
 * - Ready targets are served least-recently-served first (round robin), so a target with a
 *   long backlog takes turns with the others instead of starving them.
 * - A handler per target kind (`dc_` sources here, `p_` workflows registered by workflows/).
 * - A `PlatformFailure` (the worker died for a reason that is not the job's own) is retried with
 *   exponential backoff, up to MAX_ATTEMPTS; anything else ends the job.
 * - Exactly once: a handler deletes the jobs that ran in the transaction that stores their
 *   results (EventStore.commit, `committed` in its outcome), so a job whose results are stored
 *   is gone with them (a handed-over job whose insert that transaction took over, held-insert.ts,
 *   is never a row at all). The queue itself deletes only jobs that ended without results (a deleted
 *   target, a handler's own error, a job given up). Deliveries are inserted with the events they
 *   deliver (`enqueueIn`).
 *
 * A job's shapes and its row's payload are in queue-jobs.ts. The rest stays in one class, long as
 * it is: the pump, the runners and the hand-over share each target's state (its lease, its
 * lingering runner, the held inserts of its handed-over jobs), and every change to one of them
 * has had to be read against the others.
 */
import { randomUUID } from "node:crypto";
import type { InvocationJob, InvocationQueue } from "../services.js";
import type { Db } from "../store/db.js";
import { insertJobs, newJobId, type JobRow, type JobsRepo, type NewJob } from "../store/repos/jobs.js";
import { AcksFirst } from "./acks-first.js";
import { HeldInsert } from "./held-insert.js";
import { runnableHttpEvent } from "./http-body.js";
import { PlatformFailure } from "./platform-failure.js";
import {
  payloadOf,
  rowsOf,
  runAfterOf,
  type BatchHandler,
  type BatchOutcome,
  type EnqueueJob,
  type JobHandler,
  type QueuedJob,
} from "./queue-jobs.js";

interface Registered {
  handle: BatchHandler;
  maxBatch: number;
  /**
   * The handler waits for `QueuedJob.stored` before it commits, or takes the insert over
   * (`QueuedJob.hold`): its jobs may be handed over before they are stored.
   */
  early: boolean;
}

export interface QueueOptions {
  /** Jobs run at once by this instance. */
  concurrency: number;
  /** How long a claimed target stays leased without renewal. */
  leaseMs: number;
  pollMs?: number;
  /**
   * How long a runner keeps an idle target's lease for its next job (default LINGER_MS). Tests
   * of the hand-over lengthen it: they act while the runner waits, which 50 ms made a race.
   */
  lingerMs?: number;
  /** The lease owner id (default: a random one). */
  instanceId?: string;
  /** Free all leases at start: true only when this server is alone on its database (SQLite). */
  releaseLeasesAtStart?: boolean;
  /**
   * Other instances enqueue to the same database (PostgreSQL): a job handed to a waiting runner
   * here may be younger than one they stored meanwhile, which then runs first (see afterStored).
   */
  sharedDatabase?: boolean;
  log?: (msg: string, err?: unknown) => void;
}

export const MAX_ATTEMPTS = 5;
/** Jobs of one target run under one lease, while no other target waits, before it takes turns again. */
export const TURN_JOBS = 128;
/** How long a runner keeps an idle target's lease, waiting for its next job. */
export const LINGER_MS = 50;
/** Jobs a batch handler gets at once by default. */
export const DEFAULT_BATCH = 100;
/**
 * How long the ready targets of one look serve the next looks made as runs end (see readyNow),
 * and so how much later a job that only became due meanwhile (a retry, a delayed emit) may start
 * under a burst.
 */
export const READY_REUSE_MS = 100;

export class DurableQueue implements InvocationQueue {
  /** The lease owner this instance writes (its presence name on PostgreSQL, server/cluster/). */
  readonly instanceId: string;
  private readonly handlers = new Map<string, Registered>();
  private readonly running = new Map<string, Promise<void>>();
  /** Jobs reserved for this instance (custom responses), by id → target. */
  private readonly local = new Map<string, string>();
  /** When this instance last started a job of each target (round robin between targets). */
  private readonly lastServed = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  /** The pump under way (or the last one), so that stop() can wait for the runs it starts. */
  private pumped: Promise<void> = Promise.resolve();
  /** Targets whose runner waits a moment for more jobs (see linger), and how to wake it. */
  private readonly lingering = new Map<string, () => void>();
  /** Jobs handed to a lingering runner before their insert (handOver), by target. */
  private readonly handedOver = new Map<string, JobRow[]>();
  /** The jobs behind those rows, which they run from (their payload's JSON is made only to be inserted). */
  private readonly handedJobs = new WeakMap<JobRow, EnqueueJob>();
  /** Their inserts, by job id, until the job is durable. */
  private readonly held = new Map<string, HeldInsert>();
  /** Runners give way to requests waiting for their acknowledgement (acks-first.ts). */
  private readonly acks = new AcksFirst();
  /** Runners giving way (acks-first.ts), woken early by stop(). */
  private readonly pauses = new Set<() => void>();
  /** When each target's last batch started here (acks-first.ts spaces them under a burst). */
  private readonly batchStarts = new Map<string, number>();
  /** Whether ready targets were left waiting for a free slot at the last look: turns get short. */
  private backlogged = false;
  /** The ready targets of the last look not started then, in service order, and when it was made. */
  private readyLeft: string[] = [];
  private readyAt = -Infinity;
  /** Jobs were enqueued (or time passed) since that look: the next one reads the table. */
  private readyStale = true;
  private again = false;
  private stopped = true;

  constructor(
    private readonly repo: JobsRepo,
    private readonly options: QueueOptions,
  ) {
    this.instanceId = options.instanceId ?? randomUUID();
  }

  /** Registers the handler of a target kind by id prefix (`dc_`, `p_`), one job at a time. */
  registerHandler(prefix: string, handler: JobHandler): void {
    const handle: BatchHandler = async (jobs) => {
      try {
        const result = await handler(jobs[0]!);
        return { ran: 1, committed: result?.committed === true };
      } catch (failure) {
        return { ran: 0, failure };
      }
    };
    this.handlers.set(prefix, { handle, maxBatch: 1, early: false });
  }

  /**
   * Registers a handler that takes up to `maxBatch` consecutive jobs of a target at once. With
   * `early`, it promises to commit a job's results only after its `stored` resolves (or in the
   * transaction that takes its `hold` over), and its jobs may be handed to it before they are stored.
   */
  registerBatchHandler(
    prefix: string,
    handle: BatchHandler,
    maxBatch = DEFAULT_BATCH,
    opts: { early?: boolean } = {},
  ): void {
    this.handlers.set(prefix, { handle, maxBatch, early: opts.early === true });
  }

  async enqueue(jobs: InvocationJob[]): Promise<void> {
    await this.enqueueWithIds(jobs);
  }

  /**
   * Like enqueue, returning the jobs' ids. A job whose HTTP request waits for a custom response
   * (`respondTo`) must run on this instance, where the request is: other instances see it only
   * after AFFINITY_MS (in case this one dies), this one may run it at once.
   */
  async enqueueWithIds(jobs: EnqueueJob[]): Promise<string[]> {
    const now = Date.now();
    const held = this.handOver(jobs, now);
    let ids: string[];
    try {
      ids = await this.acks.storing(held ? held.durable : this.repo.enqueue(rowsOf(jobs, now)));
    } finally {
      if (held) this.held.delete(held.id);
    }
    ids.forEach((id, i) => {
      if (jobs[i]!.respondTo) this.local.set(id, jobs[i]!.targetId);
    });
    this.wake(jobs.map((j) => j.targetId));
    return ids;
  }

  /**
   * A request's job for a target whose runner here waits for its next job (see linger) goes to
   * that runner at once, before it is stored: the component runs at once, and its results'
   * transaction takes the job's insert over (held-insert.ts: one commit, the request
   * acknowledged after it), or commits after the insert, deleting the job as always. Saves a
   * commit, the wake-up and the read of the job from the path of every request of a steady
   * stream. A job awaited by a custom response is inserted at once (its request is answered by
   * the run, and its instance's reservation needs the row), and so is one that other requests'
   * inserts would commit with.
   */
  private handOver(jobs: EnqueueJob[], now: number): HeldInsert | undefined {
    if (jobs.length !== 1 || this.stopped) return undefined;
    const job = jobs[0]!;
    const target = job.targetId;
    const wake = this.lingering.get(target);
    const registered = this.handlerOf(target);
    if (!wake || !registered?.early) return undefined;
    // Requests read in the same turn of the event loop join one batch (see linger).
    const handed = this.handedOver.get(target) ?? [];
    if (handed.length >= registered.maxBatch) return undefined;
    const id = newJobId(now);
    if (job.respondTo) this.local.set(id, target);
    // The payload's JSON is made only if the job is inserted (or its row read as text): a job
    // whose run's commit takes its insert over never needs it, and runs from the job itself.
    let insertRow: NewJob | undefined;
    const rowToInsert = () => (insertRow ??= { ...rowsOf(jobs, now)[0]!, id });
    const row: JobRow = {
      id,
      target_id: target,
      owner_id: job.ownerId,
      trigger: job.trigger,
      get payload() {
        return rowToInsert().payload;
      },
      attempts: 0,
      run_after: runAfterOf(job, now),
      created_ms: now,
    };
    this.handedJobs.set(row, job);
    handed.push(row);
    this.handedOver.set(target, handed);
    const held = new HeldInsert(id, () => this.repo.enqueue([rowToInsert()]));
    // Inserted at once under an endpoint's load, where other requests' inserts commit anyway
    // (holding it there only held its acknowledgement: fewer requests per second, measured).
    if (job.respondTo || this.repo.enqueueing) void held.settle();
    this.held.set(id, held);
    wake();
    return held;
  }

  /** Inserts the jobs in the caller's transaction (deliveries, with their events); `wake` after its commit. */
  async enqueueIn(trx: Db, jobs: InvocationJob[]): Promise<void> {
    if (jobs.length > 0) await insertJobs(trx, rowsOf(jobs, Date.now()));
  }

  /** Jobs for these targets were committed: wake their runners, or look for work. */
  wake(targetIds: Iterable<string>): void {
    // A target running here reads its next jobs when its batch ends (and looks again when its run
    // ends): a look for work would find nothing new to start. Under an endpoint's load this is
    // most enqueues.
    let idle = false;
    for (const target of targetIds) {
      this.lingering.get(target)?.();
      if (!this.running.has(target)) idle = true;
    }
    if (idle) this.kick();
  }

  async start(): Promise<void> {
    if (!this.stopped) return;
    // Jobs a crashed run of this server was running are run again (at-least-once).
    if (this.options.releaseLeasesAtStart) await this.repo.releaseAll();
    this.stopped = false;
    this.kick();
  }

  /** Stops claiming new jobs and waits for the running ones. Pending jobs stay in the table. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const wake of [...this.lingering.values(), ...this.pauses]) wake();
    // A pump under way may still start a run (its claim was in flight): wait for it first.
    await this.pumped;
    await Promise.allSettled([...this.running.values()]);
  }

  /** Looks for work now, in the table (after an enqueue, or at the poll). */
  kick(): void {
    this.readyStale = true;
    this.look();
  }

  /** Looks for work now (a run ended: see readyNow). */
  private look(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    this.pumped = this.pump()
      .catch((err) => this.options.log?.("invocation queue: polling failed", err))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.look();
        } else this.schedule();
      });
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), this.options.pollMs ?? 500);
    this.timer.unref();
  }

  private async pump(): Promise<void> {
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) {
      // Work may have arrived for a target that is not running: the running ones keep turns short.
      this.backlogged = true;
      return;
    }
    const now = Date.now();
    const targets = await this.readyNow(now, free);
    let started = 0;
    let looked = 0;
    this.backlogged = false;
    for (const target of targets) {
      if (this.stopped) break;
      if (this.running.has(target)) {
        looked += 1;
        continue;
      }
      if (started >= free) {
        this.backlogged = true;
        break;
      }
      looked += 1;
      if (!(await this.repo.claimTarget(target, this.instanceId, now, now + this.options.leaseMs))) continue;
      const heads = await this.repo.heads(target, this.handlerOf(target)?.maxBatch ?? 1);
      if (heads.length === 0) for (const [id, t] of this.local) if (t === target) this.local.delete(id);
      const batch = this.runnable(heads);
      if (batch.length === 0) {
        await this.repo.release(target, this.instanceId);
        continue;
      }
      started += 1;
      this.noteServed(target);
      const run = this.run(target, batch)
        // A database error while handing jobs back (a retry, a release) leaves them leased:
        // they run again when the lease expires. Never an unhandled rejection.
        .catch((err: unknown) =>
          this.options.log?.(`invocation queue: run of ${target} ended with an error`, err),
        )
        .finally(() => {
          this.running.delete(target);
          this.look();
        });
      this.running.set(target, run);
    }
    this.readyLeft = targets.slice(looked);
  }

  /**
   * The targets to look at, in service order (least recently served first). A look made as a run
   * ends takes those the previous look found and did not start, while they last and are at most
   * READY_REUSE_MS old, unless jobs were enqueued here since (`kick`), or the poll came: a tick of
   * 1,000 workflows' runs made a look per run end, each reading every target's head (about 1 ms
   * with 1,000 ready, measured). A target taken meanwhile by another instance fails its claim,
   * and one whose jobs are gone has none to read: both are passed over, as they were before.
   */
  private async readyNow(now: number, free: number): Promise<string[]> {
    // More than `free`: one is left over, so the runners see that targets wait (`backlogged`).
    if (!this.readyStale && now - this.readyAt < READY_REUSE_MS && this.readyLeft.length > free) {
      return this.readyLeft;
    }
    this.readyStale = false;
    this.readyAt = now;
    const ready = await this.repo.readyTargets(now, Math.max(100, free + this.running.size));
    return [...new Set([...this.local.values()].concat(ready))].sort(
      (a, b) => (this.lastServed.get(a) ?? 0) - (this.lastServed.get(b) ?? 0),
    );
  }

  private handlerOf(target: string): Registered | undefined {
    return [...this.handlers].find(([prefix]) => target.startsWith(prefix))?.[1];
  }

  /** The leading jobs that may run now (not waiting for a retry, nor reserved for another instance). */
  private runnable(rows: JobRow[]): JobRow[] {
    const now = Date.now();
    const end = rows.findIndex((r) => r.run_after > now && !this.local.has(r.id));
    return end < 0 ? rows : rows.slice(0, end);
  }

  private noteServed(target: string): void {
    this.lastServed.delete(target);
    this.lastServed.set(target, Date.now());
    // Insertion order is service order: the oldest entries are the least useful to keep.
    while (this.lastServed.size > 10_000) this.lastServed.delete(this.lastServed.keys().next().value!);
  }

  /**
   * Waits before a target's next batch while requests wait for their acknowledgement
   * (acks-first.ts), and notes when that batch starts. True when it waited.
   */
  private async giveWay(target: string, batch: JobRow[]): Promise<boolean> {
    const delay = this.acks.delayBeforeBatch(
      this.batchStarts.get(target) ?? -Infinity,
      batch.length,
      batch[0]!.created_ms,
    );
    const waits = delay > 0 && !this.stopped;
    if (waits) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.pauses.delete(done);
          resolve();
        };
        const timer = setTimeout(done, delay);
        this.pauses.add(done);
      });
    }
    this.batchStarts.delete(target);
    this.batchStarts.set(target, Date.now());
    // Insertion order is start order: the oldest entries are of targets long idle.
    while (this.batchStarts.size > 10_000) this.batchStarts.delete(this.batchStarts.keys().next().value!);
    return waits;
  }

  /**
   * Resolves after LINGER_MS, or once a job for the target is enqueued here (or on stop): at the
   * end of that turn of the event loop, so that every request read in the same turn is handed
   * over too and runs in the same batch (one worker round trip, one commit). Two requests sent
   * at once otherwise ran one after the other, the second after the first's commit.
   */
  private linger(target: string): Promise<void> {
    return new Promise((resolve) => {
      let woken = false;
      const done = () => {
        clearTimeout(timer);
        this.lingering.delete(target);
        resolve();
      };
      const wake = () => {
        if (woken) return;
        woken = true;
        clearTimeout(timer);
        setImmediate(done);
      };
      const timer = setTimeout(done, this.options.lingerMs ?? LINGER_MS);
      this.lingering.set(target, wake);
    });
  }

  /** Runs the target's jobs, batch after batch, while it holds the target's lease. */
  private async run(target: string, first: JobRow[]): Promise<void> {
    const renew = setInterval(
      () => {
        this.repo
          .extendLease(target, this.instanceId, Date.now() + this.options.leaseMs)
          .catch(() => undefined);
      },
      Math.max(1000, Math.floor(this.options.leaseMs / 3)),
    );
    renew.unref();
    const registered = this.handlerOf(target);
    const maxBatch = registered?.maxBatch ?? 1;
    let served = 0;
    let batch = first;
    /** Deletions of ended jobs still committing (they must land before the lease is given back). */
    let finishing: Promise<unknown> = Promise.resolve();
    /** Those jobs: the next reads pass over them. */
    const deleting = new Set<string>();
    const settle = async () => {
      await finishing;
      await this.repo.release(target, this.instanceId);
    };
    try {
      while (batch.length > 0) {
        // A stop that ended a pause leaves the batch queued for the next start (its jobs are rows).
        if ((await this.giveWay(target, batch)) && this.stopped) {
          await settle();
          break;
        }
        const outcome = registered ? await this.runBatch(registered, batch) : this.dropped(batch);
        served += batch.length;
        // Jobs the handler committed with their results are gone already; others end here.
        const ended = outcome.unsettled
          ? [...outcome.unsettled]
          : outcome.committed
            ? []
            : batch.slice(0, outcome.ran).map((r) => r.id);
        // Jobs that ran (or failed) are no longer reserved here; the rest keep their reservation.
        for (const row of batch.slice(0, outcome.ran + 1)) this.local.delete(row.id);
        if (outcome.failure !== undefined) {
          const failed = batch[outcome.ran]!;
          const err = outcome.failure;
          if (err instanceof PlatformFailure && failed.attempts + 1 < MAX_ATTEMPTS) {
            const backoff = Math.min(60_000, 1000 * 2 ** failed.attempts);
            this.options.log?.(`invocation queue: ${target} failed (${err.message}); retry in ${backoff} ms`);
            await finishing;
            // The lease is kept until retryLater gives it back with the failed job's new time.
            if (ended.length) await this.repo.finish(target, ended, this.instanceId, { keepLease: true });
            await this.repo.retryLater(failed, this.instanceId, Date.now() + backoff);
            return;
          }
          this.options.log?.(`invocation queue: job of ${target} failed`, err);
          ended.push(failed.id);
        }
        // Go on with the next jobs under the same lease until the target has had its turn: one
        // batch (whatever its size) when other targets wait for a slot, up to TURN_JOBS when none does.
        const goOn = !this.stopped && !this.backlogged && served < TURN_JOBS;
        if (!goOn) {
          // The last batch of this turn: jobs ended without results go and the lease is given
          // back in one transaction.
          await finishing;
          await this.repo.finish(target, ended, this.instanceId);
          break;
        }
        // Going on: jobs that ended without results (nothing of theirs is stored, so running them
        // again would change nothing) are deleted with the next turn's writes while the next
        // batch already runs (it reads past them; one whose deletion failed stays passed over).
        if (ended.length > 0) {
          for (const id of ended) deleting.add(id);
          const deleted = this.repo.finish(target, ended, this.instanceId, { keepLease: true }).then(() => {
            for (const id of ended) deleting.delete(id);
          });
          finishing = Promise.all([finishing, deleted]).catch((err: unknown) =>
            this.options.log?.(`invocation queue: could not finish jobs of ${target}`, err),
          );
        }
        let next = await this.headsPast(target, maxBatch, deleting);
        if (next.length === 0) {
          // Nothing queued now. A steady stream brings the next job within moments: wait for it
          // a little under the lease rather than give the lease back and look for work again
          // (a ready-targets query, a claim and a read per event).
          await this.linger(target);
          const handed = this.handedOver.get(target);
          this.handedOver.delete(target);
          // Stopping: a job handed over meanwhile is stored to run after the restart.
          if (this.stopped && handed) await Promise.all(handed.map((r) => this.held.get(r.id)?.settle()));
          next = this.stopped
            ? []
            : handed
              ? await this.afterStored(target, handed, maxBatch, deleting)
              : await this.headsPast(target, maxBatch, deleting);
          if (next.length === 0) {
            await settle();
            break;
          }
        }
        batch = this.runnable(next);
        if (batch.length === 0) await settle();
      }
    } finally {
      clearInterval(renew);
      await finishing;
    }
  }

  /**
   * The target's first jobs in the table, past those whose deletion is under way. Always from the
   * first job, not after the last one run: on PostgreSQL a job with an earlier id (another
   * instance's, or a transaction slower to commit) can become visible after a later one ran.
   */
  private async headsPast(target: string, limit: number, deleting: Set<string>): Promise<JobRow[]> {
    if (deleting.size === 0) return this.repo.heads(target, limit);
    // Taken before the read: a deletion that commits while it runs may still be in what it sees.
    const passed = new Set(deleting);
    // Rounded up, so that the reads have few shapes (the limit is in their SQL).
    const rows = await this.repo.heads(target, limit + 2 ** Math.ceil(Math.log2(passed.size)));
    return rows.filter((r) => !passed.has(r.id)).slice(0, limit);
  }

  /**
   * A job handed to the waiting runner runs after the target's jobs already stored. Alone on its
   * database, an instance stores every job of a target it holds itself and wakes the runner for
   * it: none can be waiting unseen. On a shared database another instance may have stored one
   * (and acknowledged its request) before this job's request came: it runs first, and the handed
   * job is stored to wait its turn when the batch has no room for it.
   */
  private async afterStored(
    target: string,
    handed: JobRow[],
    limit: number,
    deleting: Set<string>,
  ): Promise<JobRow[]> {
    if (!this.options.sharedDatabase) return handed;
    const ids = new Set(handed.map((r) => r.id));
    const stored = (await this.headsPast(target, limit, deleting)).filter((r) => !ids.has(r.id));
    if (stored.length === 0) return handed;
    if (stored.length + handed.length <= limit) return [...stored, ...handed];
    await Promise.all(handed.map((r) => this.held.get(r.id)?.settle()));
    return stored;
  }

  private async runBatch(registered: Registered, rows: JobRow[]): Promise<BatchOutcome> {
    const jobs = rows.map((row): QueuedJob => {
      const payload = payloadOf(row, this.handedJobs.get(row));
      return {
        id: row.id,
        targetId: row.target_id,
        ownerId: row.owner_id,
        trigger: row.trigger as InvocationJob["trigger"],
        event: row.trigger === "http" ? runnableHttpEvent(payload.event) : payload.event,
        origin: payload.origin,
        respondTo: payload.respondTo,
        ...(payload.rerun ? { rerun: payload.rerun } : {}),
        ...(payload.resume ? { resume: payload.resume } : {}),
        ...(payload.runId ? { runId: payload.runId } : {}),
        ...(payload.schedule !== undefined ? { schedule: payload.schedule } : {}),
        attempts: row.attempts,
        ...(this.held.has(row.id)
          ? { stored: this.held.get(row.id)!.durable, hold: this.held.get(row.id)! }
          : {}),
      };
    });
    // Held inserts the batch did not take over are made now, before the queue deletes, retries
    // or leaves these jobs: each must be a row by then (or its request refused).
    const holds = jobs.flatMap((j) => (j.hold ? [this.held.get(j.id)] : []));
    const settle = async () => {
      if (holds.length > 0) await Promise.all(holds.map((h) => h?.settle()));
    };
    try {
      const outcome = await registered.handle(jobs);
      await settle();
      const ran = Math.max(0, Math.min(outcome.ran, jobs.length - (outcome.failure === undefined ? 0 : 1)));
      return {
        ran,
        failure: outcome.failure,
        committed: outcome.committed === true,
        ...(outcome.unsettled ? { unsettled: outcome.unsettled } : {}),
      };
    } catch (failure) {
      await settle();
      // An error of the handler itself: the first job ends with it.
      return { ran: 0, failure };
    }
  }

  private dropped(rows: JobRow[]): BatchOutcome {
    this.options.log?.(
      `invocation queue: no handler for ${rows[0]!.target_id}; ${rows.length} job(s) dropped`,
    );
    return { ran: rows.length };
  }
}
