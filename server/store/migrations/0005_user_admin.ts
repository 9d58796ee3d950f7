/**
 * 0005: what an admin sets on a user (decisions.md, Operating a server): `disabled`, and the
 * user's own daily quotas (NULL: the server's default). Written once for SQLite and PostgreSQL.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable("users")
    .addColumn("disabled", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable("users").addColumn("daily_invocations_quota", "bigint").execute();
  await db.schema.alterTable("users").addColumn("daily_compute_ms_quota", "bigint").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("users").dropColumn("daily_compute_ms_quota").execute();
  await db.schema.alterTable("users").dropColumn("daily_invocations_quota").execute();
  await db.schema.alterTable("users").dropColumn("disabled").execute();
}
