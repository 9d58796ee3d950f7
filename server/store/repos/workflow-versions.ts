/**
 * Workflow versions and drafts (decisions.md "Building workflows"). Versions are written once,
 * in the transaction of the change that makes them, and read many times; every read is scoped
 * to the owner. A workflow's row is locked (PostgreSQL) by a change before it reads the current
 * version, so two changes of one workflow take turns and a stale `base_version` is seen.
 */
import type { Db } from "../db.js";
import { isSqlite } from "../dialect-of.js";
import type { WorkflowDraftsTable, WorkflowVersionsTable } from "../tables/events.js";
import { pageByCreation, type PageRequest, type PageRows } from "./paging.js";
import type { WorkflowRow } from "./workflows.js";

export type WorkflowVersionRow = WorkflowVersionsTable;
export type WorkflowDraftRow = WorkflowDraftsTable;

/**
 * A version row's id, `wv_<workflow id's suffix><version, 10 digits>`: sorts as the versions do
 * within a workflow, and is a cursor of the API's form (`<kind>_<letters and digits>`).
 */
export const versionRowId = (workflowId: string, version: number): string =>
  `wv_${workflowId.replace(/^p_/, "")}${String(version).padStart(10, "0")}`;

/** The owner's workflow, its row locked until the transaction ends (SQLite writes one transaction at a time). */
export async function lockWorkflowIn(trx: Db, ownerId: string, id: string): Promise<WorkflowRow | undefined> {
  const q = trx.selectFrom("workflows").selectAll().where("id", "=", id).where("owner_id", "=", ownerId);
  return (isSqlite(trx) ? q : q.forUpdate()).executeTakeFirst();
}

export async function insertVersionIn(trx: Db, row: WorkflowVersionRow): Promise<void> {
  await trx.insertInto("workflow_versions").values(row).execute();
}

export async function getVersion(
  db: Db,
  ownerId: string,
  workflowId: string,
  version: number,
): Promise<WorkflowVersionRow | undefined> {
  return db
    .selectFrom("workflow_versions")
    .selectAll()
    .where("id", "=", versionRowId(workflowId, version))
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
}

/** A version by workflow and number alone (a run going on with the version it started with). */
export async function findVersion(db: Db, workflowId: string, version: number): Promise<WorkflowVersionRow | undefined> {
  return db
    .selectFrom("workflow_versions")
    .selectAll()
    .where("id", "=", versionRowId(workflowId, version))
    .executeTakeFirst();
}

/** The workflow's versions, newest first. */
export function listVersions(
  db: Db,
  ownerId: string,
  workflowId: string,
  req: PageRequest,
): Promise<PageRows<WorkflowVersionRow>> {
  return pageByCreation<WorkflowVersionRow>(db, "workflow_versions", { workflow_id: workflowId, owner_id: ownerId }, req);
}

export async function getDraft(db: Db, ownerId: string, workflowId: string): Promise<WorkflowDraftRow | undefined> {
  return db
    .selectFrom("workflow_drafts")
    .selectAll()
    .where("workflow_id", "=", workflowId)
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
}

/** Writes the workflow's one draft (made, or replaced whole). */
export async function saveDraft(db: Db, row: WorkflowDraftRow): Promise<void> {
  await db
    .insertInto("workflow_drafts")
    .values(row)
    .onConflict((oc) =>
      oc.column("workflow_id").doUpdateSet({
        base_version: row.base_version,
        updated_ms: row.updated_ms,
        content_json: row.content_json,
      }),
    )
    .execute();
}

export async function deleteDraftIn(trx: Db, ownerId: string, workflowId: string): Promise<boolean> {
  const r = await trx
    .deleteFrom("workflow_drafts")
    .where("workflow_id", "=", workflowId)
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** A deleted workflow's versions and draft. */
export async function deleteHistoryIn(trx: Db, workflowId: string): Promise<void> {
  await trx.deleteFrom("workflow_versions").where("workflow_id", "=", workflowId).execute();
  await trx.deleteFrom("workflow_drafts").where("workflow_id", "=", workflowId).execute();
}
