/**
 * 0009: the SQLite search index moves to a file of its own, `headwater-search.db` beside the
 * database, written by a worker thread (server/store/search/).
 *
 * Why: FTS5 merges its index segments inside the commit that adds to it, and the merges grow with
 * the index (`64 × levels` pages every 64 leaves flushed), not with the load: with 150,000 events
 * indexed, 8 to 39 ms of the server's one thread at a time (docs/benchmarks.md, 26 Nov). SQLite's write lock is per file, so an index in another file, written on another
 * connection in another thread, merges without holding up any commit of the events' path.
 *
 * What stays in this database is what must change in the same transaction as the events:
 * - `search_deletes`: one row per deleted event row (the trigger below), with the highest rowid
 *   left at that moment. The worker applies them in order, as 0007's trigger did at once: it
 *   removes the row from the index when it was indexed, and lowers the index's mark to the
 *   highest row left, so that a rowid SQLite reuses after the newest rows were deleted is indexed
 *   again. AUTOINCREMENT: `seq` never goes back, even when the table is emptied, which the worker
 *   relies on to recognise an older copy of this database (a restored backup).
 * - `search_link.token`: names the index file that belongs to this database; a copy made by
 *   `headwater backup` gets a new one, so the index is rebuilt when the copy is restored.
 *
 * The old index (`events_search` here) is dropped; the worker builds the new one from the events
 * on its first start. PostgreSQL is unchanged.
 */
import { sql, SqliteAdapter, type Kysely } from "kysely";

const isSqlite = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof SqliteAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) return;
  await sql`CREATE TABLE search_deletes (seq INTEGER PRIMARY KEY AUTOINCREMENT, event_rowid INTEGER NOT NULL, top_after INTEGER NOT NULL)`.execute(db);
  await sql`CREATE TABLE search_link (id INTEGER PRIMARY KEY CHECK (id = 1), token TEXT NOT NULL)`.execute(db);
  await sql`INSERT INTO search_link (id, token) VALUES (1, lower(hex(randomblob(16))))`.execute(db);
  await sql`DROP TRIGGER events_search_delete`.execute(db);
  await sql`CREATE TRIGGER events_search_delete AFTER DELETE ON events BEGIN
      INSERT INTO search_deletes (event_rowid, top_after) VALUES (old.rowid, (SELECT coalesce(max(rowid), 0) FROM events));
    END`.execute(db);
  await sql`DROP TABLE events_search`.execute(db);
  await sql`DROP TABLE search_index_state`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) return;
  // Back to 0007: the index in this file, every event in it.
  await sql`CREATE VIRTUAL TABLE events_search USING fts5(body, tokenize = 'trigram', content = '', contentless_delete = 1)`.execute(db);
  await sql`INSERT INTO events_search (rowid, body) SELECT rowid, event_json || char(10) || CASE WHEN meta_json = '{}' THEN '' ELSE coalesce(json_extract(meta_json, '$.summary'), '') END FROM events`.execute(db);
  await sql`CREATE TABLE search_index_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_rowid INTEGER NOT NULL)`.execute(db);
  await sql`INSERT INTO search_index_state (id, indexed_rowid) SELECT 1, coalesce(max(rowid), 0) FROM events`.execute(db);
  await sql`DROP TRIGGER events_search_delete`.execute(db);
  await sql`CREATE TRIGGER events_search_delete AFTER DELETE ON events
    WHEN old.rowid <= (SELECT indexed_rowid FROM search_index_state WHERE id = 1)
    BEGIN
      DELETE FROM events_search WHERE rowid = old.rowid;
      UPDATE search_index_state SET indexed_rowid = (SELECT coalesce(max(rowid), 0) FROM events)
        WHERE id = 1 AND indexed_rowid > (SELECT coalesce(max(rowid), 0) FROM events);
    END`.execute(db);
  await sql`DROP TABLE search_link`.execute(db);
  await sql`DROP TABLE search_deletes`.execute(db);
}
