/**
 * Migration 0004 on a database made before it: global key claims become registry claims for
 * what users published; unpublished keys and the built-ins' (the system user's) are freed; the
 * repository then lets another user save any key, and publish any but a user-published one.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SQLite } from "../../shared/sqlite-native.js";
import { Kysely, Migrator, PostgresDialect, sql, SqliteDialect, type Migration } from "kysely";
import pg from "pg";
import { describe, expect, it } from "vitest";
import { migrations } from "../../server/store/migrations/index.js";
import { openDb } from "../../server/store/db.js";
import { ComponentsRepo, KeyTakenError } from "../../server/store/repos/components.js";
import { testDatabases } from "../support/databases.js";

const user = (id: string, username = id) =>
  sql`INSERT INTO users (id, username, email, admin, created_ms, created_at, updated_at) VALUES (${id}, ${username}, '', 0, 1, 1, 1)`;
const component = (id: string, userId: string, key: string, published: number) =>
  sql`INSERT INTO components (id, user_id, "key", code, code_hash, name, version, props, meta, published, created_ms, created_at, updated_at)
      VALUES (${id}, ${userId}, ${key}, 'x', 'h', 'n', '1', '[]', '{}', ${published}, 1, 1, 1)`;
const claim = (key: string, userId: string) =>
  sql`INSERT INTO component_keys ("key", user_id, created_at) VALUES (${key}, ${userId}, 1)`;

describe.each(testDatabases())("migration 0004 (keys per account) on $name", (tdb) => {
  it("keeps published keys in the registry and frees the rest", async () => {
    const fresh = await tdb.create();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-migration-"));
    const pool = fresh.databaseUrl ? new pg.Pool({ connectionString: fresh.databaseUrl }) : undefined;
    const old = new Kysely<unknown>({
      dialect: pool
        ? new PostgresDialect({ pool })
        : new SqliteDialect({ database: new SQLite(path.join(dataDir, "headwater.db")) }),
    });
    try {
      // The database as the previous release left it.
      const migrator = new Migrator({
        db: old,
        provider: { getMigrations: async () => migrations as Record<string, Migration> },
      });
      const before = await migrator.migrateTo("0003_runtime");
      expect(before.error).toBeUndefined();
      for (const q of [
        user("u_system", "headwater"),
        user("u_alice"),
        user("u_bob"),
        component("sc_builtin", "u_system", "http-new-requests", 1),
        claim("http-new-requests", "u_system"),
        component("sc_pub", "u_alice", "alice-published", 1),
        claim("alice-published", "u_alice"),
        component("sc_priv", "u_alice", "alice-private", 0),
        claim("alice-private", "u_alice"),
      ])
        await q.execute(old);
    } finally {
      await old.destroy();
    }

    const opened = await openDb({ databaseUrl: fresh.databaseUrl, dataDir });
    try {
      const keys = await opened.db.selectFrom("registry_keys").select(["key", "user_id"]).orderBy("key").execute();
      expect(keys).toEqual([{ key: "alice-published", user_id: "u_alice" }]);
      const repo = new ComponentsRepo(opened.db);
      const row = (id: string, userId: string, key: string) => ({
        id, user_id: userId, key, code: "x", code_hash: "h", name: "n", version: "1", description: null,
        component_url: null, files: null, props: "[]", meta: "{}", published: 0, created_ms: 2, created_at: 2, updated_at: 2,
      });
      // Bob may now save every one of these keys (before, each was someone else's).
      for (const [i, key] of ["http-new-requests", "alice-published", "alice-private"].entries())
        await repo.insert(row(`sc_bob${i}`, "u_bob", key));
      expect((await repo.findOwnByKey("u_bob", "alice-private"))?.id).toBe("sc_bob2");
      // The registry gives the built-in for its key ...
      expect((await repo.findPublishedByKey("http-new-requests"))?.id).toBe("sc_builtin");
      // ... bob may publish the freed key, but neither the built-in's nor one a user published.
      await repo.publish({ id: "sc_bob2", user_id: "u_bob", key: "alice-private" }, 3);
      await expect(repo.publish({ id: "sc_bob0", user_id: "u_bob", key: "http-new-requests" }, 3)).rejects.toBeInstanceOf(KeyTakenError);
      await expect(repo.publish({ id: "sc_bob1", user_id: "u_bob", key: "alice-published" }, 3)).rejects.toBeInstanceOf(KeyTakenError);
      expect((await repo.findPublishedByKey("alice-published"))?.id).toBe("sc_pub");
      expect((await repo.findPublishedByKey("http-new-requests"))?.id).toBe("sc_builtin");
      expect((await repo.findPublishedByKey("alice-private"))?.id).toBe("sc_bob2");
    } finally {
      await opened.close();
      await fresh.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
