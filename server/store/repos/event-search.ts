/**
 * Search of retained events (`q` of event lists): events whose JSON or summary contains the
 * text, case-insensitive, through each database's own text index (migrations/0006):
 * - SQLite: the FTS5 trigram table `search.events_search` (rowid = the event row's rowid), in a
 *   file of its own filled by a worker thread behind the commits (store/search/), and brought up
 *   to date before each search; where it cannot be, the search scans the channel's events. A phrase of
 *   three characters or more matches exactly the rows that contain it; shorter text has no
 *   trigram, so it is looked for with instr() over the channel's rows (cheap enough for the
 *   retained events of one channel, and a two-character search is rare).
 * - PostgreSQL: ILIKE on the expression the pg_trgm GIN index covers (a scan where the
 *   extension could not be installed).
 * Event data is stored as JSON, where `"` and `\` are escaped: text that has them is also looked
 * for in its JSON-escaped form, so `say "hi"` finds `{"text":"say \"hi\""}`.
 */
import { sql, type Expression, type SqlBool } from "kysely";
import type { Db } from "../db.js";
import { isSqlite } from "../dialect-of.js";
import { PG_SEARCH_TEXT } from "../migrations/0006_event_inspection.js";
import type { EventRow, PageWindow } from "./events.js";
import type { SearchIndex } from "../search/search-index.js";

/** The forms of `q` to look for: as typed, and as it reads inside a JSON string when that differs. */
function formsOf(q: string): string[] {
  const escaped = JSON.stringify(q).slice(1, -1);
  return escaped === q ? [q] : [q, escaped];
}


