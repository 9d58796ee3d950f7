/**
 * A workflow run's data store writes happen once per attempt, crashes or not (issue 48: "a
 * server killed with kill -9 during increments loses no acknowledged increment and doubles
 * none"). A run cut short by a crash is run again after the restart as the SAME attempt (its job
 * comes back as it was: the queue's `resume.attempt` is unchanged), so its code makes the same
 * calls again. Each write of a step carries a call key (run, attempt, step, the write's place
 * among the step's writes); the key and what the write answered are recorded in the write's own
 * transaction, and a write whose key is recorded answers that again without writing.
 *
 * Which attempt: the queue keeps a crashed run's job as it was (its lease is released at start
 * on SQLite, taken over when it runs out on PostgreSQL), and the job's `resume.attempt` (1 for a
 * first attempt) is what the run's record calls its attempt. The queue's own `attempts` counts
 * failures of the platform (the sandbox worker died, the database refused a step) and is not in
 * the key: a run retried for those is the same attempt, cut short like a crash, and does not
 * write twice either. A source's run has no retry policy: its key is its job's id, attempt 1.
 *
 * A retry by the workflow's retry policy (the step threw) is a NEW attempt: the user's code runs
 * again on purpose, and its writes are made again. A re-run is a new run. Calls without a key
 * (sources' runs, test runs, the API) write as before.
 *
 * A run's keys are forgotten when its part ends (its results committed: it never runs again),
 * and any left (a run that never ended) after a day, so the table stays small.
 */
import type { CallKey, DataStoreCallsRepo } from "../store/repos/data-store-calls.js";
import type { RecordOps } from "./records.js";

/** Keys older than this are swept (no run part lasts so long; a run waiting on a delay has none). */
export const CALL_KEYS_KEPT_MS = 86_400_000;

/** How long the keys of ended runs wait to be deleted together, and how many at most. */
const FORGET_AFTER_MS = 1000;
const FORGET_AT_MOST = 500;

export class OnceWrites {
  constructor(
    private readonly ops: RecordOps,
    private readonly calls: DataStoreCallsRepo,
  ) {}

  /**
   * Runs `write` (its answer JSON) once for `key`: the write and its record in one transaction
   * (or `oneStatement`, undefined when it cannot); recorded already, the recorded answer. No
   * key: the write as it is.
   */
  async run(
    key: CallKey | undefined,
    write: (ops: RecordOps) => Promise<unknown>,
    oneStatement?: (key: CallKey) => Promise<unknown>,
  ): Promise<unknown> {
    if (!key) return write(this.ops);
    try {
      // The write and its record in one statement, where it can be (an increment on PostgreSQL).
      const done = oneStatement && (await oneStatement(key));
      if (done !== undefined) return done;
      return await this.ops.stores.transaction(async (trx) => {
        const value = (await write(this.ops.on(trx))) ?? null;
        await this.calls.record(key, JSON.stringify(value), Date.now(), trx);
        return value;
      });
    } catch (err) {
      // Made before (the run runs again after a crash), or at the same time elsewhere (two
      // instances running one job after a lease ran out): the key's record refused this one,
      // or the write itself failed where it had succeeded (the key since changed), and nothing
      // of it stayed. The first one's answer is this one's. Not looked up first: a write made
      // for the first time (nearly all) costs no read.
      const recorded = await this.calls.find(key);
      if (recorded === undefined) throw err;
      return JSON.parse(recorded) as unknown;
    }
  }

  private forgetting: string[] = [];
  private forgetTimer: NodeJS.Timeout | undefined;

  /**
   * Runs' parts ended (their results stored): their keys are not needed again. Deleted together
   * within FORGET_AFTER_MS, in one statement (one per run cost a busy workflow a third of its
   * speed on PostgreSQL); what a stop leaves is swept a day on.
   */
  forgetRuns(runIds: string[]): void {
    this.forgetting.push(...runIds);
    if (this.forgetting.length >= FORGET_AT_MOST) void this.flush();
    else this.forgetTimer ??= setTimeout(() => void this.flush(), FORGET_AFTER_MS).unref();
  }

  /** Deletes the keys of the runs told so far (now: the server stops). */
  async flush(): Promise<void> {
    if (this.forgetTimer) clearTimeout(this.forgetTimer);
    this.forgetTimer = undefined;
    const ids = this.forgetting.splice(0);
    if (ids.length > 0) await this.calls.forgetRuns(ids).catch(() => undefined);
  }

  /** Forgets the keys of runs that never ended, a day on. */
  sweep(nowMs = Date.now()): Promise<number> {
    return this.calls.sweep(nowMs - CALL_KEYS_KEPT_MS);
  }
}
