/**
 * Events, subscriptions, the delivery outbox and workflows. Written once for SQLite and
 * PostgreSQL: TEXT and BIGINT columns only, no database-generated values.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("events")
    .addColumn("emitter_id", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("sort_key", "text", (c) => c.notNull())
    .addColumn("id", "text", (c) => c.notNull())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("indexed_at_ms", "bigint", (c) => c.notNull())
    .addColumn("emit_id", "text", (c) => c.notNull())
    .addColumn("event_json", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("meta_json", "text", (c) => c.notNull())
    .addColumn("hops", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("events_pk", ["emitter_id", "channel", "sort_key"])
    .execute();
  // Streams that cover several channels ($logs + $errors) and resumes read by emitter and id.
  await db.schema.createIndex("events_emitter_sort").on("events").columns(["emitter_id", "sort_key"]).execute();

  await db.schema
    .createTable("event_emitters")
    .addColumn("emitter_id", "text", (c) => c.primaryKey())
    .addColumn("last_ms", "bigint", (c) => c.notNull())
    .addColumn("last_seq", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("event_channels")
    .addColumn("emitter_id", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("count", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("event_channels_pk", ["emitter_id", "channel"])
    .execute();

  await db.schema
    .createTable("subscriptions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("emitter_id", "text", (c) => c.notNull())
    .addColumn("listener_id", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("subscriptions_unique", ["owner_id", "emitter_id", "channel", "listener_id"])
    .execute();
  await db.schema.createIndex("subscriptions_listener").on("subscriptions").columns(["listener_id"]).execute();

  await db.schema
    .createTable("auto_subscriptions")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("listener_id", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("auto_subscriptions_owner").on("auto_subscriptions").columns(["owner_id"]).execute();

  await db.schema
    .createTable("delivery_outbox")
    .addColumn("emitter_id", "text", (c) => c.notNull())
    .addColumn("sort_key", "text", (c) => c.notNull())
    .addColumn("event_id", "text", (c) => c.notNull())
    .addColumn("channel", "text", (c) => c.notNull())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("hops", "bigint", (c) => c.notNull())
    .addColumn("event_json", "text", (c) => c.notNull())
    .addColumn("created_at_ms", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("delivery_outbox_pk", ["emitter_id", "channel", "sort_key"])
    .execute();
  await db.schema.createIndex("delivery_outbox_order").on("delivery_outbox").columns(["sort_key"]).execute();

  await db.schema
    .createTable("workflows")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("owner_id", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("deployment_id", "text", (c) => c.notNull())
    .addColumn("steps_json", "text", (c) => c.notNull())
    .addColumn("active", "bigint", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("workflows_owner").on("workflows").columns(["owner_id", "created_ms"]).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ["workflows", "delivery_outbox", "auto_subscriptions", "subscriptions", "event_channels", "event_emitters", "events"]) {
    await db.schema.dropTable(t).ifExists().execute();
  }
}
