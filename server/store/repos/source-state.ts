/** A source's `this.db` (one row per key, JSON text) and its dedupe memory. */
import type { Db } from "../db.js";
import { prepared } from "../prepared.js";
import { storableJson, storableText } from "../storable-text.js";

// Read and written for every batch of a source's runs (hot path: built once).
const stateOf = prepared((db, $: { source: string }) =>
  db.selectFrom("source_state").select(["key", "value"]).where("source_id", "=", $.source),
);
const setKey = prepared((db, $: { source: string; key: string; value: string }) =>
  db
    .insertInto("source_state")
    .values({ source_id: $.source, key: $.key, value: $.value })
    .onConflict((oc) => oc.columns(["source_id", "key"]).doUpdateSet({ value: $.value })),
);
const deleteKey = prepared((db, $: { source: string; key: string }) =>
  db.deleteFrom("source_state").where("source_id", "=", $.source).where("key", "=", $.key),
);

/**
 * Writes staged by this process, marked so that a remembered snapshot (see SourceStateRepo) read
 * before the latest write of its source is never used. A write is marked when it is staged,
 * inside its transaction: on SQLite nothing else reads or writes the database until that
 * transaction ends, so a snapshot read after the mark is of what that transaction left (or,
 * rolled back, of what was there before), and one read before it is not kept.
 *
 * Each write takes the next number of one sequence, and a source's mark is its latest write's.
 * Marks are kept for the sources written most recently, at most MAX_MARKS: a source whose mark
 * was dropped reads as the highest mark ever dropped, which is at least its own last one. So a
 * later write of it still gets a higher mark than any snapshot was read after, and dropping
 * marks can only make a remembered snapshot be read again, never be used when stale.
 */
const MAX_MARKS = 10_000;
const marks = new Map<string, number>();
let lastMark = 0;
let highestDropped = 0;
const markOf = (sourceId: string) => marks.get(sourceId) ?? highestDropped;
function staged(sourceId: string): void {
  // Deleted first, so the map's order is the order of the latest writes.
  marks.delete(sourceId);
  marks.set(sourceId, ++lastMark);
  if (marks.size > MAX_MARKS) {
    const [oldest, mark] = marks.entries().next().value!;
    marks.delete(oldest);
    highestDropped = Math.max(highestDropped, mark);
  }
}

/** @internal for tests: how many sources' marks are kept. */
export const markedSources = () => marks.size;

/** Applies `this.db` changes (JSON text to set, null to delete) inside the caller's transaction. */
export async function applyStateIn(trx: Db, sourceId: string, changes: Record<string, string | null>): Promise<void> {
  if (Object.keys(changes).length > 0) staged(sourceId);
  for (const [written, value] of Object.entries(changes)) {
    // A key or value holding a NUL or a lone surrogate is stored with U+FFFD (storable-text.ts).
    const key = storableText(written);
    if (value === null) await deleteKey.execute(trx, { source: sourceId, key });
    else await setKey.execute(trx, { source: sourceId, key, value: storableJson(value) });
  }
}

const saveDedupe = prepared((db, $: { source: string; state: string }) =>
  db
    .insertInto("source_dedupe")
    .values({ source_id: $.source, state: $.state })
    .onConflict((oc) => oc.column("source_id").doUpdateSet({ state: $.state })),
);

/** Keeps a source's dedupe memory inside the caller's transaction. */
export async function saveDedupeIn(trx: Db, sourceId: string, state: string): Promise<void> {
  await saveDedupe.execute(trx, { source: sourceId, state });
}

/** Users' sources' state removed by other means (a user deleted): remembered snapshots of them go. */
export function stateRemovedElsewhere(sourceIds: Iterable<string>): void {
  for (const id of sourceIds) staged(id);
}

/** Snapshots remembered at most (the oldest go first). */
const MAX_REMEMBERED = 1000;
/** A snapshot larger than this (its values' JSON, in characters) is read each time, not kept. */
const MAX_REMEMBERED_CHARS = 64 * 1024;

export class SourceStateRepo {
  /** Snapshots by source, with the mark of the latest write they were read after. */
  private readonly remembered = new Map<string, { values: Record<string, string>; after: number }>();

  constructor(
    private readonly db: Db,
    /**
     * Remember each source's snapshot until it changes: only where every write goes through this
     * process (SQLite; on PostgreSQL another instance may change it). Saves a read before every
     * batch of a source's runs (30 µs of an event's way to its streams, measured).
     */
    private readonly remember = false,
  ) {}

  /** Every key of the source, value as JSON text: the caller's own copy. */
  async snapshot(sourceId: string): Promise<Record<string, string>> {
    const hit = this.remember ? this.remembered.get(sourceId) : undefined;
    if (hit && hit.after === markOf(sourceId)) return { ...hit.values };
    const after = markOf(sourceId);
    const rows = await stateOf.rows(this.db, { source: sourceId });
    const values = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    // Kept only if no write was staged while it was read (it may be of before that write); the
    // caller then gets a copy. What is not kept is the caller's own already.
    if (this.remember && after === markOf(sourceId) && this.keep(sourceId, values, after)) return { ...values };
    return values;
  }

  /** Remembers a snapshot unless it is too large to; says whether it did. */
  private keep(sourceId: string, values: Record<string, string>, after: number): boolean {
    let chars = 0;
    for (const v of Object.values(values)) chars += v.length;
    this.remembered.delete(sourceId);
    if (chars > MAX_REMEMBERED_CHARS) return false;
    this.remembered.set(sourceId, { values, after });
    if (this.remembered.size > MAX_REMEMBERED) this.remembered.delete(this.remembered.keys().next().value!);
    return true;
  }

  async dedupeState(sourceId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom("source_dedupe").select("state").where("source_id", "=", sourceId).executeTakeFirst();
    return row?.state;
  }

  /** Drops everything the source kept (on delete). */
  async drop(sourceId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("source_state").where("source_id", "=", sourceId).execute();
      staged(sourceId);
      await trx.deleteFrom("source_dedupe").where("source_id", "=", sourceId).execute();
    });
  }
}
