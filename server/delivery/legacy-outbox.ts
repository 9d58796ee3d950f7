/**
 * The delivery outbox of earlier versions, drained at start. Events are now routed in the
 * transaction that stores them (delivery/route.ts); a database written by a version before that
 * may still hold outbox rows (events stored, not yet handed to their listeners). Each round
 * routes a batch of them and removes them in ONE transaction, so each is delivered once, even
 * across a crash in the middle of the drain.
 */
import type { EmitInput, EventStore, InvocationQueue } from "../services.js";
import type { DialectName, Db } from "../store/db.js";
import { drainOutboxBatches } from "../store/repos/deliveries.js";
import { routeIn } from "./route.js";

export interface LegacyOutboxOptions {
  db: Db;
  dialect: DialectName;
  queue: InvocationQueue;
  events: EventStore;
  log: { error(obj: unknown, msg: string): void };
  batchSize?: number;
}

/**
 * Routes every row left in the outbox, oldest first; resolves when it is empty (or another
 * instance is draining it). A failure is logged and left for the next start: the rows stay.
 */
export async function drainLegacyOutbox(o: LegacyOutboxOptions): Promise<void> {
  const woken = new Set<string>();
  const cycleErrors: EmitInput[] = [];
  try {
    await drainOutboxBatches(o.db, o.dialect, o.batchSize ?? 200, async (trx, rows) => {
      const routed = await routeIn(
        trx,
        o.queue,
        rows.map((r) => ({ id: r.event_id, emitter_id: r.emitter_id, channel: r.channel, owner_id: r.owner_id, hops: r.hops, event_json: r.event_json })),
      );
      for (const t of routed.targets) woken.add(t);
      cycleErrors.push(...routed.cycleErrors);
    });
  } catch (err) {
    o.log.error({ err }, "draining the delivery outbox of an earlier version failed; it is tried again at the next start");
    return;
  }
  o.queue.wake(woken);
  // Rare (a cycle left mid-way by an older version): stored after the rows are gone, so a crash
  // in between loses that error record, never a delivery.
  if (cycleErrors.length > 0) await o.events.append(cycleErrors).catch((err: unknown) => o.log.error({ err }, "storing cycle errors failed"));
}
