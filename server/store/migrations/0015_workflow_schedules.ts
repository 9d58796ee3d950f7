/**
 * 0015: a workflow's own triggers (decisions.md "Workflow triggers, environment variables and
 * data stores"). `workflows.triggers_json` holds its schedules and endpoint auth as its content
 * has them (a bearer token only as its SHA-256 digest); NULL: none and none.
 * `workflow_schedules` has one row per schedule of an active workflow, with its next tick: the
 * ticker claims each tick by moving `next_run_at` with a compare-and-set (as `timers` does).
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("workflows").addColumn("triggers_json", "text").execute();
  await db.schema
    .createTable("workflow_schedules")
    .addColumn("workflow_id", "text", (c) => c.notNull())
    .addColumn("idx", "integer", (c) => c.notNull())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("spec_json", "text", (c) => c.notNull())
    .addColumn("next_run_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("workflow_schedules_pk", ["workflow_id", "idx"])
    .execute();
  await db.schema
    .createIndex("workflow_schedules_next_run")
    .on("workflow_schedules")
    .column("next_run_at")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("workflow_schedules").execute();
  await db.schema.alterTable("workflows").dropColumn("triggers_json").execute();
}
