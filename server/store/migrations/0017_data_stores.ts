/**
 * 0017: data stores (decisions.md "Workflow triggers, environment variables and data stores"):
 * a user's named key/value stores, and their records. A record's value is JSON text; a record
 * with a past `expires_at_ms` reads as absent at once and is deleted later by the sweep
 * (data-stores/sweep.ts). Keys sort byte-wise on both databases (PostgreSQL's column is
 * COLLATE "C"), so pages in key order and `prefix=` agree everywhere.
 */
import { sql, type Kysely } from "kysely";
import { isSqlite } from "../dialect-of.js";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("data_stores")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("data_stores_user")
    .on("data_stores")
    .columns(["user_id", "created_ms"])
    .execute();
  const postgres = !isSqlite(db);
  await db.schema
    .createTable("data_store_records")
    .addColumn("store_id", "text", (c) => c.notNull())
    .addColumn("key", postgres ? sql`text collate "C"` : "text", (c) => c.notNull())
    .addColumn("value", "text", (c) => c.notNull())
    .addColumn("expires_at_ms", "bigint")
    .addPrimaryKeyConstraint("data_store_records_pk", ["store_id", "key"])
    .execute();
  await db.schema
    .createIndex("data_store_records_expiry")
    .on("data_store_records")
    .column("expires_at_ms")
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("data_store_records").execute();
  await db.schema.dropTable("data_stores").execute();
}
