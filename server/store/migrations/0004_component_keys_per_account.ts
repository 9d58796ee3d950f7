/**
 * 0004: component keys name a component within one account (decisions.md, Components). Until
 * now `component_keys` made every key global: the first user to save a key held it. From here on
 * only the registry is one namespace: `registry_keys` says which user published each key there.
 * Existing databases keep what users published; unpublished keys are freed, and so are the keys
 * of the built-ins (published by the system user `headwater`, see components/builtin/seed.ts),
 * which block no user's key in an account (in the registry their keys stay taken: see
 * repos/components.ts).
 * Written once for SQLite and PostgreSQL.
 */
import { sql, type Kysely } from "kysely";

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("registry_keys")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  // Keys were global, so each published key has a single owner: one row per key.
  await sql`
    INSERT INTO registry_keys ("key", user_id, created_at)
    SELECT "key", MIN(user_id), MIN(updated_at) FROM components
    WHERE published = 1 AND "key" IS NOT NULL
      AND user_id NOT IN (SELECT id FROM users WHERE username = 'headwater')
    GROUP BY "key"`.execute(db);
  await db.schema.dropTable("component_keys").execute();
  // "The account's newest component with this key" is the lookup of every key request.
  await db.schema
    .createIndex("components_user_key")
    .on("components")
    .columns(["user_id", "key", "created_ms"])
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex("components_user_key").execute();
  await db.schema
    .createTable("component_keys")
    .addColumn("key", "text", (c) => c.primaryKey())
    .addColumn("user_id", "text", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("created_at", "bigint", (c) => c.notNull())
    .execute();
  await sql`
    INSERT INTO component_keys ("key", user_id, created_at)
    SELECT "key", MIN(user_id), MIN(created_at) FROM components WHERE "key" IS NOT NULL GROUP BY "key"`.execute(db);
  await db.schema.dropTable("registry_keys").execute();
}
