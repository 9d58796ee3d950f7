/**
 * The durable invocation queue. A job is a row until it has run. "One job at a time per target,
 * in order" is held by a lease on the target's `job_targets` row, taken with a compare-and-set
 * UPDATE (works the same on SQLite and PostgreSQL, and across server instances).
 */
import { sql, type Kysely, type Selectable, type Transaction } from "kysely";
import { bulkInsert } from "../bulk.js";
import type { Db } from "../db.js";
import { prepared, type PreparedQuery } from "../prepared.js";
import { WriteGroup } from "../write-group.js";
import type { Database } from "../schema.js";
import type { JobsTable } from "../tables/runtime.js";

export type JobRow = Selectable<JobsTable>;

export interface NewJob {
  targetId: string;
  ownerId: string;
  trigger: string;
  payload: string;
  /** Its id, given before the insert (newJobId): a job handed to its runner while it commits (queue.ts). */
  id?: string;
  /** Not before this time (default: now). */
  runAfter?: number;
  /**
   * Sorts among its target's jobs by this time instead of enqueue order. For a target whose jobs
   * all have one (emits held until their delivery_ts), they are listed in the order they become
   * due: the first due is at the head, none waits behind a later one. Never mixed with jobs
   * without it on one target.
   */
  sortAt?: number;
}

let lastMs = 0;
let seq = 0;

/** An id that sorts in enqueue order (ms, then a per-process sequence, then randomness). */
export function newJobId(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    seq = 0;
  } else seq += 1;
  const rand = Math.random().toString(36).slice(2, 8).padEnd(6, "0");
  return `${String(lastMs).padStart(15, "0")}-${String(seq).padStart(6, "0")}-${rand}`;
}

let sortedSeq = 0;

/**
 * An id that sorts at `ms`, leaving newJobId's clock alone. Fifteen digits like newJobId's, so
 * ready targets are taken oldest first whichever kind their head is (a wider id would sort every
 * held emit before all other work); callers keep `ms` below 1e15 (delayed-emits.ts MAX_TIME).
 */
export function jobIdAt(ms: number): string {
  sortedSeq = (sortedSeq + 1) % 1_000_000;
  const rand = Math.random().toString(36).slice(2, 8).padEnd(6, "0");
  return `${String(Math.max(0, Math.floor(ms))).padStart(15, "0")}-${String(sortedSeq).padStart(6, "0")}-${rand}`;
}

/** Rows per multi-row INSERT (8 parameters a row stays far below every dialect's limit). */
const INSERT_CHUNK = 200;

/** Inserts jobs (and their targets' lease rows) inside the caller's transaction. */
export async function insertJobs(
  trx: Kysely<Database> | Transaction<Database>,
  jobs: NewJob[],
  now = Date.now(),
): Promise<string[]> {
  const rows = jobs.map((job) => ({
    id: job.id ?? (job.sortAt === undefined ? newJobId(now) : jobIdAt(job.sortAt)),
    target_id: job.targetId,
    owner_id: job.ownerId,
    trigger: job.trigger,
    payload: job.payload,
    attempts: 0,
    run_after: job.runAfter ?? now,
    created_ms: now,
  }));
  if (rows.length === 1) await insertOne.execute(trx, rows[0]!);
  else {
    for (let i = 0; i < rows.length; i += INSERT_CHUNK)
      await insertMany(trx, rows.slice(i, i + INSERT_CHUNK));
  }
  // Sorted: two instances inserting the same new targets' rows never wait on each other in a cycle.
  const targets = [...new Set(jobs.map((j) => j.targetId))].sort();
  if (targets.length === 1) {
    await addTarget.execute(trx, { target: targets[0]! });
    return rows.map((r) => r.id);
  }
  for (let i = 0; i < targets.length; i += INSERT_CHUNK) {
    await trx
      .insertInto("job_targets")
      .values(
        targets
          .slice(i, i + INSERT_CHUNK)
          .map((target_id) => ({ target_id, lease_owner: null, lease_until: 0 })),
      )
      .onConflict((oc) => oc.column("target_id").doNothing())
      .execute();
  }
  return rows.map((r) => r.id);
}

// Statements of every batch a runner takes (hot path: built once; see prepared.ts).
const headsBy = new Map<number, PreparedQuery<{ target: string }, JobRow>>();
/**
 * The target's oldest jobs. The limit is part of the SQL: a bound LIMIT made SQLite's lookup of
 * an empty target four times slower (measured); there are only a few limits (the handlers' batch
 * sizes, and those plus a power of two: queue.ts headsPast).
 */
