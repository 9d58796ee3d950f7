/**
 * The data store writes of workflow runs, by call key (data-stores/once.ts): what each answered,
 * so that the same call of a run made again after a crash answers it again instead of writing.
 */
import type { Db } from "../db.js";

/** A write's call key: the run, its attempt, the step, the write's place among the step's. */
export interface CallKey {
  runId: string;
  attempt: number;
  step: number;
  ordinal: number;
}

const where = (k: CallKey) => ({ run_id: k.runId, attempt: k.attempt, step: k.step, ordinal: k.ordinal });

export class DataStoreCallsRepo {
  constructor(private readonly db: Db) {}

  /** What the call answered (JSON text), if it was made. */
  async find(key: CallKey, db: Db = this.db): Promise<string | undefined> {
    const w = where(key);
    const row = await db
      .selectFrom("data_store_calls")
      .select("result")
      .where("run_id", "=", w.run_id)
      .where("attempt", "=", w.attempt)
      .where("step", "=", w.step)
      .where("ordinal", "=", w.ordinal)
      .executeTakeFirst();
    return row?.result;
  }

  /** Records the call; in the write's transaction. A key recorded already: a unique violation. */
  async record(key: CallKey, result: string, nowMs: number, db: Db): Promise<void> {
    await db
      .insertInto("data_store_calls")
      .values({ ...where(key), result, created_ms: nowMs })
      .execute();
  }

  /** Forgets runs' calls (their parts ended: they are not made again). */
  async forgetRuns(runIds: string[]): Promise<void> {
    await this.db.deleteFrom("data_store_calls").where("run_id", "in", runIds).execute();
  }

  /** Forgets calls recorded before `beforeMs` (runs that never ended); how many. */
  async sweep(beforeMs: number): Promise<number> {
    const res = await this.db
      .deleteFrom("data_store_calls")
      .where("created_ms", "<", beforeMs)
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }
}
