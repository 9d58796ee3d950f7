/**
 * The event bus: after an append commits, its events are published here, and SSE streams
 * listen (by emitter). Deliveries to subscribed listeners do not go through it: they are routed
 * inside the transaction that stores the events (delivery/route.ts), so a publish that never
 * happens (a crash right after the commit) costs a stream a live update, never a delivery. Listeners are indexed by emitter, so a publish costs
 * O(listeners of that emitter), not O(all streams).
 *
 * Two implementations behind one interface: `LocalEventBus` (one process) and `PgEventBus`
 * (pg-bus.ts: LISTEN/NOTIFY, so an append on one instance reaches streams on every instance).
 */
import type { Db } from "../store/db.js";
import type { EventRow } from "../store/repos/events.js";

/** A committed event as the bus carries it (the stored row). */
export type BusEvent = EventRow;

export type BusListener = (events: BusEvent[]) => void;

export interface EventBus {
  /**
   * Called inside the append transaction with the rows it writes, before the commit. The
   * PostgreSQL bus notifies other instances here, so notifications follow commit order.
   */
  stage?(trx: Db, events: BusEvent[]): Promise<void>;
  /** Publishes committed events (grouped by nothing in particular; order kept per emitter). */
  publish(events: BusEvent[]): void;
  /** Calls `listener` with the events of one emitter as they are published; returns unsubscribe. */
  subscribe(emitterId: string, listener: BusListener): () => void;
  /** How many listeners follow an emitter (open streams, for tests and metrics). */
  listenerCount(emitterId: string): number;
  close(): Promise<void>;
}

export class LocalEventBus implements EventBus {
  private readonly byEmitter = new Map<string, Set<BusListener>>();

  publish(events: BusEvent[]): void {
    if (events.length === 0) return;
    const groups = new Map<string, BusEvent[]>();
    for (const e of events) {
      if (!this.byEmitter.has(e.emitter_id)) continue;
      let g = groups.get(e.emitter_id);
      if (!g) groups.set(e.emitter_id, (g = []));
      g.push(e);
    }
    for (const [emitterId, group] of groups) {
      for (const listener of [...(this.byEmitter.get(emitterId) ?? [])]) this.safeCall(listener, group);
    }
  }

  subscribe(emitterId: string, listener: BusListener): () => void {
    let set = this.byEmitter.get(emitterId);
    if (!set) this.byEmitter.set(emitterId, (set = new Set()));
    set.add(listener);
    return () => {
      const s = this.byEmitter.get(emitterId);
      if (!s) return;
      s.delete(listener);
      if (s.size === 0) this.byEmitter.delete(emitterId);
    };
  }

  listenerCount(emitterId: string): number {
    return this.byEmitter.get(emitterId)?.size ?? 0;
  }

  async close(): Promise<void> {
    this.byEmitter.clear();
  }

  private safeCall(listener: BusListener, events: BusEvent[]): void {
    try {
      listener(events);
    } catch (err) {
      // A faulty listener must not stop the others (nor the append that published).
      queueMicrotask(() => {
        throw err;
      });
    }
  }
}
