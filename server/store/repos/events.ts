/**
 * Events repository: id reservation, inserts with retention, ordered reads and range deletes.
 * Every function takes the executor it runs on, so the event store can compose them into one
 * transaction (ids + rows + retention + outbox commit together).
 */
import { sql, type Kysely } from "kysely";
import { bulkInsert } from "../bulk.js";
import { isSqlite } from "../dialect-of.js";
import { prepared } from "../prepared.js";
import type { Database } from "../schema.js";
import type { EventsTable } from "../tables/events.js";

type Exec = Kysely<Database>;
export type EventRow = EventsTable;

/** Rows per multi-row INSERT (11 columns each; well under SQLite's bound-variable limit). */
const INSERT_CHUNK = 400;

// The statements of every append (hot path: built once; see prepared.ts).
/** Moves an emitter's last id on by `count` (or to a newer millisecond), creating its row. */
const bumpIds = (db: Exec, $: { emitter: string; nowMs: number; count: number; lastSeq: number }) =>
  db
    .insertInto("event_emitters")
    .values({ emitter_id: $.emitter, last_ms: $.nowMs, last_seq: $.lastSeq })
    .onConflict((oc) =>
      oc.column("emitter_id").doUpdateSet((eb) => {
        const newer = eb("excluded.last_ms", ">", eb.ref("event_emitters.last_ms"));
        return {
          last_seq: eb
            .case()
            .when(newer)
            .then(eb.ref("excluded.last_seq"))
            .else(eb("event_emitters.last_seq", "+", $.count))
            .end(),
          last_ms: eb.case().when(newer).then(eb.ref("excluded.last_ms")).else(eb.ref("event_emitters.last_ms")).end(),
        };
      }),
    );
/*
 * PostgreSQL reads the moved id back with RETURNING (one round trip). SQLite runs the upsert,
 * then reads the row: RETURNING costs SQLite more than a second statement (the reservation, the
 * first statement of every append's transaction, took 52 µs with it and 32 µs as two, p50 a
 * transaction 5 ms apart; the channel count below 14 against 9 µs). Same rows either way: the
 * two run in the caller's write transaction, which nothing else writes in between.
 */
const reserveIds = prepared((db, $: { emitter: string; nowMs: number; count: number; lastSeq: number }) =>
  bumpIds(db, $).returning(["last_ms", "last_seq"]),
);
const bumpIdsOnly = prepared(bumpIds);
const lastIds = prepared((db, $: { emitter: string }) =>
  db.selectFrom("event_emitters").select(["last_ms", "last_seq"]).where("emitter_id", "=", $.emitter),
);
/** A batch's events: one insert, its SQL built once per row count (store/bulk.ts). */
const insertMany = bulkInsert("events", [
  "emitter_id",
  "channel",
  "sort_key",
  "id",
  "owner_id",
  "indexed_at_ms",
  "emit_id",
  "event_json",
  "size",
  "meta_json",
  "hops",
]);
/** The usual append under load is a single event: its insert is built once too. */
const insertOne = prepared((db, $: EventRow) =>
  db.insertInto("events").values({
    emitter_id: $.emitter_id,
    channel: $.channel,
    sort_key: $.sort_key,
    id: $.id,
    owner_id: $.owner_id,
    indexed_at_ms: $.indexed_at_ms,
    emit_id: $.emit_id,
    event_json: $.event_json,
    size: $.size,
    meta_json: $.meta_json,
    hops: $.hops,
  }),
);
const addToCount = (db: Exec, $: { emitter: string; channel: string; added: number }) =>
  db
    .insertInto("event_channels")
    .values({ emitter_id: $.emitter, channel: $.channel, count: $.added })
    .onConflict((oc) =>
      oc.columns(["emitter_id", "channel"]).doUpdateSet((eb) => ({ count: eb("event_channels.count", "+", $.added) })),
    );
const countAdded = prepared((db, $: { emitter: string; channel: string; added: number }) => addToCount(db, $).returning("count"));
const addToCountOnly = prepared(addToCount);
const channelCount = prepared((db, $: { emitter: string; channel: string }) =>
  db.selectFrom("event_channels").select("count").where("emitter_id", "=", $.emitter).where("channel", "=", $.channel),
);
const retentionCutoff = prepared((db, $: { emitter: string; channel: string; offset: number }) =>
  db
    .selectFrom("events")
    .select("sort_key")
    .where("emitter_id", "=", $.emitter)
    .where("channel", "=", $.channel)
    .orderBy("sort_key", "asc")
    .limit(1)
    .offset($.offset),
);
const deleteUpTo = prepared((db, $: { emitter: string; channel: string; sortKey: string }) =>
  db
    .deleteFrom("events")
    .where("emitter_id", "=", $.emitter)
    .where("channel", "=", $.channel)
    .where("sort_key", "<=", $.sortKey),
);
const adjustCount = prepared((db, $: { emitter: string; channel: string; delta: number }) =>
  db
    .updateTable("event_channels")
    .set((eb) => ({ count: eb("count", "+", $.delta) }))
    .where("emitter_id", "=", $.emitter)
    .where("channel", "=", $.channel),
);

