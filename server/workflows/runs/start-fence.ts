/**
 * The moment a run's steps start, and the cancel that races it (decisions.md "Runs under faults":
 * a cancel answered 200 guarantees that no step of the run starts after it; a run whose first
 * step has started is 409). The runner passes the fence right before it hands a run's steps to
 * the sandbox, for every part of a run (its first start, a retry, the steps after a delay), and
 * however long the job sat in a batch read before: what it read then may be stale, the fence
 * is not.
 *
 * - PostgreSQL, where a cancel may come from any instance: the start is a transaction that locks
 *   the run's job and records the run `running` only if it still waits; a cancel deletes the
 *   job and records `cancelled` only if it still waits, taking the same locks in the same order.
 *   Whichever commits first wins, and the run shows `running` from its first step.
 * - SQLite, where one server owns the database: the start and the cancel meet in memory (no write
 *   on the run's path). A cancel begun before the start is waited for; one that begins after it
 *   is refused; one that committed before is seen by a read of the job, which it deleted.
 */
import type { Db } from "../../store/db.js";
import { jobExists } from "../../store/repos/job-lookups.js";
import { startRunFenced, type RunRow } from "../../store/repos/runs.js";

export interface StartFence {
  /**
   * Right before a run's steps start (of each part of it): false when the run was cancelled or
   * its job is gone meanwhile, and nothing may start. `row` is the run as it starts.
   */
  enter(jobId: string, row: RunRow): Promise<boolean>;
  /** The run's part ended (committed, failed or let go): it is no longer starting here. */
  leave(runId: string): void;
  /**
   * When the run's steps started in this process, while they run (a run whose row still says
   * `queued`, or that is only its job, is shown `running` from then); undefined otherwise.
   */
  running(runId: string): number | undefined;
  /** Runs a cancel's transaction unless the run has started; "started" when it has. */
  cancel<T>(runId: string, write: () => Promise<T>): Promise<T | "started">;
  /** Whether `enter` records the run `running` (else the runner writes that row itself, later). */
  readonly recordsStart: boolean;
}

/** SQLite's: see the file's comment. */
export class LocalStartFence implements StartFence {
  readonly recordsStart = false;
  /** Runs past the fence, not yet ended, and when they started. */
  private readonly started = new Map<string, number>();
  private readonly cancelling = new Map<string, Promise<unknown>>();

  constructor(private readonly db: Db) {}

  async enter(jobId: string, row: RunRow): Promise<boolean> {
    // Marked before anything is awaited: a cancel that begins from here on is refused.
    this.started.set(row.id, Number(row.started_ms ?? Date.now()));
    const pending = this.cancelling.get(row.id);
    if (pending) await pending.catch(() => undefined);
    // A cancel that committed (before, or while this waited) deleted the job.
    if (await jobExists(this.db, jobId)) return true;
    this.started.delete(row.id);
    return false;
  }

  leave(runId: string): void {
    this.started.delete(runId);
  }

  running(runId: string): number | undefined {
    return this.started.get(runId);
  }

  async cancel<T>(runId: string, write: () => Promise<T>): Promise<T | "started"> {
    if (this.started.has(runId)) return "started";
    const done = write();
    this.cancelling.set(runId, done);
    try {
      return await done;
    } finally {
      if (this.cancelling.get(runId) === done) this.cancelling.delete(runId);
    }
  }
}

/** PostgreSQL's: see the file's comment. */
export class SharedStartFence implements StartFence {
  readonly recordsStart = true;

  constructor(private readonly db: Db) {}

  enter(jobId: string, row: RunRow): Promise<boolean> {
    return startRunFenced(this.db, jobId, row);
  }

  leave(): void {}

  running(): undefined {
    return undefined;
  }

  cancel<T>(_runId: string, write: () => Promise<T>): Promise<T> {
    return write();
  }
}

export const startFenceFor = (db: Db, dialect: "sqlite" | "postgres"): StartFence =>
  dialect === "postgres" ? new SharedStartFence(db) : new LocalStartFence(db);