function headsOf(limit: number) {
  const n = Math.max(1, Math.floor(limit));
  let query = headsBy.get(n);
  if (!query) {
    query = prepared((db, $: { target: string }) =>
      db.selectFrom("jobs").selectAll().where("target_id", "=", $.target).orderBy("id").limit(sql.lit(n)),
    );
    headsBy.set(n, query);
  }
  return query;
}
const releaseLease = prepared((db, $: { target: string; owner: string }) =>
  db
    .updateTable("job_targets")
    .set({ lease_owner: null, lease_until: 0 })
    .where("target_id", "=", $.target)
    .where("lease_owner", "=", $.owner),
);
const claimLease = prepared((db, $: { target: string; owner: string; now: number; until: number }) =>
  db
    .updateTable("job_targets")
    .set({ lease_owner: $.owner, lease_until: $.until })
    .where("target_id", "=", $.target)
    .where("lease_until", "<=", $.now),
);
/** One job (an HTTP request alone in its turn): built once too. */
const insertOne = prepared((db, $: JobRow) =>
  db.insertInto("jobs").values({
    id: $.id,
    target_id: $.target_id,
    owner_id: $.owner_id,
    trigger: $.trigger,
    payload: $.payload,
    attempts: $.attempts,
    run_after: $.run_after,
    created_ms: $.created_ms,
  }),
);
/**
 * A multi-row insert of the turn's jobs (the requests of one turn are enqueued together), its SQL
 * built once per row count (store/bulk.ts).
 */
const insertMany = bulkInsert("jobs", [
  "id",
  "target_id",
  "owner_id",
  "trigger",
  "payload",
  "attempts",
  "run_after",
  "created_ms",
]);
const addTarget = prepared((db, $: { target: string }) =>
  db
    .insertInto("job_targets")
    .values({ target_id: $.target, lease_owner: null, lease_until: 0 })
    .onConflict((oc) => oc.column("target_id").doNothing()),
);

interface EnqueueWaiter {
  jobs: NewJob[];
  resolve: (ids: string[]) => void;
  reject: (err: unknown) => void;
}

/** Jobs per grouped commit at most; more wait for the next one. */
const MAX_GROUP = 1000;

export class JobsRepo {
  private waiting: EnqueueWaiter[] = [];
  private committing = false;

  constructor(
    private readonly db: Db,
    /** Groups job completions with other small writes of the same turn (SQLite). */
    private readonly writes: WriteGroup = new WriteGroup(db, false),
  ) {}

  /** Whether other enqueues are committing or waiting: one more joins their commits at little cost. */
  get enqueueing(): boolean {
    return this.committing || this.waiting.length > 0;
  }

