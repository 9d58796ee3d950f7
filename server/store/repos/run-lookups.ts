/**
 * Runs found by what they did rather than by id: the comparison's `last_success`
 * (decisions.md "Building workflows", "Compare runs"). The runs' one index (workflow, creation,
 * id, status) is read newest first until a run of that status turns up. Scoped to the owner.
 */
import type { Db } from "../db.js";
import type { RunRow } from "./runs.js";

/** The workflow's newest production run with status success, other than `exceptId`. */
export async function latestSuccessfulRun(
  db: Db,
  ownerId: string,
  workflowId: string,
  exceptId: string,
): Promise<RunRow | undefined> {
  return db
    .selectFrom("runs")
    .selectAll()
    .where("workflow_id", "=", workflowId)
    .where("owner_id", "=", ownerId)
    .where("status", "=", "success")
    .where("id", "!=", exceptId)
    .orderBy("created_ms", "desc")
    .orderBy("id", "desc")
    .limit(1)
    .executeTakeFirst();
}
