/**
 * 0010: connected accounts (decisions.md "Connected accounts"): `accounts` holds each credential
 * sealed, `account_uses` what references it. Moving the inline `$auth` values that sources
 * already hold into accounts needs the secrets key, which migrations do not have: the server
 * does it at start (server/accounts/adopt-inline.ts), before it serves anything.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("accounts")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("app", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("fields", "text", (c) => c.notNull())
    .addColumn("sealed", "text", (c) => c.notNull())
    .addColumn("key_id", "text", (c) => c.notNull())
    .addColumn("origin", "text")
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  // Lists: the owner's accounts newest first (optionally of one app).
  await db.schema.createIndex("accounts_user").on("accounts").columns(["user_id", "created_ms", "id"]).execute();
  await db.schema
    .createTable("account_uses")
    .addColumn("account_id", "text", (c) => c.notNull())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("holder_id", "text", (c) => c.notNull())
    .addColumn("prop", "text", (c) => c.notNull())
    .addPrimaryKeyConstraint("account_uses_pk", ["holder_id", "prop"])
    .execute();
  await db.schema.createIndex("account_uses_account").on("account_uses").column("account_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("account_uses").execute();
  await db.schema.dropTable("accounts").execute();
}
