/**
 * Search of retained events (`q` of event lists): events whose JSON or summary contains the
 * text, case-insensitive, through each database's own text index (migrations/0006):
 * - SQLite: the FTS5 trigram table `events_search` (rowid = the event row's rowid). A phrase of
 *   three characters or more matches exactly the rows that contain it; shorter text has no
 *   trigram, so it is looked for with instr() over the channel's rows (cheap enough for the
 *   retained events of one channel, and a two-character search is rare).
 * - PostgreSQL: ILIKE on the expression the pg_trgm GIN index covers (a scan where the
 *   extension could not be installed).
 * Event data is stored as JSON, where `"` and `\` are escaped: text that has them is also looked
 * for in its JSON-escaped form, so `say "hi"` finds `{"text":"say \"hi\""}`.
 */
import { sql, SqliteAdapter, type Expression, type SqlBool } from "kysely";
import type { Db } from "../db.js";
import { PG_SEARCH_TEXT } from "../migrations/0006_event_inspection.js";
import type { EventRow, PageWindow } from "./events.js";

/** The forms of `q` to look for: as typed, and as it reads inside a JSON string when that differs. */
function formsOf(q: string): string[] {
  const escaped = JSON.stringify(q).slice(1, -1);
  return escaped === q ? [q] : [q, escaped];
}

const isSqlite = (db: Db) => db.getExecutor().adapter instanceof SqliteAdapter;

/** An FTS5 phrase: the text in double quotes, its own quotes doubled. */
const phrase = (s: string) => `"${s.replace(/"/g, '""')}"`;

/** ILIKE pattern for a substring, `%`, `_` and `\` taken literally. */
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The condition "this event matches q" on the `events` table. */
function matches(db: Db, q: string): Expression<SqlBool> {
  const forms = formsOf(q);
  if (isSqlite(db)) {
    // Trigram needs three characters (Unicode code points) in every form searched.
    if (forms.every((f) => [...f].length >= 3)) {
      const expr = forms.map(phrase).join(" OR ");
      return sql<SqlBool>`events.rowid IN (SELECT rowid FROM events_search WHERE events_search MATCH ${expr})`;
    }
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

/** A page of one channel's events that match `q`, newest first (same window rules as listEvents). */
export async function searchEvents(db: Db, emitterId: string, channel: string, q: string, w: PageWindow): Promise<EventRow[]> {
  let query = db
    .selectFrom("events")
    .selectAll()
    .where("emitter_id", "=", emitterId)
    .where("channel", "=", channel)
    .where(matches(db, q));
  if (w.newerThan !== undefined && w.olderThan === undefined) {
    const rows = await query.where("sort_key", ">", w.newerThan).orderBy("sort_key", "asc").limit(w.limit).execute();
    return rows.reverse();
  }
  if (w.olderThan !== undefined) query = query.where("sort_key", "<", w.olderThan);
  if (w.newerThan !== undefined) query = query.where("sort_key", ">", w.newerThan);
  return query.orderBy("sort_key", "desc").limit(w.limit).execute();
}

/** How many of the channel's retained events match `q`. */
export async function countMatches(db: Db, emitterId: string, channel: string, q: string): Promise<number> {
  const row = await db
    .selectFrom("events")
    .select(sql<number>`count(*)`.as("n"))
    .where("emitter_id", "=", emitterId)
    .where("channel", "=", channel)
    .where(matches(db, q))
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
