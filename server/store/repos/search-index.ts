/**
 * The SQLite search index filled behind the commits (migrations/0007): `indexPending` adds the
 * events stored since the last batch to `events_search`, in one transaction with the mark that
 * says how far the index goes. A search calls `searchIndexUpToDate` first, so it sees every
 * event stored before it; the server also indexes in the background (events/search-indexer.ts),
 * so a search seldom finds much to do. Nothing of this runs on PostgreSQL.
 */
import { sql } from "kysely";
import type { Db } from "../db.js";
import { isSqlite } from "../dialect-of.js";

/** The searched text of an event row, as 0006 defined it (JSON, then its summary). */
const BODY = sql.raw(`event_json || char(10) || CASE WHEN meta_json = '{}' THEN '' ELSE coalesce(json_extract(meta_json, '$.summary'), '') END`);

/**
 * Indexes up to `limit` events past the mark, oldest first, and moves the mark; returns how many.
 * Run it inside a write transaction (the mark and the index change together).
 */
export async function indexPending(trx: Db, limit: number): Promise<number> {
  const mark = (await sql<{ r: number }>`SELECT indexed_rowid AS r FROM search_index_state WHERE id = 1`.execute(trx)).rows[0]?.r ?? 0;
  const top = (await sql<{ r: number | null; n: number }>`SELECT max(rowid) AS r, count(*) AS n FROM (SELECT rowid FROM events WHERE rowid > ${mark} ORDER BY rowid LIMIT ${limit})`.execute(trx)).rows[0];
  if (!top || top.r === null || top.n === 0) return 0;
  await sql`INSERT INTO events_search (rowid, body) SELECT rowid, ${BODY} FROM events WHERE rowid > ${mark} AND rowid <= ${top.r}`.execute(trx);
  await sql`UPDATE search_index_state SET indexed_rowid = ${top.r} WHERE id = 1`.execute(trx);
  return Number(top.n);
}

/** Whether events wait to be indexed (a read, no transaction). */
export async function searchIndexBehind(db: Db): Promise<boolean> {
  const r = await sql<{ n: number }>`SELECT EXISTS (SELECT 1 FROM events WHERE rowid > (SELECT indexed_rowid FROM search_index_state WHERE id = 1)) AS n`.execute(db);
  return Number(r.rows[0]?.n ?? 0) === 1;
}

/** Brings the index up to every event stored so far (before a search reads it). */
export async function searchIndexUpToDate(db: Db): Promise<void> {
  if (!isSqlite(db) || !(await searchIndexBehind(db))) return;
  await db.transaction().execute(async (trx) => {
    while ((await indexPending(trx, 10_000)) > 0);
  });
}
