/**
 * 0011: workflow runs (decisions.md "Workflow runs"). A run's row is written twice at most: as
 * `running` when its steps start (insert-or-ignore: it never overwrites a finished run) and
 * whole, in the transaction that stores its results (an upsert). Its steps, event, response
 * and error are JSON text: a run is read whole or listed, never queried inside.
 * `workflows.http_response` says how a workflow's endpoint answers its caller.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("runs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("workflow_id", "text", (c) => c.notNull())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("status", "text", (c) => c.notNull())
    .addColumn("trigger_json", "text", (c) => c.notNull())
    .addColumn("attempt", "integer", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addColumn("started_ms", "bigint")
    .addColumn("ended_ms", "bigint")
    .addColumn("updated_ms", "bigint", (c) => c.notNull())
    .addColumn("event_json", "text", (c) => c.notNull())
    .addColumn("steps_json", "text", (c) => c.notNull())
    .addColumn("response_json", "text")
    .addColumn("error_json", "text")
    .addColumn("exit_reason", "text")
    .execute();
  // Lists: a workflow's runs newest first, of one status or all; retention drops the oldest.
  await db.schema
    .createIndex("runs_workflow")
    .on("runs")
    .columns(["workflow_id", "created_ms", "id"])
    .execute();
  await db.schema
    .createIndex("runs_workflow_status")
    .on("runs")
    .columns(["workflow_id", "status", "created_ms", "id"])
    .execute();
  // Streams of other instances' runs look for what changed since their last look.
  await db.schema.createIndex("runs_updated").on("runs").columns(["workflow_id", "updated_ms"]).execute();
  await db.schema
    .alterTable("workflows")
    .addColumn("http_response", "text", (c) => c.notNull().defaultTo(sql`'immediate'`))
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("workflows").dropColumn("http_response").execute();
  await db.schema.dropTable("runs").execute();
}