  /**
   * Durable once this resolves. Enqueues made in the same turn of the event loop, or while a
   * commit is running, are grouped into the next transaction (group commit, as the event store's
   * append): one for many HTTP requests instead of one each (measured before: one commit per
   * request under 32 concurrent POSTs). Ids keep arrival order.
   */
  enqueue(jobs: NewJob[]): Promise<string[]> {
    if (jobs.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.waiting.push({ jobs, resolve, reject });
      this.commitNext();
    });
  }

  private commitNext(): void {
    if (this.committing || this.waiting.length === 0) return;
    this.committing = true;
    void this.commitGroup().finally(() => {
      this.committing = false;
      this.commitNext();
    });
  }

  private async commitGroup(): Promise<void> {
    let group: EnqueueWaiter[] | undefined;
    let ids: string[];
    try {
      // Taken when the transaction runs (after this turn); kept if it runs again alone.
      ids = await this.writes.run((trx) =>
        insertJobs(
          trx,
          (group ??= this.takeGroup()).flatMap((w) => w.jobs),
        ),
      );
    } catch (err) {
      group ??= this.takeGroup();
      if (group.length === 1) group[0]!.reject(err);
      // One caller's failure is not the others': each is tried again alone.
      else
        for (const w of group)
          await this.db
            .transaction()
            .execute((trx) => insertJobs(trx, w.jobs))
            .then(w.resolve, w.reject);
      return;
    }
    let at = 0;
    for (const w of group!) {
      w.resolve(ids.slice(at, at + w.jobs.length));
      at += w.jobs.length;
    }
  }

  private takeGroup(): EnqueueWaiter[] {
    let n = 0;
    let take = 0;
    while (take < this.waiting.length && (take === 0 || n + this.waiting[take]!.jobs.length <= MAX_GROUP)) {
      n += this.waiting[take]!.jobs.length;
      take += 1;
    }
    return this.waiting.splice(0, take);
  }

  /**
   * Targets whose first job may run now and whose lease is free, longest-waiting first. Only a
   * target's first job is looked at: its jobs run in order, and one not yet due holds the rest
   * (`runnable`), so a target of 10,000 runs delayed for an hour costs one probe of the
   * (target_id, id) index here, not a read of each of its jobs (1.25 ms a call, measured, at
   * every look for work). Driven from `job_targets` (one row per target), so its cost follows
   * the number of targets, not the backlog.
   */
  async readyTargets(now: number, limit: number): Promise<string[]> {
    const rows = await this.db
      .selectFrom("job_targets")
      .innerJoin("jobs as head", (join) =>
        join.on((eb) =>
          eb(
            "head.id",
            "=",
            eb
              .selectFrom("jobs")
              .select("jobs.id")
              .whereRef("jobs.target_id", "=", "job_targets.target_id")
              .orderBy("jobs.id")
              .limit(1),
          ),
        ),
      )
      .select("job_targets.target_id")
      .where("job_targets.lease_until", "<=", now)
      .where("head.run_after", "<=", now)
      .orderBy("head.id")
      .limit(limit)
      .execute();
    return rows.map((r) => r.target_id);
  }

  /** Takes the target's lease if it is free. True when this caller now holds it. */
  async claimTarget(targetId: string, owner: string, now: number, leaseUntil: number): Promise<boolean> {
    return (await claimLease.affected(this.db, { target: targetId, owner, now, until: leaseUntil })) === 1;
  }

  async extendLease(targetId: string, owner: string, leaseUntil: number): Promise<void> {
    await this.db
      .updateTable("job_targets")
      .set({ lease_until: leaseUntil })
      .where("target_id", "=", targetId)
      .where("lease_owner", "=", owner)
      .execute();
  }

  async release(targetId: string, owner: string): Promise<void> {
    await releaseLease.execute(this.db, { target: targetId, owner });
  }

  /** The target's oldest jobs, in order (the first runs first, even when it waits for a retry). */
  async heads(targetId: string, limit: number): Promise<JobRow[]> {
    return headsOf(limit).rows(this.db, { target: targetId });
  }

  /**
   * These jobs of the target have run (or were given up): they go, and in the same transaction
   * the lease is given back, unless `keepLease` (the holder goes on with the target).
   */
  async finish(
    targetId: string,
    ids: string[],
    owner: string,
    opts: { keepLease?: boolean } = {},
  ): Promise<void> {
    await this.writes.run(async (trx) => {
      for (let i = 0; i < ids.length; i += INSERT_CHUNK) {
        await trx
          .deleteFrom("jobs")
          .where("id", "in", ids.slice(i, i + INSERT_CHUNK))
          .execute();
      }
      if (!opts.keepLease) await releaseLease.execute(trx, { target: targetId, owner });
    });
  }

  /** A platform failure: try the job again later, keeping its place at the head of its target. */
  async retryLater(job: JobRow, owner: string, runAfter: number): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .updateTable("jobs")
        .set({ attempts: job.attempts + 1, run_after: runAfter })
        .where("id", "=", job.id)
        .execute();
      await trx
        .updateTable("job_targets")
        .set({ lease_owner: null, lease_until: 0 })
        .where("target_id", "=", job.target_id)
        .where("lease_owner", "=", owner)
        .execute();
    });
  }

  /**
   * Frees every lease. Only for a server that knows it is alone on its database (SQLite):
   * leases left by a crashed run of it are then stale for sure.
   */
  async releaseAll(): Promise<void> {
    await this.db
      .updateTable("job_targets")
      .set({ lease_owner: null, lease_until: 0 })
      .where("lease_until", ">", 0)
      .execute();
  }

  /** Forgets every job of a deleted target. */
  async dropTarget(targetId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("jobs").where("target_id", "=", targetId).execute();
      await trx.deleteFrom("job_targets").where("target_id", "=", targetId).execute();
    });
  }
}

/** Jobs waiting or running, and when the oldest was made (`/metrics`: queue depth and age). */
export async function queueStats(db: Db): Promise<{ jobs: number; oldestCreatedMs: number | undefined }> {
  const row = await db
    .selectFrom("jobs")
    .select(({ fn }) => [fn.countAll().as("n"), fn.min("created_ms").as("oldest")])
    .executeTakeFirst();
  const oldest = row?.oldest;
  return {
    jobs: Number(row?.n ?? 0),
    oldestCreatedMs: oldest === null || oldest === undefined ? undefined : Number(oldest),
  };
}
