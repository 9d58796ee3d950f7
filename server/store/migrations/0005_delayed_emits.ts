/**
 * 0005: emits held until their `delivery_ts` (runtime/delayed-emits.ts). One row per held
 * event, by source; removed when delivered or with its source.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("delayed_emits")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("source_id", "text", (c) => c.notNull())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("event", "text", (c) => c.notNull())
    .addColumn("meta", "text", (c) => c.notNull())
    .addColumn("hops", "integer", (c) => c.notNull())
    .addColumn("deliver_at", "bigint", (c) => c.notNull())
    .addColumn("claimed_until", "bigint", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("delayed_emits_due").on("delayed_emits").column("deliver_at").execute();
  await db.schema.createIndex("delayed_emits_source").on("delayed_emits").column("source_id").execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable("delayed_emits").execute();
}
