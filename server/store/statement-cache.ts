/**
 * better-sqlite3 behind Kysely with its prepared statements kept: Kysely's SQLite driver calls
 * `prepare(sql)` for every query, and preparing cost as much CPU as running the statement on the
 * ingest path (profiled: 8 % of the server's time under HTTP load). The SQL text is the key, so
 * a statement is reused only for the exact same query shape; parameters are bound per call.
 */
import type { Database as SqliteDb, Statement } from "better-sqlite3";
import type { SqliteDatabase } from "kysely";

/**
 * Statements kept at most (the oldest go first: multi-row inserts vary in shape). Not LRU: moving
 * an entry on every hit cost about 1 % of the server's CPU, and the fixed shapes that run all the
 * time are far fewer than this.
 */
const MAX_STATEMENTS = 500;

export function withStatementCache(sqlite: SqliteDb, max = MAX_STATEMENTS): SqliteDatabase {
  const cache = new Map<string, Statement>();
  return {
    close: () => sqlite.close(),
    prepare(sql: string) {
      const hit = cache.get(sql);
      // A statement still being iterated (a streamed query) cannot run again meanwhile.
      if (hit && !hit.busy) return hit;
      const stmt = sqlite.prepare(sql);
      if (!hit) {
        cache.set(sql, stmt);
        if (cache.size > max) cache.delete(cache.keys().next().value!);
      }
      return stmt;
    },
  };
}
