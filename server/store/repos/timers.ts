/**
 * Armed timers. Each tick is claimed with `UPDATE timers SET next_run_at = <next> WHERE
 * source_id = ? AND next_run_at = <seen>`: of several servers that saw the same due row, exactly
 * one updates it, and that one enqueues the tick's job in the same transaction.
 */
import type { Selectable } from "kysely";
import type { Db } from "../db.js";
import type { TimersTable } from "../tables/runtime.js";
import { insertJobs, type NewJob } from "./jobs.js";

export type TimerRow = Selectable<TimersTable>;

export class TimersRepo {
  constructor(private readonly db: Db) {}

  async arm(row: Omit<TimerRow, "updated_ms">): Promise<void> {
    const updated_ms = Date.now();
    await this.db
      .insertInto("timers")
      .values({ ...row, updated_ms })
      .onConflict((oc) =>
        oc.column("source_id").doUpdateSet({
          owner_id: row.owner_id,
          interval_seconds: row.interval_seconds,
          cron: row.cron,
          next_run_at: row.next_run_at,
          updated_ms,
        }),
      )
      .execute();
  }

  async disarm(sourceId: string): Promise<void> {
    await this.db.deleteFrom("timers").where("source_id", "=", sourceId).execute();
  }

  async get(sourceId: string): Promise<TimerRow | undefined> {
    return this.db.selectFrom("timers").selectAll().where("source_id", "=", sourceId).executeTakeFirst();
  }

  async due(now: number, limit: number): Promise<TimerRow[]> {
    return this.db.selectFrom("timers").selectAll().where("next_run_at", "<=", now).orderBy("next_run_at").limit(limit).execute();
  }

  async nextDue(): Promise<number | undefined> {
    const row = await this.db.selectFrom("timers").select(({ fn }) => fn.min("next_run_at").as("m")).executeTakeFirst();
    return row?.m == null ? undefined : Number(row.m);
  }

  /**
   * Claims the tick `row.next_run_at` by moving it to `nextRunAt`; when this caller wins, the
   * job is enqueued in the same transaction (unless a tick of the source is still waiting, so a
   * slow source does not pile up ticks). True when this caller fired the tick.
   */
  async claimTick(row: TimerRow, nextRunAt: number, job: NewJob): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable("timers")
        .set({ next_run_at: nextRunAt })
        .where("source_id", "=", row.source_id)
        .where("next_run_at", "=", row.next_run_at)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      const waiting = await trx
        .selectFrom("jobs")
        .select("id")
        .where("target_id", "=", job.targetId)
        .where("trigger", "=", job.trigger)
        .limit(1)
        .executeTakeFirst();
      if (!waiting) await insertJobs(trx, [job]);
      return true;
    });
  }
}
