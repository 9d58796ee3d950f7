/** A source's `this.db` (one row per key, JSON text) and its dedupe memory. */
import type { Db } from "../db.js";
import { prepared } from "../prepared.js";

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
 * Writes staged per source by this process, counted so that a remembered snapshot (see
 * SourceStateRepo) read before the latest one is never used. Counted when a write is staged,
 * inside its transaction: on SQLite nothing else reads or writes the database until that
 * transaction ends, so a snapshot read after this count is of what that transaction left (or,
 * rolled back, of what was there before), and one read before it is not kept.
 */
const writesStaged = new Map<string, number>();
const stagedFor = (sourceId: string) => writesStaged.get(sourceId) ?? 0;
function staged(sourceId: string): void {
  writesStaged.set(sourceId, stagedFor(sourceId) + 1);
}

/** Applies `this.db` changes (JSON text to set, null to delete) inside the caller's transaction. */
export async function applyStateIn(trx: Db, sourceId: string, changes: Record<string, string | null>): Promise<void> {
  if (Object.keys(changes).length > 0) staged(sourceId);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) await deleteKey.execute(trx, { source: sourceId, key });
    else await setKey.execute(trx, { source: sourceId, key, value });
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
  /** Snapshots by source, with the count of staged writes they were read after. */
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
    if (hit && hit.after === stagedFor(sourceId)) return { ...hit.values };
    const after = stagedFor(sourceId);
    const rows = await stateOf.rows(this.db, { source: sourceId });
    const values = Object.fromEntries(rows.map((r) => [r.key, r.value]));
    // Kept only if no write was staged while it was read (it may be of before that write); the
    // caller then gets a copy. What is not kept is the caller's own already.
    if (this.remember && after === stagedFor(sourceId) && this.keep(sourceId, values, after)) return { ...values };
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
