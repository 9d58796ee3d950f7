/**
 * 0016: environment variables (decisions.md "Workflow triggers, environment variables and data
 * stores"): one row per (user, name), a secret's value sealed like an account's. Rotation finds
 * the rows to re-seal by `key_id`.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("env_vars")
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("secret", "integer", (c) => c.notNull())
    .addColumn("value", "text")
    .addColumn("sealed", "text")
    .addColumn("key_id", "text")
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("env_vars_pk", ["user_id", "name"])
    .execute();
  await db.schema.createIndex("env_vars_key_id").on("env_vars").column("key_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("env_vars").execute();
}
