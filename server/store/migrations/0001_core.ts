/**
 * 0001: users, API keys, components and sources. Written once for SQLite and PostgreSQL:
 * only portable column types (text, integer/bigint), no generated ids, no dialect defaults.
 */
import type { Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("users")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("username", "text", (c) => c.notNull().unique())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("admin", "integer", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("users_created").on("users").columns(["created_ms", "id"]).execute();

  await db.schema
    .createTable("api_keys")
    .addColumn("key_hash", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("api_keys_user").on("api_keys").column("user_id").execute();

  await db.schema
    .createTable("component_keys")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("components")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("key", "text")
    .addColumn("code", "text", (c) => c.notNull())
    .addColumn("code_hash", "text", (c) => c.notNull())
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("description", "text")
    .addColumn("component_url", "text")
    .addColumn("files", "text")
    .addColumn("props", "text", (c) => c.notNull())
    .addColumn("meta", "text", (c) => c.notNull())
    .addColumn("published", "integer", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("components_user_created")
    .on("components")
    .columns(["user_id", "created_ms", "id"])
    .execute();
  await db.schema.createIndex("components_key").on("components").columns(["key", "created_ms"]).execute();

  await db.schema
    .createTable("sources")
    .addColumn("id", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("component_id", "text", (c) => c.notNull().references("components.id"))
    .addColumn("name", "text", (c) => c.notNull())
    .addColumn("name_slug", "text", (c) => c.notNull())
    .addColumn("configured_props", "text", (c) => c.notNull())
    .addColumn("active", "integer", (c) => c.notNull())
    .addColumn("created_ms", "bigint", (c) => c.notNull())
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .addColumn("updated_at", "bigint", (c) => c.notNull())
    .addUniqueConstraint("sources_user_slug", ["user_id", "name_slug"])
    .execute();
  await db.schema
    .createIndex("sources_user_created")
    .on("sources")
    .columns(["user_id", "created_ms", "id"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ["sources", "components", "component_keys", "api_keys", "users"]) {
    await db.schema.dropTable(t).execute();
  }
}
