/**
 * The delivery outbox of earlier versions: rows written in the append transaction for events
 * that a subscription may route. Events are now routed in that transaction itself
 * (delivery/route.ts); rows an older version left are drained at start (delivery/legacy-outbox.ts).
 */
import { sql, type Kysely } from "kysely";
import type { Database } from "../schema.js";
import type { DeliveryOutboxTable } from "../tables/events.js";
import type { DialectName } from "../db.js";

type Exec = Kysely<Database>;

export type OutboxRow = DeliveryOutboxTable;

const CHUNK = 300;

/** The oldest pending deliveries; per emitter they come in event order. */
async function takeOutbox(db: Exec, limit: number): Promise<OutboxRow[]> {
  return db
    .selectFrom("delivery_outbox")
    .selectAll()
    .orderBy("sort_key", "asc")
    .orderBy("emitter_id", "asc")
    .limit(limit)
    .execute();
}

async function removeOutbox(
  db: Exec,
  rows: Array<{ emitter_id: string; channel: string; sort_key: string }>,
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    const part = rows.slice(i, i + CHUNK);
    await db
      .deleteFrom("delivery_outbox")
      .where((eb) =>
        eb.or(
          part.map((r) =>
            eb.and([eb("emitter_id", "=", r.emitter_id), eb("channel", "=", r.channel), eb("sort_key", "=", r.sort_key)]),
          ),
        ),
      )
      .execute();
  }
}

/**
 * Runs `fn` only while this process is the one draining the outbox: on PostgreSQL several
 * instances share the outbox, so a transaction-scoped advisory lock elects one, and `fn` gets
 * that transaction; SQLite has one process, and `fn` gets the database. Returns false when
 * another instance holds the lock.
 */
async function withDispatchLock(db: Exec, dialect: DialectName, fn: (exec: Exec) => Promise<void>): Promise<boolean> {
  if (dialect === "sqlite") {
    await fn(db);
    return true;
  }
  return db.transaction().execute(async (trx) => {
    const { rows } = await sql<{ ok: boolean }>`select pg_try_advisory_xact_lock(7433001) as ok`.execute(trx);
    if (!rows[0]?.ok) return false;
    await fn(trx);
    return true;
  });
}

/**
 * Hands the outbox to `handle` batch by batch, oldest first, until it is empty; each batch is
 * removed in the transaction `handle` wrote in, so a row is handled once even across a crash.
 * On PostgreSQL the dispatch lock's transaction holds the whole drain (the lock lasts as long as
 * it); on SQLite each batch has a transaction of its own. Returns false when another instance
 * holds the lock (and nothing was handled).
 */
export async function drainOutboxBatches(
  db: Exec,
  dialect: DialectName,
  batchSize: number,
  handle: (trx: Exec, rows: OutboxRow[]) => Promise<void>,
): Promise<boolean> {
  return withDispatchLock(db, dialect, async (exec) => {
    const inTransaction = <T>(fn: (trx: Exec) => Promise<T>) => (dialect === "sqlite" ? exec.transaction().execute(fn) : fn(exec));
    for (;;) {
      const more = await inTransaction(async (trx) => {
        const rows = await takeOutbox(trx, batchSize);
        if (rows.length === 0) return false;
        await handle(trx, rows);
        await removeOutbox(trx, rows);
        return true;
      });
      if (!more) return;
    }
  });
}