/** An FTS5 phrase: the text in double quotes, its own quotes doubled. */
const phrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** ILIKE pattern for a substring, `%`, `_` and `\` taken literally. */
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The FTS5 query for `q` on SQLite, or undefined when some form is too short for trigrams. */
function ftsQuery(q: string): string | undefined {
  const forms = formsOf(q);
  // Trigram needs three characters (Unicode code points) in every form searched.
  return forms.every((f) => [...f].length >= 3) ? forms.map(phrase).join(" OR ") : undefined;
}

/** The condition "this event matches q" on the `events` table, without an index (short text on SQLite) or on PostgreSQL. */
function scanMatches(db: Db, q: string): Expression<SqlBool> {
  const forms = formsOf(q);
  if (isSqlite(db)) {
    const text = sql`lower(events.event_json || char(10) || CASE WHEN events.meta_json = '{}' THEN '' ELSE coalesce(json_extract(events.meta_json, '$.summary'), '') END)`;
    return sql<SqlBool>`(${sql.join(
      forms.map((f) => sql`instr(${text}, lower(${f})) > 0`),
      sql` OR `,
    )})`;
  }
  const text = sql.raw(`(${PG_SEARCH_TEXT})`);
  return sql<SqlBool>`(${sql.join(
    forms.map((f) => sql`${text} ILIKE ${likePattern(f)}`),
    sql` OR `,
  )})`;
}

/**
 * An index entry whose event row was deleted after the search brought the index up to date can
 * meet a newer event that reused the rowid: rowids with a delete the worker has not applied yet
 * are left out (a handful at most; SQLite builds the list once per query).
 */
const NOT_DELETED = sql`events.rowid NOT IN (SELECT event_rowid FROM search_deletes
  WHERE seq > (SELECT applied_seq FROM search.search_state WHERE id = 1))`;

/**
 * SQLite with trigrams: the FTS table drives the query, newest match first (its rowids follow
 * the events' insertion order, which within a channel is id order), each match joined to its
 * event row by rowid to keep the channel's; so a page costs what its matches cost, not a scan of
 * the channel, and the page stops at its limit. A cursor becomes a rowid bound: the rowid of the
 * nearest event beyond it. (One pass for page and count together measured slower: it cannot
 * stop early, and holds every match.)
 */
async function ftsPage(db: Db, emitterId: string, channel: string, match: string, w: PageWindow): Promise<EventRow[]> {
  const newerOnly = w.newerThan !== undefined && w.olderThan === undefined;
  const bounds = [];
  if (w.olderThan !== undefined) {
    bounds.push(sql`AND events.sort_key < ${w.olderThan} AND events_search.rowid <= (SELECT rowid FROM events
      WHERE emitter_id = ${emitterId} AND channel = ${channel} AND sort_key < ${w.olderThan} ORDER BY sort_key DESC LIMIT 1)`);
  }
  if (w.newerThan !== undefined) {
    bounds.push(sql`AND events.sort_key > ${w.newerThan} AND events_search.rowid >= (SELECT rowid FROM events
      WHERE emitter_id = ${emitterId} AND channel = ${channel} AND sort_key > ${w.newerThan} ORDER BY sort_key ASC LIMIT 1)`);
  }
  const rows = await sql<EventRow>`SELECT events.* FROM search.events_search JOIN events ON events.rowid = events_search.rowid
    WHERE events_search MATCH ${match} AND events.emitter_id = ${emitterId} AND events.channel = ${channel} AND ${NOT_DELETED} ${sql.join(bounds, sql` `)}
    ORDER BY events_search.rowid ${sql.raw(newerOnly ? "ASC" : "DESC")} LIMIT ${w.limit}`.execute(db);
  // Newest first, by id (the rowid order is that order; sorting keeps it so whatever happens).
  return rows.rows.sort((a, b) => (a.sort_key < b.sort_key ? 1 : a.sort_key > b.sort_key ? -1 : 0));
}

async function ftsCount(db: Db, emitterId: string, channel: string, match: string): Promise<number> {
  const r = await sql<{ n: number }>`SELECT count(*) AS n FROM search.events_search JOIN events ON events.rowid = events_search.rowid
    WHERE events_search MATCH ${match} AND events.emitter_id = ${emitterId} AND events.channel = ${channel} AND ${NOT_DELETED}`.execute(db);
  return Number(r.rows[0]?.n ?? 0);
}

/**
 * A page of one channel's events that match `q`, newest first (same window rules as
 * listEvents), and how many of its retained events match.
 */
export async function searchEvents(
  db: Db,
  index: SearchIndex | undefined,
  emitterId: string,
  channel: string,
  q: string,
  w: PageWindow,
): Promise<{ rows: EventRow[]; total: number }> {
  const match = isSqlite(db) ? ftsQuery(q) : undefined;
  // The index is filled behind the commits: what is pending goes in first.
  if (match !== undefined && index && (await index.upToDate())) {
    // One read transaction: the page and its count see the same events.
    return db.transaction().execute(async (trx) => {
      const rows = await ftsPage(trx, emitterId, channel, match, w);
      return { rows, total: await ftsCount(trx, emitterId, channel, match) };
    });
  }
  const [rows, total] = await Promise.all([scanPage(db, emitterId, channel, q, w), scanCount(db, emitterId, channel, q)]);
  return { rows, total };
}

async function scanPage(db: Db, emitterId: string, channel: string, q: string, w: PageWindow): Promise<EventRow[]> {
  let query = db
    .selectFrom("events")
    .selectAll()
    .where("emitter_id", "=", emitterId)
    .where("channel", "=", channel)
    .where(scanMatches(db, q));
  if (w.newerThan !== undefined && w.olderThan === undefined) {
    const rows = await query.where("sort_key", ">", w.newerThan).orderBy("sort_key", "asc").limit(w.limit).execute();
    return rows.reverse();
  }
  if (w.olderThan !== undefined) query = query.where("sort_key", "<", w.olderThan);
  if (w.newerThan !== undefined) query = query.where("sort_key", ">", w.newerThan);
  return query.orderBy("sort_key", "desc").limit(w.limit).execute();
}

async function scanCount(db: Db, emitterId: string, channel: string, q: string): Promise<number> {
  const row = await db
    .selectFrom("events")
    .select(sql<number>`count(*)`.as("n"))
    .where("emitter_id", "=", emitterId)
    .where("channel", "=", channel)
    .where(scanMatches(db, q))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
