/** Workflows repository. Every read and write is scoped to the owner. */
import type { Kysely } from "kysely";
import type { Database } from "../schema.js";
import type { WorkflowsTable } from "../tables/events.js";

type Exec = Kysely<Database>;
export type WorkflowRow = WorkflowsTable;

export async function insertWorkflow(db: Exec, row: WorkflowRow): Promise<void> {
  await db.insertInto("workflows").values(row).execute();
}

export async function getWorkflow(db: Exec, ownerId: string, id: string): Promise<WorkflowRow | undefined> {
  return db
    .selectFrom("workflows")
    .selectAll()
    .where("id", "=", id)
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
}

/** A workflow by id alone, for the runner (the job already carries the owner it was queued for). */
export async function findWorkflow(db: Exec, id: string): Promise<WorkflowRow | undefined> {
  return db.selectFrom("workflows").selectAll().where("id", "=", id).executeTakeFirst();
}

export async function updateWorkflow(
  db: Exec,
  ownerId: string,
  id: string,
  patch: Partial<
    Pick<
      WorkflowRow,
      "name" | "steps_json" | "active" | "updated_at" | "deployment_id" | "http_response" | "controls_json" | "version" | "triggers_json"
    >
  >,
): Promise<void> {
  await db.updateTable("workflows").set(patch).where("id", "=", id).where("owner_id", "=", ownerId).execute();
}

export async function deleteWorkflow(db: Exec, ownerId: string, id: string): Promise<boolean> {
  const res = await db
    .deleteFrom("workflows")
    .where("id", "=", id)
    .where("owner_id", "=", ownerId)
    .executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}