/**
 * Reserves `count` consecutive ids for an emitter at `nowMs` with an upsert, inside the caller's
 * write transaction (on PostgreSQL it row-locks the emitter, so concurrent instances never hand
 * out the same id).
 * Returns the first id; the others follow with seq + 1 each.
 */
export async function reserveEventIds(
  db: Exec,
  emitterId: string,
  count: number,
  nowMs: number,
): Promise<{ ms: number; firstSeq: number }> {
  const args = { emitter: emitterId, nowMs, count, lastSeq: count - 1 };
  let row: { last_ms: number | bigint; last_seq: number | bigint };
  if (isSqlite(db)) {
    await bumpIdsOnly.execute(db, args);
    row = (await lastIds.first(db, { emitter: emitterId }))!;
  } else row = (await reserveIds.first(db, args))!;
  return { ms: Number(row.last_ms), firstSeq: Number(row.last_seq) - count + 1 };
}

export async function insertEvents(db: Exec, rows: EventRow[]): Promise<void> {
  if (rows.length === 1) return void (await insertOne.execute(db, rows[0]!));
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) await insertMany(db, rows.slice(i, i + INSERT_CHUNK));
}

/**
 * Counts `added` new events on a channel and drops the oldest beyond `retention`.
 * Returns how many were dropped.
 */
export async function applyRetention(
  db: Exec,
  emitterId: string,
  channel: string,
  added: number,
  retention: number,
): Promise<number> {
  let count: number | bigint;
  if (isSqlite(db)) {
    await addToCountOnly.execute(db, { emitter: emitterId, channel, added });
    count = (await channelCount.first(db, { emitter: emitterId, channel }))!.count;
  } else count = (await countAdded.first(db, { emitter: emitterId, channel, added }))!.count;
  const excess = Number(count) - retention;
  if (excess <= 0) return 0;
  const cutoff = await retentionCutoff.first(db, { emitter: emitterId, channel, offset: excess - 1 });
  if (!cutoff) return 0;
  const dropped = await deleteUpTo.affected(db, { emitter: emitterId, channel, sortKey: cutoff.sort_key });
  if (dropped > 0) await adjustCount.execute(db, { emitter: emitterId, channel, delta: -dropped });
  return dropped;
}

export async function countEvents(db: Exec, emitterId: string, channel: string): Promise<number> {
  const row = await db
    .selectFrom("event_channels")
    .select("count")
    .where("emitter_id", "=", emitterId)
    .where("channel", "=", channel)
    .executeTakeFirst();
  return row ? Number(row.count) : 0;
}

export interface PageWindow {
  limit: number;
  /** Sort key: return events older than it (the page after, newest first). */
  olderThan?: string;
  /** Sort key: return events newer than it (the page before). */
  newerThan?: string;
}

/** A page of one channel's events, newest first. */
export async function listEvents(db: Exec, emitterId: string, channel: string, w: PageWindow): Promise<EventRow[]> {
  let q = db.selectFrom("events").selectAll().where("emitter_id", "=", emitterId).where("channel", "=", channel);
  if (w.newerThan !== undefined && w.olderThan === undefined) {
    // The page just before the cursor: the `limit` nearest newer events, then newest first.
    const rows = await q.where("sort_key", ">", w.newerThan).orderBy("sort_key", "asc").limit(w.limit).execute();
    return rows.reverse();
  }
  if (w.olderThan !== undefined) q = q.where("sort_key", "<", w.olderThan);
  if (w.newerThan !== undefined) q = q.where("sort_key", ">", w.newerThan);
  return q.orderBy("sort_key", "desc").limit(w.limit).execute();
}

