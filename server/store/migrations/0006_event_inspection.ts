/**
 * 0006: event inspection (decisions.md "Event inspection").
 *
 * - `event_stats`: per emitter and minute, what was appended (events, errors, logs) and what
 *   ran (invocations, compute ms). Counted in the append and completion transactions
 *   (repos/event-stats.ts), never from the retained events: retention leaves it alone.
 * - A text index for `q` over each event's JSON and its summary, kept by the database itself,
 *   so every insert and every delete (appends, retention, range deletes, a source's removal)
 *   keeps it in step within the same transaction:
 *   SQLite: a contentless FTS5 table with the trigram tokenizer (substring match, ASCII case
 *   folded), filled and emptied by triggers on `events`, keyed by the event row's rowid;
 *   PostgreSQL: a pg_trgm GIN index on the same text, which ILIKE uses. Where pg_trgm cannot be
 *   installed, the migration goes on without the index and searches scan (repos/event-search.ts).
 */
import { sql, SqliteAdapter, type Kysely } from "kysely";

const isSqlite = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof SqliteAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable("event_stats")
    .addColumn("emitter_id", "text", (c) => c.notNull())
    .addColumn("minute_ms", "bigint", (c) => c.notNull())
    .addColumn("events", "bigint", (c) => c.notNull())
    .addColumn("errors", "bigint", (c) => c.notNull())
    .addColumn("logs", "bigint", (c) => c.notNull())
    .addColumn("invocations", "bigint", (c) => c.notNull())
    .addColumn("compute_ms", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("event_stats_pk", ["emitter_id", "minute_ms"])
    .execute();
  // Pruning by age.
  await db.schema.createIndex("event_stats_minute").on("event_stats").columns(["minute_ms"]).execute();

  if (isSqlite(db)) {
    await sql`CREATE VIRTUAL TABLE events_search USING fts5(body, tokenize = 'trigram', content = '', contentless_delete = 1)`.execute(db);
    // Text of an event for search: its JSON, then its summary (meta_json is '{}' for most events).
    const body = (row: string) =>
      sql.raw(`${row}.event_json || char(10) || CASE WHEN ${row}.meta_json = '{}' THEN '' ELSE coalesce(json_extract(${row}.meta_json, '$.summary'), '') END`);
    await sql`CREATE TRIGGER events_search_insert AFTER INSERT ON events BEGIN
      INSERT INTO events_search (rowid, body) VALUES (new.rowid, ${body("new")});
    END`.execute(db);
    await sql`CREATE TRIGGER events_search_delete AFTER DELETE ON events BEGIN
      DELETE FROM events_search WHERE rowid = old.rowid;
    END`.execute(db);
    await sql`INSERT INTO events_search (rowid, body) SELECT e.rowid, ${body("e")} FROM events e`.execute(db);
    return;
  }

  // PostgreSQL: pg_trgm where it can be had (trusted since PostgreSQL 13: a database owner may
  // create it). A savepoint keeps a refusal from aborting the migration's transaction.
  const available = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'pg_trgm'`.execute(db);
  if ((available.rows[0]?.n ?? 0) === 0) return;
  await sql`SAVEPOINT headwater_trgm`.execute(db);
  try {
    await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
    // A small pending list: GIN defers new entries to a list every search reads through until
    // it is merged (4 MB by default, about 25 ms a search at 100,000 events); 512 kB bounds that.
    await sql`CREATE INDEX events_search_trgm ON events USING gin ((${sql.raw(PG_SEARCH_TEXT)}) gin_trgm_ops) WITH (gin_pending_list_limit = 512)`.execute(db);
    await sql`RELEASE SAVEPOINT headwater_trgm`.execute(db);
  } catch {
    await sql`ROLLBACK TO SAVEPOINT headwater_trgm`.execute(db);
  }
}

/**
 * The searched text on PostgreSQL; queries must use this exact expression for the index to
 * apply (repos/event-search.ts imports it).
 */
export const PG_SEARCH_TEXT = `event_json || chr(10) || coalesce(meta_json::jsonb ->> 'summary', '')`;

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) {
    await sql`DROP TRIGGER IF EXISTS events_search_insert`.execute(db);
    await sql`DROP TRIGGER IF EXISTS events_search_delete`.execute(db);
    await sql`DROP TABLE IF EXISTS events_search`.execute(db);
  } else {
    await sql`DROP INDEX IF EXISTS events_search_trgm`.execute(db);
  }
  await db.schema.dropTable("event_stats").ifExists().execute();
}
