/**
 * 0012: execution controls (decisions.md "Execution controls"). `workflows.controls_json` holds a
 * workflow's retry policy, concurrency and throttle (NULL: the defaults). A run that waits (a
 * retry, a `$.flow.delay`, a throttled or re-run start) names its job in `runs.pending_job_id`,
 * which a cancel deletes, and its due time in `runs.next_at_ms`; `runs.attempts_json` lists its
 * attempts. `workflow_starts` holds the start times a throttle scheduled, per workflow.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("workflows").addColumn("controls_json", "text").execute();
  await db.schema.alterTable("runs").addColumn("pending_job_id", "text").execute();
  await db.schema.alterTable("runs").addColumn("next_at_ms", "bigint").execute();
  await db.schema.alterTable("runs").addColumn("attempts_json", "text").execute();
  await db.schema
    .createTable("workflow_starts")
    .addColumn("workflow_id", "text", (c) => c.notNull())
    .addColumn("start_ms", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("workflow_starts_by_time")
    .on("workflow_starts")
    .columns(["workflow_id", "start_ms"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("workflow_starts").execute();
  await db.schema.alterTable("runs").dropColumn("attempts_json").execute();
  await db.schema.alterTable("runs").dropColumn("next_at_ms").execute();
  await db.schema.alterTable("runs").dropColumn("pending_job_id").execute();
  await db.schema.alterTable("workflows").dropColumn("controls_json").execute();
}