/** True when some retained event of the channel is older (`dir` "older") or newer than `sortKey`. */
export async function hasEventBeyond(
  db: Exec,
  emitterId: string,
  channel: string,
  sortKey: string,
  dir: "older" | "newer",
): Promise<boolean> {
  const row = await db
    .selectFrom("events")
    .select("sort_key")
    .where("emitter_id", "=", emitterId)
    .where("channel", "=", channel)
    .where("sort_key", dir === "older" ? "<" : ">", sortKey)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Events of some channels after `afterSortKey` (exclusive), oldest first: the resume backlog. */
export async function eventsAfter(
  db: Exec,
  emitterId: string,
  channels: string[],
  afterSortKey: string | undefined,
  limit: number,
): Promise<EventRow[]> {
  let q = db.selectFrom("events").selectAll().where("emitter_id", "=", emitterId).where("channel", "in", channels);
  if (afterSortKey !== undefined) q = q.where("sort_key", ">", afterSortKey);
  return q.orderBy("sort_key", "asc").limit(limit).execute();
}

/** Every channel's events of an emitter after a sort key, oldest first (bus resync). */
export async function eventsOfEmitterAfter(db: Exec, emitterId: string, afterSortKey: string, limit: number): Promise<EventRow[]> {
  return db
    .selectFrom("events")
    .selectAll()
    .where("emitter_id", "=", emitterId)
    .where("sort_key", ">", afterSortKey)
    .orderBy("sort_key", "asc")
    .limit(limit)
    .execute();
}

/** Specific events, for instances that learn of them through a notification. */
export async function eventsByKey(
  db: Exec,
  keys: Array<{ emitterId: string; channel: string; sortKey: string }>,
): Promise<EventRow[]> {
  if (keys.length === 0) return [];
  const rows = await db
    .selectFrom("events")
    .selectAll()
    .where((eb) =>
      eb.or(
        keys.map((k) =>
          eb.and([eb("emitter_id", "=", k.emitterId), eb("channel", "=", k.channel), eb("sort_key", "=", k.sortKey)]),
        ),
      ),
    )
    .execute();
  return rows.sort((a, b) => (a.sort_key < b.sort_key ? -1 : a.sort_key > b.sort_key ? 1 : 0));
}

/** Deletes a channel's events between two sort keys, both inclusive and both optional. */
export async function deleteEventRange(
  db: Exec,
  emitterId: string,
  channel: string,
  fromKey: string | undefined,
  toKey: string | undefined,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let q = trx.deleteFrom("events").where("emitter_id", "=", emitterId).where("channel", "=", channel);
    if (fromKey !== undefined) q = q.where("sort_key", ">=", fromKey);
    if (toKey !== undefined) q = q.where("sort_key", "<=", toKey);
    const deleted = Number((await q.executeTakeFirst()).numDeletedRows);
    if (deleted > 0) await adjustCount.execute(trx, { emitter: emitterId, channel, delta: -deleted });
    return deleted;
  });
}

/** Removes everything stored for an emitter that no longer exists. */
export async function forgetEmitterEvents(db: Exec, emitterId: string): Promise<void> {
  await db.deleteFrom("events").where("emitter_id", "=", emitterId).execute();
  await db.deleteFrom("event_channels").where("emitter_id", "=", emitterId).execute();
  await db.deleteFrom("event_stats").where("emitter_id", "=", emitterId).execute();
  // event_emitters is kept: an id reused by mistake still never goes backwards.
}

// -- PostgreSQL notifications (the cross-instance event bus) -------------------------------------

/** Minimal pg surfaces, so this file needs no pg import. */
interface PgQueryable {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

export const EVENTS_NOTIFY_CHANNEL = "headwater_events";

export async function listenForEvents(client: PgQueryable): Promise<void> {
  await client.query(`LISTEN ${EVENTS_NOTIFY_CHANNEL}`);
}

export async function notifyEvents(pool: PgQueryable, payload: string): Promise<void> {
  await pool.query("select pg_notify($1, $2)", [EVENTS_NOTIFY_CHANNEL, payload]);
}

/**
 * Notifies from inside the append transaction: PostgreSQL sends it only if the transaction
 * commits, and delivers notifications in commit order, which per emitter is id order.
 */
export async function notifyEventsInTransaction(trx: Exec, payload: string): Promise<void> {
  await sql`select pg_notify(${EVENTS_NOTIFY_CHANNEL}, ${payload})`.execute(trx);
}

/** How many of a channel's events lie between two sort keys (inclusive, either open). */
export async function countEventRange(db: Exec, emitterId: string, channel: string, fromKey: string | undefined, toKey: string | undefined): Promise<number> {
  let q = db.selectFrom("events").select(sql<number>`count(*)`.as("n")).where("emitter_id", "=", emitterId).where("channel", "=", channel);
  if (fromKey !== undefined) q = q.where("sort_key", ">=", fromKey);
  if (toKey !== undefined) q = q.where("sort_key", "<=", toKey);
  return Number((await q.executeTakeFirst())?.n ?? 0);
}

/**
 * A channel's events between two sort keys (inclusive, either open), oldest first, after
 * `afterKey` (exclusive): the next batch of a replay.
 */
export async function eventRange(
  db: Exec,
  emitterId: string,
  channel: string,
  fromKey: string | undefined,
  toKey: string | undefined,
  afterKey: string | undefined,
  limit: number,
): Promise<EventRow[]> {
  let q = db.selectFrom("events").selectAll().where("emitter_id", "=", emitterId).where("channel", "=", channel);
  if (fromKey !== undefined) q = q.where("sort_key", ">=", fromKey);
  if (toKey !== undefined) q = q.where("sort_key", "<=", toKey);
  if (afterKey !== undefined) q = q.where("sort_key", ">", afterKey);
  return q.orderBy("sort_key", "asc").limit(limit).execute();
}
