/**
 * The database: Kysely over better-sqlite3 (embedded default, WAL) or over `pg` (when
 * HEADWATER_DATABASE_URL is set). One query layer for both; see docs/architecture.md "Storage".
 *
 * Dialect-neutral conventions every table follows:
 * - times are integers (ms or s, named so), booleans are integers 0/1, JSON is TEXT;
 * - ids are TEXT; no database-generated ids or defaults that differ between dialects;
 * - PostgreSQL int8 is parsed to a JS number (all our integers fit in 2^53).
 */
import fs from "node:fs";
import path from "node:path";
import { SQLite } from "../../shared/sqlite-native.js";
import { Kysely, Migrator, PostgresDialect, type Migration } from "kysely";
import type pg from "pg";
import type { Database } from "./schema.js";
import { migrations } from "./migrations/index.js";
import { startCheckpointer } from "./checkpointer.js";
import { startSearchIndex, type SearchIndex } from "./search/search-index.js";
import { SqliteDirect } from "./sqlite-direct.js";
import { withStatementCache } from "./statement-cache.js";
import { WriteGroup } from "./write-group.js";

export type Db = Kysely<Database>;
export type DialectName = "sqlite" | "postgres";

export interface OpenDbOptions {
  /** postgres:// URL; when undefined, SQLite at `<dataDir>/headwater.db`. */
  databaseUrl?: string | undefined;
  dataDir: string;
  /** Pool size for PostgreSQL. */
  poolSize?: number;
}

export interface OpenedDb {
  db: Db;
  dialect: DialectName;
  /** The pg pool, for LISTEN/NOTIFY and advisory locks; undefined on SQLite. */
  pgPool: pg.Pool | undefined;
  /** Write transactions of the hot paths, one per event-loop turn on SQLite (write-group.ts). */
  writes: WriteGroup;
  /** SQLite's search index, written by a worker thread (search/search-index.ts); undefined on PostgreSQL. */
  searchIndex: SearchIndex | undefined;
  close(): Promise<void>;
}

export async function openDb(options: OpenDbOptions): Promise<OpenedDb> {
  if (options.databaseUrl) {
    // Imported only here: loading pg costs an embedded server's start about a tenth of a second
    // (it probes the runtime through globals that load Node's fetch).
    const { default: pg } = await import("pg");
    // int8 (bigint) and numeric come back as strings by default; our integers fit in a double.
    pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    await migrate(db);
    return { db, dialect: "postgres", pgPool: pool, writes: new WriteGroup(db, false), searchIndex: undefined, close: () => db.destroy() };
  }
  fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const file = path.join(options.dataDir, "headwater.db");
  // The database holds key hashes and configured secrets: owner-only, whatever the umask.
  // SQLite gives its -wal and -shm files the database file's permissions.
  fs.closeSync(fs.openSync(file, "a", 0o600));
  fs.chmodSync(file, 0o600);
  const sqlite = new SQLite(file);
  sqlite.pragma("journal_mode = WAL");
  // NORMAL is durable against process crashes (kill -9) in WAL mode; FULL also covers power loss.
  sqlite.pragma("synchronous = NORMAL");
  sqlite.pragma("foreign_keys = ON");
  sqlite.pragma("busy_timeout = 5000");
  sqlite.pragma("secure_delete = FAST");
  // Hot statements skip Kysely's executor where that is safe (sqlite-direct.ts).
  const direct = new SqliteDirect(sqlite, withStatementCache(sqlite));
  const db = new Kysely<Database>({ dialect: direct.dialect() });
  direct.register(db);
  await migrate(db);
  const checkpoints = startCheckpointer(sqlite, file);
  const writes = new WriteGroup(db, true, (unit) => direct.transaction(unit));
  const searchIndex = startSearchIndex({ sqlite, dbFile: file, searchFile: path.join(options.dataDir, "headwater-search.db"), writes });
  return {
    db,
    dialect: "sqlite",
    pgPool: undefined,
    writes,
    searchIndex,
    close: async () => {
      await searchIndex.close();
      await checkpoints.stop();
      await db.destroy();
    },
  };
}

/** Applies every pending migration, in name order. Migrations are written once for both dialects. */
export async function migrate(db: Kysely<Database>): Promise<void> {
  const migrator = new Migrator({
    db: db as Kysely<unknown>,
    provider: { getMigrations: async () => migrations as Record<string, Migration> },
    // 0015 landed after 0016: a database that has 0016 already gets 0015 as well.
    allowUnorderedMigrations: true,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === "Error");
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ""} failed: ${String(error)}`);
  }
}
