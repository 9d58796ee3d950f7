/**
 * What the runs stream reads of runs other instances changed (workflows/runs/changes.ts): first
 * only each changed run's id and version (`updated_ms`, from the runs' one index), a page at a
 * time in (updated_ms, id) order, so that any number of changes in the window is read through;
 * then the rows of the versions not told yet, by id.
 */
import type { Db } from "../db.js";
import type { RunRow } from "./runs.js";

export interface RunVersion {
  id: string;
  updated_ms: number;
}

/** A workflow's runs changed after `sinceMs`, after `after` in (updated_ms, id) order. */
export async function runVersionsSince(
  db: Db,
  workflowId: string,
  sinceMs: number,
  after: RunVersion | undefined,
  limit: number,
): Promise<RunVersion[]> {
  let q = db
    .selectFrom("runs")
    .select(["id", "updated_ms"])
    .where("workflow_id", "=", workflowId)
    .where("updated_ms", ">", sinceMs);
  if (after)
    q = q.where((eb) =>
      eb.or([
        eb("updated_ms", ">", after.updated_ms),
        eb.and([eb("updated_ms", "=", after.updated_ms), eb("id", ">", after.id)]),
      ]),
    );
  const rows = await q.orderBy("updated_ms", "asc").orderBy("id", "asc").limit(limit).execute();
  return rows.map((r) => ({ id: r.id, updated_ms: Number(r.updated_ms) }));
}

/** The rows of these runs of a workflow (those still there). */
export async function runsOfIds(db: Db, workflowId: string, ids: readonly string[]): Promise<RunRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom("runs").selectAll().where("workflow_id", "=", workflowId).where("id", "in", ids).execute();
}
