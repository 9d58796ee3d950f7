/**
 * Active workflows' schedules with their next tick (0015). Each tick is claimed with `UPDATE
 * workflow_schedules SET next_run_at = <next> WHERE workflow_id = ? AND idx = ? AND next_run_at =
 * <seen>`: of several servers that saw the same due row, exactly one updates it, and that one
 * enqueues the tick's run in the same transaction (as timers.ts does for sources).
 */
import type { Kysely, Selectable } from "kysely";
import type { Db } from "../db.js";
import type { Database } from "../schema.js";
import type { WorkflowSchedulesTable } from "../tables/events.js";
import { insertJobs, type NewJob } from "./jobs.js";

type Exec = Kysely<Database>;
export type WorkflowScheduleRow = Selectable<WorkflowSchedulesTable>;

export async function replaceSchedulesIn(
  trx: Exec,
  workflowId: string,
  rows: WorkflowScheduleRow[],
): Promise<void> {
  await trx.deleteFrom("workflow_schedules").where("workflow_id", "=", workflowId).execute();
  if (rows.length > 0) await trx.insertInto("workflow_schedules").values(rows).execute();
}

export async function schedulesOfWorkflow(db: Exec, workflowId: string): Promise<WorkflowScheduleRow[]> {
  return db
    .selectFrom("workflow_schedules")
    .selectAll()
    .where("workflow_id", "=", workflowId)
    .orderBy("idx")
    .execute();
}

export class WorkflowSchedulesRepo {
  constructor(private readonly db: Db) {}

  async due(now: number, limit: number): Promise<WorkflowScheduleRow[]> {
    return this.db
      .selectFrom("workflow_schedules")
      .selectAll()
      .where("next_run_at", "<=", now)
      .orderBy("next_run_at")
      .limit(limit)
      .execute();
  }

  async nextDue(): Promise<number | undefined> {
    const row = await this.db
      .selectFrom("workflow_schedules")
      .select(({ fn }) => fn.min("next_run_at").as("m"))
      .executeTakeFirst();
    return row?.m == null ? undefined : Number(row.m);
  }

  /** Claims the tick `row.next_run_at` by moving it to `nextRunAt`; the winner's run is enqueued with it. */
  async claimTick(row: WorkflowScheduleRow, nextRunAt: number, job: NewJob): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const res = await trx
        .updateTable("workflow_schedules")
        .set({ next_run_at: nextRunAt })
        .where("workflow_id", "=", row.workflow_id)
        .where("idx", "=", row.idx)
        .where("next_run_at", "=", row.next_run_at)
        .executeTakeFirst();
      if (Number(res.numUpdatedRows) !== 1) return false;
      await insertJobs(trx, [job]);
      return true;
    });
  }
}
