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

/** Applies `this.db` changes (JSON text to set, null to delete) inside the caller's transaction. */
export async function applyStateIn(trx: Db, sourceId: string, changes: Record<string, string | null>): Promise<void> {
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

export class SourceStateRepo {
  constructor(private readonly db: Db) {}

  /** Every key of the source, value as JSON text. */
  async snapshot(sourceId: string): Promise<Record<string, string>> {
    const rows = await stateOf.rows(this.db, { source: sourceId });
    return Object.fromEntries(rows.map((r) => [r.key, r.value]));
  }

  async dedupeState(sourceId: string): Promise<string | undefined> {
    const row = await this.db.selectFrom("source_dedupe").select("state").where("source_id", "=", sourceId).executeTakeFirst();
    return row?.state;
  }

  /** Drops everything the source kept (on delete). */
  async drop(sourceId: string): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom("source_state").where("source_id", "=", sourceId).execute();
      await trx.deleteFrom("source_dedupe").where("source_id", "=", sourceId).execute();
    });
  }
}
