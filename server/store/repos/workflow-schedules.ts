/**
 * Active workflows' schedules with their next tick (0015). Each tick is claimed with `UPDATE
 * workflow_schedules SET next_run_at = <next> WHERE workflow_id = ? AND idx = ? AND next_run_at =
 * <seen>`: of several servers that saw the same due row, exactly one updates it, and that one
 * enqueues the tick's run in the same transaction (as timers.ts does for sources). The ticks due
 * together are claimed in one transaction (1,000 workflows on one cron are due at once: one
 * commit, not 1,000), in one order (due time, workflow, index) on every server, so that two
 * servers claiming the same rows on PostgreSQL wait for each other rather than deadlock.
 */
import type { Kysely, Selectable } from "kysely";
import type { Db } from "../db.js";
import { prepared } from "../prepared.js";
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

/** A due tick to claim: its row as seen, its next tick, and its run's job. */
export interface TickClaim {
  row: WorkflowScheduleRow;
  nextRunAt: number;
  job: NewJob;
}

/**
 * One tick's compare-and-set, built once: a tick of 1,000 workflows on one cron runs it 1,000
 * times, and building it each time cost more than running it.
 */
const claimTick = prepared((db, $: { id: string; idx: number; seen: number; next: number }) =>
  db
    .updateTable("workflow_schedules")
    .set({ next_run_at: $.next })
    .where("workflow_id", "=", $.id)
    .where("idx", "=", $.idx)
    .where("next_run_at", "=", $.seen),
);

export class WorkflowSchedulesRepo {
  constructor(private readonly db: Db) {}

  async due(now: number, limit: number): Promise<WorkflowScheduleRow[]> {
    return this.db
      .selectFrom("workflow_schedules")
      .selectAll()
      .where("next_run_at", "<=", now)
      .orderBy("next_run_at")
      .orderBy("workflow_id")
      .orderBy("idx")
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

  /**
   * Claims each tick `row.next_run_at` by moving it to `nextRunAt`, in one transaction; the runs
   * of the ticks this caller won are enqueued in it. Answers the claims won.
   */
  async claimTicks(claims: TickClaim[]): Promise<TickClaim[]> {
    if (claims.length === 0) return [];
    return this.db.transaction().execute(async (trx) => {
      const won: TickClaim[] = [];
      for (const c of claims) {
        const args = { id: c.row.workflow_id, idx: c.row.idx, seen: c.row.next_run_at, next: c.nextRunAt };
        if ((await claimTick.affected(trx, args)) === 1) won.push(c);
      }
      if (won.length > 0)
        await insertJobs(
          trx,
          won.map((c) => c.job),
        );
      return won;
    });
  }
}
