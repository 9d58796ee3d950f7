/**
 * Event stats: per emitter and minute, events / errors / logs appended and invocations /
 * compute ms of runs that ended. Written by the event store inside its commit transaction
 * (events and job completions), read by `GET .../stats`, pruned by age. Retention and deletes of
 * events never touch these rows.
 */
import { sql } from "kysely";
import type { Db } from "../db.js";
import { prepared } from "../prepared.js";

export const MINUTE_MS = 60_000;

export interface StatsDelta {
  emitterId: string;
  minuteMs: number;
  events: number;
  errors: number;
  logs: number;
  invocations: number;
  computeMs: number;
}

/** What counting needs of a stored event and of a run that ended. */
export interface CountedEvent {
  emitter_id: string;
  channel: string;
}
export interface CountedRun {
  targetId: string;
  invocations: number;
  computeMs: number;
}

const addStats = prepared((db, $: StatsDelta) =>
  db
    .insertInto("event_stats")
    .values({
      emitter_id: $.emitterId,
      minute_ms: $.minuteMs,
      events: $.events,
      errors: $.errors,
      logs: $.logs,
      invocations: $.invocations,
      compute_ms: $.computeMs,
    })
    .onConflict((oc) =>
      oc.columns(["emitter_id", "minute_ms"]).doUpdateSet({
        events: sql<number>`event_stats.events + ${$.events}`,
        errors: sql<number>`event_stats.errors + ${$.errors}`,
        logs: sql<number>`event_stats.logs + ${$.logs}`,
        invocations: sql<number>`event_stats.invocations + ${$.invocations}`,
        compute_ms: sql<number>`event_stats.compute_ms + ${$.computeMs}`,
      }),
    ),
);

/** The counts of one commit: one delta per emitter, in the minute of `nowMs`. */
export function statsOf(events: CountedEvent[], runs: CountedRun[], nowMs: number): StatsDelta[] {
  const minuteMs = nowMs - (nowMs % MINUTE_MS);
  const byEmitter = new Map<string, StatsDelta>();
  const of = (emitterId: string) => {
    let d = byEmitter.get(emitterId);
    if (!d) byEmitter.set(emitterId, (d = { emitterId, minuteMs, events: 0, errors: 0, logs: 0, invocations: 0, computeMs: 0 }));
    return d;
  };
  for (const e of events) {
    const d = of(e.emitter_id);
    if (e.channel === "$errors") d.errors++;
    else if (e.channel === "$logs") d.logs++;
    else d.events++;
  }
  for (const r of runs) {
    if (r.invocations === 0 && r.computeMs === 0) continue;
    const d = of(r.targetId);
    d.invocations += r.invocations;
    d.computeMs += Math.max(0, Math.round(r.computeMs));
  }
  return [...byEmitter.values()];
}

/**
 * Adds the deltas inside the caller's transaction. Sorted by emitter: two instances' commits lock
 * these rows in one order (and after every other row of the commit), so they never deadlock.
 */
export async function addStatsIn(trx: Db, deltas: StatsDelta[]): Promise<void> {
  if (deltas.length > 1) deltas.sort((a, b) => (a.emitterId < b.emitterId ? -1 : a.emitterId > b.emitterId ? 1 : 0));
  for (const d of deltas) await addStats.execute(trx, d);
}

export interface StatsBucketRow {
  /** Bucket index from the window's first bucket. */
  n: number;
  events: number;
  errors: number;
  logs: number;
  invocations: number;
  compute_ms: number;
}

/** Sums per bucket of `bucketMs` from `fromMs` (a bucket start) up to `toMs` (exclusive). */
export async function statsBuckets(db: Db, emitterId: string, fromMs: number, toMs: number, bucketMs: number): Promise<StatsBucketRow[]> {
  // Cast: better-sqlite3 binds numbers as REAL, which would make the division fractional.
  const n = sql<number>`cast((minute_ms - ${fromMs}) / ${bucketMs} as bigint)`;
  const rows = await db
    .selectFrom("event_stats")
    .select([
      n.as("n"),
      sql<number>`sum(events)`.as("events"),
      sql<number>`sum(errors)`.as("errors"),
      sql<number>`sum(logs)`.as("logs"),
      sql<number>`sum(invocations)`.as("invocations"),
      sql<number>`sum(compute_ms)`.as("compute_ms"),
    ])
    .where("emitter_id", "=", emitterId)
    .where("minute_ms", ">=", fromMs)
    .where("minute_ms", "<", toMs)
    .groupBy(sql`n`)
    .execute();
  return rows.map((r) => ({
    n: Math.floor(Number(r.n)),
    events: Number(r.events),
    errors: Number(r.errors),
    logs: Number(r.logs),
    invocations: Number(r.invocations),
    compute_ms: Number(r.compute_ms),
  }));
}

/** Drops minutes before `beforeMs` (HEADWATER_STATS_RETENTION_DAYS). */
export async function pruneStats(db: Db, beforeMs: number): Promise<number> {
  const r = await db.deleteFrom("event_stats").where("minute_ms", "<", beforeMs).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** A deleted source's or workflow's stats. */
export async function forgetEmitterStats(db: Db, emitterId: string): Promise<void> {
  await db.deleteFrom("event_stats").where("emitter_id", "=", emitterId).execute();
}
