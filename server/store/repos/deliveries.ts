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
export async function takeOutbox(db: Exec, limit: number): Promise<OutboxRow[]> {
  return db
    .selectFrom("delivery_outbox")
    .selectAll()
    .orderBy("sort_key", "asc")
    .orderBy("emitter_id", "asc")
    .limit(limit)
    .execute();
}

export async function removeOutbox(
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
export async function withDispatchLock(db: Exec, dialect: DialectName, fn: (exec: Exec) => Promise<void>): Promise<boolean> {
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
