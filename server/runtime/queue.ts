/**
 * The durable invocation queue (InvocationQueue of services.ts). Every invocation goes through
 * it: HTTP requests, timer ticks, subscription deliveries. A job is a row (store/repos/jobs.ts)
 * until it has run, so pending jobs survive a crash or restart and run afterwards.
 *
 * - One job at a time per target, oldest first: the runner holds the target's lease (a CAS
 *   UPDATE, valid across server instances) while the job runs, renewing it as it goes; a
 *   crashed instance's lease runs out after `leaseMs` and another instance takes the job over.
 * - Ready targets are served least-recently-served first (round robin), so a target with a
 *   long backlog takes turns with the others instead of starving them.
 * - A handler per target kind (`dc_` sources here, `p_` workflows registered by workflows/).
 * - A `PlatformFailure` (the worker died for a reason that is not the job's own) is retried with
 *   exponential backoff, up to MAX_ATTEMPTS; anything else ends the job.
 */
import { randomUUID } from "node:crypto";
import type { InvocationJob, InvocationQueue } from "../services.js";
import type { JobRow, JobsRepo } from "../store/repos/jobs.js";
import { PlatformFailure } from "./invoke.js";

/** A job as enqueued by the HTTP trigger: a custom response is awaited under `respondTo`. */
export interface EnqueueJob extends InvocationJob {
  respondTo?: string;
}

export interface QueuedJob extends EnqueueJob {
  id: string;
  attempts: number;
}

export type JobHandler = (job: QueuedJob) => Promise<void>;

export interface QueueOptions {
  /** Jobs run at once by this instance. */
  concurrency: number;
  /** How long a claimed target stays leased without renewal. */
  leaseMs: number;
  pollMs?: number;
  /** The lease owner id (default: a random one). */
  instanceId?: string;
  /** Free all leases at start: true only when this server is alone on its database (SQLite). */
  releaseLeasesAtStart?: boolean;
  log?: (msg: string, err?: unknown) => void;
}

export const MAX_ATTEMPTS = 5;
/** How long a job waiting for a custom response is reserved for the instance that took the request. */
export const AFFINITY_MS = 10_000;

export class DurableQueue implements InvocationQueue {
  /** The lease owner this instance writes (its presence name on PostgreSQL, server/cluster/). */
  readonly instanceId: string;
  private readonly handlers = new Map<string, JobHandler>();
  private readonly running = new Map<string, Promise<void>>();
  /** Jobs reserved for this instance (custom responses), by id → target. */
  private readonly local = new Map<string, string>();
  /** When this instance last started a job of each target (round robin between targets). */
  private readonly lastServed = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private pumping = false;
  private again = false;
  private stopped = true;

  constructor(
    private readonly repo: JobsRepo,
    private readonly options: QueueOptions,
  ) {
    this.instanceId = options.instanceId ?? randomUUID();
  }

  /** Registers the handler of a target kind by id prefix (`dc_`, `p_`). */
  registerHandler(prefix: string, handler: JobHandler): void {
    this.handlers.set(prefix, handler);
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
    const ids = await this.repo.enqueue(
      jobs.map((j) => ({
        targetId: j.targetId,
        ownerId: j.ownerId,
        trigger: j.trigger,
        payload: JSON.stringify({ event: j.event ?? null, origin: j.origin, respondTo: j.respondTo }),
        runAfter: j.respondTo ? now + AFFINITY_MS : now,
      })),
    );
    ids.forEach((id, i) => {
      if (jobs[i]!.respondTo) this.local.set(id, jobs[i]!.targetId);
    });
    this.kick();
    return ids;
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
    await Promise.allSettled([...this.running.values()]);
  }

  /** Looks for work now (after an enqueue, or when a job ends). */
  kick(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    this.pump()
      .catch((err) => this.options.log?.("invocation queue: polling failed", err))
      .finally(() => {
        this.pumping = false;
        if (this.again) {
          this.again = false;
          this.kick();
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
    if (free <= 0) return;
    const now = Date.now();
    const ready = await this.repo.readyTargets(now, Math.max(100, free + this.running.size));
    const targets = [...new Set([...this.local.values()].concat(ready))].sort(
      (a, b) => (this.lastServed.get(a) ?? 0) - (this.lastServed.get(b) ?? 0),
    );
    let started = 0;
    for (const target of targets) {
      if (started >= free || this.stopped) break;
      if (this.running.has(target)) continue;
      if (!(await this.repo.claimTarget(target, this.instanceId, now, now + this.options.leaseMs))) continue;
      const head = await this.repo.head(target);
      if (!head) for (const [id, t] of this.local) if (t === target) this.local.delete(id);
      if (!head || (head.run_after > Date.now() && !this.local.has(head.id))) {
        await this.repo.release(target, this.instanceId);
        continue;
      }
      started += 1;
      this.noteServed(target);
      const run = this.run(head).finally(() => {
        this.running.delete(target);
        this.kick();
      });
      this.running.set(target, run);
    }
  }

  private noteServed(target: string): void {
    this.lastServed.delete(target);
    this.lastServed.set(target, Date.now());
    // Insertion order is service order: the oldest entries are the least useful to keep.
    while (this.lastServed.size > 10_000) this.lastServed.delete(this.lastServed.keys().next().value!);
  }

  private async run(row: JobRow): Promise<void> {
    this.local.delete(row.id);
    const renew = setInterval(
      () => {
        this.repo.extendLease(row.target_id, this.instanceId, Date.now() + this.options.leaseMs).catch(() => undefined);
      },
      Math.max(1000, Math.floor(this.options.leaseMs / 3)),
    );
    renew.unref();
    try {
      const handler = [...this.handlers].find(([prefix]) => row.target_id.startsWith(prefix))?.[1];
      if (!handler) {
        this.options.log?.(`invocation queue: no handler for ${row.target_id}; job dropped`);
        await this.repo.complete(row, this.instanceId);
        return;
      }
      const payload = JSON.parse(row.payload) as { event: unknown; origin?: InvocationJob["origin"]; respondTo?: string };
      try {
        await handler({
          id: row.id,
          targetId: row.target_id,
          ownerId: row.owner_id,
          trigger: row.trigger as InvocationJob["trigger"],
          event: payload.event,
          origin: payload.origin,
          respondTo: payload.respondTo,
          attempts: row.attempts,
        });
      } catch (err) {
        if (err instanceof PlatformFailure && row.attempts + 1 < MAX_ATTEMPTS) {
          const backoff = Math.min(60_000, 1000 * 2 ** row.attempts);
          this.options.log?.(`invocation queue: ${row.target_id} failed (${err.message}); retry in ${backoff} ms`);
          await this.repo.retryLater(row, this.instanceId, Date.now() + backoff);
          return;
        }
        this.options.log?.(`invocation queue: job of ${row.target_id} failed`, err);
      }
      await this.repo.complete(row, this.instanceId);
    } finally {
      clearInterval(renew);
    }
  }
}
