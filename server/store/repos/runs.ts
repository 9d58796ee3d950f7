/**
 * Workflow runs repository (decisions.md "Workflow runs"). Every read is scoped to the owner
 * and the workflow. A run is written as `running` when it starts (insert-or-ignore: a late start
 * never overwrites a finished run) and whole in its results' transaction (an upsert, fenced
 * there by its job's delete: applyCompletions).
 */
import type { Db } from "../db.js";
import type { RunsTable } from "../tables/events.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";

export type RunRow = RunsTable;

/** A re-run waiting in the queue. */
export async function insertQueuedRun(db: Db, row: RunRow): Promise<void> {
  await db.insertInto("runs").values(row).execute();
}

/** Statuses a run may leave for `running`: it waits, or an earlier start of it died (kill -9). */
const STARTABLE = ["queued", "running", "retrying", "delayed"];

/** The row of a run that starts: a finished run's row is left as it is (a late duplicate start). */
export async function recordRunStart(db: Db, row: RunRow): Promise<void> {
  await db
    .insertInto("runs")
    .values(row)
    .onConflict((oc) =>
      oc
        .column("id")
        .doUpdateSet({
          status: row.status,
          started_ms: row.started_ms,
          updated_ms: row.updated_ms,
          steps_json: row.steps_json,
          attempt: row.attempt,
        })
        .where("runs.status", "in", STARTABLE),
    )
    .execute();
}

/** The run as it ended, in its results' transaction. */
export async function saveRunIn(trx: Db, row: RunRow): Promise<void> {
  const { id: _id, created_ms: _created, ...rest } = row;
  await trx
    .insertInto("runs")
    .values(row)
    .onConflict((oc) => oc.column("id").doUpdateSet(rest))
    .execute();
}

export async function getRun(
  db: Db,
  ownerId: string,
  workflowId: string,
  runId: string,
): Promise<RunRow | undefined> {
  return db
    .selectFrom("runs")
    .selectAll()
    .where("id", "=", runId)
    .where("workflow_id", "=", workflowId)
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
}

export async function listRuns(
  db: Db,
  ownerId: string,
  workflowId: string,
  status: string | undefined,
  req: PageRequest,
): Promise<PageRows<RunRow>> {
  return pageByCreation<RunRow>(
    db,
    "runs",
    { workflow_id: workflowId, owner_id: ownerId, ...(status ? { status } : {}) },
    req,
  );
}

/** Runs of a workflow changed after `sinceMs` (streams following runs made on other instances). */
export async function runsChangedSince(
  db: Db,
  workflowId: string,
  sinceMs: number,
  limit = 200,
): Promise<RunRow[]> {
  return db
    .selectFrom("runs")
    .selectAll()
    .where("workflow_id", "=", workflowId)
    .where("updated_ms", ">", sinceMs)
    .orderBy("updated_ms", "asc")
    .limit(limit)
    .execute();
}

/**
 * Keeps a workflow's newest `keep` runs: the older ones that have ended are deleted (one that
 * still runs or waits is kept until it ends). Two index reads when there is nothing to cut.
 */
export async function pruneRunsIn(trx: Db, workflowId: string, keep: number): Promise<void> {
  const edge = await trx
    .selectFrom("runs")
    .select(["created_ms", "id"])
    .where("workflow_id", "=", workflowId)
    .orderBy("created_ms", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .offset(keep)
    .executeTakeFirst();
  if (!edge) return;
  const ms = Number(edge.created_ms);
  await trx
    .deleteFrom("runs")
    .where("workflow_id", "=", workflowId)
    .where((eb) =>
      eb.or([eb("created_ms", "<", ms), eb.and([eb("created_ms", "=", ms), eb("id", "<=", edge.id)])]),
    )
    .where("status", "in", ["success", "error", "exited", "cancelled"])
    .execute();
}

export async function deleteRunsOf(db: Db, workflowId: string): Promise<void> {
  await db.deleteFrom("runs").where("workflow_id", "=", workflowId).execute();
}
