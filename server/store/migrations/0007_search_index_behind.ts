/**
 * 0007: the SQLite search index (0006's FTS5 table `events_search`) is filled after the commit
 * that stores an event, in batches, instead of by a trigger inside it (repos/search-index.ts).
 *
 * Why: the trigram index of one event cost about a third of a one-event commit's CPU (measured:
 * 430 to 560 µs per commit with the trigger, 300 to 390 µs without), and that commit sits between
 * a source's run and its event reaching the SSE streams. Indexed in batches, the index costs
 * less in all (one FTS segment per batch instead of per commit) and nothing on that path.
 * Searches see every stored event all the same: a search first indexes what is pending.
 *
 * `search_index_state.indexed_rowid`: every event row with a rowid up to it is in the index,
 * none above it. The delete trigger removes only indexed rows from the index, and when the rows
 * at the top go (rowids can be reused after the highest row is deleted) it lowers the mark to the
 * highest rowid left, so a reused rowid is indexed again. PostgreSQL is unchanged (its GIN index
 * is maintained by the database inside the commit, and costs far less).
 */
import { sql, SqliteAdapter, type Kysely } from "kysely";

const isSqlite = (db: Kysely<unknown>) => db.getExecutor().adapter instanceof SqliteAdapter;

export async function up(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) return;
  await sql`CREATE TABLE search_index_state (id INTEGER PRIMARY KEY CHECK (id = 1), indexed_rowid INTEGER NOT NULL)`.execute(db);
  // 0006's trigger indexed every event stored so far.
  await sql`INSERT INTO search_index_state (id, indexed_rowid) SELECT 1, coalesce(max(rowid), 0) FROM events`.execute(db);
  await sql`DROP TRIGGER events_search_insert`.execute(db);
  await sql`DROP TRIGGER events_search_delete`.execute(db);
  await sql`CREATE TRIGGER events_search_delete AFTER DELETE ON events
    WHEN old.rowid <= (SELECT indexed_rowid FROM search_index_state WHERE id = 1)
    BEGIN
      DELETE FROM events_search WHERE rowid = old.rowid;
      UPDATE search_index_state SET indexed_rowid = (SELECT coalesce(max(rowid), 0) FROM events)
        WHERE id = 1 AND indexed_rowid > (SELECT coalesce(max(rowid), 0) FROM events);
    END`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (!isSqlite(db)) return;
  const body = (row: string) =>
    sql.raw(`${row}.event_json || char(10) || CASE WHEN ${row}.meta_json = '{}' THEN '' ELSE coalesce(json_extract(${row}.meta_json, '$.summary'), '') END`);
  await sql`INSERT INTO events_search (rowid, body) SELECT e.rowid, ${body("e")} FROM events e
    WHERE e.rowid > (SELECT indexed_rowid FROM search_index_state WHERE id = 1)`.execute(db);
  await sql`DROP TRIGGER events_search_delete`.execute(db);
  await sql`CREATE TRIGGER events_search_insert AFTER INSERT ON events BEGIN
      INSERT INTO events_search (rowid, body) VALUES (new.rowid, ${body("new")});
    END`.execute(db);
  await sql`CREATE TRIGGER events_search_delete AFTER DELETE ON events BEGIN
      DELETE FROM events_search WHERE rowid = old.rowid;
    END`.execute(db);
  await sql`DROP TABLE search_index_state`.execute(db);
}
