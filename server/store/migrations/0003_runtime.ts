/**
 * 0003: the runtime's tables (source state, dedupe, timers, the invocation queue, quota usage).
 * Written once for SQLite and PostgreSQL: text and integer/bigint columns only.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("source_state")
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("key", "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("source_state_pk", ["source_id", "key"])
    .execute();

  await db.schema
    .createTable("source_dedupe")
    .addColumn("source_id", "text", (c) => c.primaryKey())
    .addColumn("state", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("timers")
    .addColumn("source_id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("interval_seconds", "integer")
    .addColumn("cron", "text")
    .addColumn("next_run_at", "bigint", (c) => c.notNull())
    .addColumn("updated_ms", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("timers_next_run").on("timers").column("next_run_at").execute();

  await db.schema
    .createTable("jobs")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("target_id", "text", (c) => c.notNull())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("trigger", "text", (c) => c.notNull())
    .addColumn("payload", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("run_after", "bigint", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("jobs_target").on("jobs").columns(["target_id", "id"]).execute();
  await db.schema.createIndex("jobs_run_after").on("jobs").column("run_after").execute();

  await db.schema
    .createTable("job_targets")
    .addColumn("target_id", "text", (c) => c.primaryKey())
    .addColumn("lease_owner", "text")
    .addColumn("lease_until", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("quota_usage")
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("day", "text", (c) => c.notNull())
    .addColumn("invocations", "bigint", (c) => c.notNull())
    .addColumn("compute_ms", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("quota_usage_pk", ["user_id", "day"])
    .execute();
}
