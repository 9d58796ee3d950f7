/**
 * The event store: `append` assigns ids, applies retention, writes the delivery outbox and
 * commits, all in one transaction, then publishes to the bus. Resolves once durable.
 *
 * Appends are grouped (group commit): those made in the same turn of the event loop, or while a
 * commit is running, share the next transaction, and on SQLite that transaction is the turn's
 * shared one (store/write-group.ts). With SQLite every write is serialised anyway, so one commit
 * for many events is what makes ingest fast. Each caller still gets its own ids back, in its
 * input order, and commits are published one after the other, in order.
 */
import { randomUUID } from "node:crypto";
import { eventSortKey, formatEventId } from "../../shared/ids.js";
import type { EmitInput, EventStore, StoredEvent } from "../services.js";
import type { Db } from "../store/db.js";
import { WriteGroup } from "../store/write-group.js";
import {
  applyRetention,
  insertEvents,
  reserveEventIds,
  type EventRow,
} from "../store/repos/events.js";
import { insertOutbox, type OutboxRow } from "../store/repos/deliveries.js";
import { globFor, subscribedChannels } from "../store/repos/subscriptions.js";
import { MAX_DELIVERY_HOPS } from "../delivery/hops.js";
import type { EventBus } from "./bus.js";
import { encodeEmitMeta } from "./summaries.js";

/** Events per transaction at most; more wait for the next one. */
const MAX_BATCH = 2000;

export interface EventStoreOptions {
  db: Db;
  bus: EventBus;
  /** Events kept per emitter and channel. */
  retention: number;
  /** The database's write transactions (default: one of its own, ungrouped). */
  writes?: WriteGroup;
  /** Called after a commit that wrote outbox rows (the dispatcher's wake-up). */
  onOutbox?: () => void;
  now?: () => number;
}

export interface ManagedEventStore extends EventStore {
  /** Waits for appends in flight; later appends are refused. */
  close(): Promise<void>;
}

interface Prepared {
  emitterId: string;
  ownerId: string;
  channel: string;
  eventJson: string;
  size: number;
  metaJson: string;
  hops: number;
}

interface Waiter {
  items: Prepared[];
  resolve: (stored: StoredEvent[]) => void;
  reject: (err: unknown) => void;
}

export class EventAppendError extends Error {}

/** Validates and serialises an input; throws EventAppendError for data that cannot be stored. */
function prepare(input: EmitInput): Prepared {
  let eventJson: string | undefined;
  let metaJson: string;
  try {
    eventJson = JSON.stringify(input.event === undefined ? null : input.event);
    metaJson = encodeEmitMeta(input.meta);
  } catch (err) {
    throw new EventAppendError(`event is not JSON-serialisable: ${err instanceof Error ? err.message : String(err)}`);
  }
  // JSON.stringify returns undefined for a bare function or symbol.
  eventJson ??= "null";
  if (!input.emitterId || !input.ownerId) throw new EventAppendError("emitterId and ownerId are required");
  return {
    emitterId: input.emitterId,
    ownerId: input.ownerId,
    // "default" names the default channel "" everywhere in the API (decisions.md).
    channel: input.channel === "default" ? "" : (input.channel ?? ""),
    eventJson,
    size: Buffer.byteLength(eventJson, "utf8"),
    metaJson,
    hops: Math.max(0, Math.floor(input.hops ?? 0)),
  };
}

export function createEventStore(options: EventStoreOptions): ManagedEventStore {
  const { db, bus, retention } = options;
  const writes = options.writes ?? new WriteGroup(db, false);
  const now = options.now ?? Date.now;
  let queue: Waiter[] = [];
  let running: Promise<void> | undefined;
  let closed = false;

  async function commitIn(trx: Db, items: Prepared[]): Promise<{ rows: EventRow[]; outbox: boolean }> {
    const nowMs = now();
    // Ids: one reservation per emitter, handed out in input order.
    const perEmitter = new Map<string, number>();
    for (const it of items) perEmitter.set(it.emitterId, (perEmitter.get(it.emitterId) ?? 0) + 1);
    const nextSeq = new Map<string, { ms: number; seq: number }>();
    // Rows are locked in one global order (emitter id, then channel), so two instances whose
    // batches name the same emitters never wait on each other in a cycle (a deadlock).
    for (const [emitterId, count] of [...perEmitter].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const r = await reserveEventIds(trx, emitterId, count, nowMs);
      nextSeq.set(emitterId, { ms: r.ms, seq: r.firstSeq });
    }
    const rows: EventRow[] = items.map((it) => {
      const n = nextSeq.get(it.emitterId)!;
      const id = { ms: n.ms, seq: n.seq++ };
      return {
        emitter_id: it.emitterId,
        channel: it.channel,
        sort_key: eventSortKey(id),
        id: formatEventId(id),
        owner_id: it.ownerId,
        indexed_at_ms: nowMs,
        emit_id: randomUUID().replace(/-/g, ""),
        event_json: it.eventJson,
        size: it.size,
        meta_json: it.metaJson,
        hops: it.hops,
      };
    });
    await insertEvents(trx, rows);

    const perChannel = new Map<string, { emitterId: string; channel: string; n: number }>();
    for (const r of rows) {
      const k = `${r.emitter_id}\u0000${r.channel}`;
      const g = perChannel.get(k);
      if (g) g.n++;
      else perChannel.set(k, { emitterId: r.emitter_id, channel: r.channel, n: 1 });
    }
    const channelOrder = [...perChannel].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [, g] of channelOrder) await applyRetention(trx, g.emitterId, g.channel, g.n, retention);

    // Outbox: only events some subscription of their owner may route.
    const byOwner = new Map<string, Set<string>>();
    for (const r of rows) {
      let s = byOwner.get(r.owner_id);
      if (!s) byOwner.set(r.owner_id, (s = new Set()));
      s.add(r.emitter_id);
    }
    const outbox: OutboxRow[] = [];
    for (const [ownerId, emitters] of byOwner) {
      const subs = await subscribedChannels(trx, ownerId, [...emitters]);
      if (subs.length === 0) continue;
      const routed = new Set(subs.map((s) => `${s.emitter_id}\u0000${s.channel}`));
      for (const r of rows) {
        // Past the hop bound (a cycle error) an event is never routed: no outbox row.
        if (r.owner_id !== ownerId || r.hops > MAX_DELIVERY_HOPS) continue;
        const glob = globFor(r.emitter_id);
        if (
          routed.has(`${r.emitter_id}\u0000${r.channel}`) ||
          (glob !== undefined && routed.has(`${glob}\u0000${r.channel}`))
        ) {
          outbox.push({
            emitter_id: r.emitter_id,
            sort_key: r.sort_key,
            event_id: r.id,
            channel: r.channel,
            owner_id: r.owner_id,
            hops: r.hops,
            event_json: r.event_json,
            created_at_ms: nowMs,
          });
        }
      }
    }
    if (outbox.length > 0) await insertOutbox(trx, outbox);
    await bus.stage?.(trx, rows);
    return { rows, outbox: outbox.length > 0 };
  }

  /** The waiting appends of the next commit, in arrival order. */
  function takeBatch(): Waiter[] {
    const batch: Waiter[] = [];
    let size = 0;
    while (queue.length > 0 && (batch.length === 0 || size + queue[0]!.items.length <= MAX_BATCH)) {
      const w = queue.shift()!;
      batch.push(w);
      size += w.items.length;
    }
    return batch;
  }

  async function commitNext(): Promise<void> {
    let batch: Waiter[] | undefined;
    let result: { rows: EventRow[]; outbox: boolean };
    try {
      result = await writes.run((trx) => {
        // Taken when the transaction runs, after this turn: appends made meanwhile (several
        // sources' runs ending together) join it. Kept if the write group runs this again alone.
        batch ??= takeBatch();
        return commitIn(trx, batch.flatMap((w) => w.items));
      });
    } catch (err) {
      for (const w of batch ?? takeBatch()) w.reject(err);
      return;
    }
    let offset = 0;
    for (const w of batch!) {
      const mine = result.rows.slice(offset, offset + w.items.length);
      offset += w.items.length;
      w.resolve(mine.map((r) => ({ id: r.id, emitterId: r.emitter_id, channel: r.channel, indexedAtMs: r.indexed_at_ms })));
    }
    bus.publish(result.rows);
    if (result.outbox) options.onOutbox?.();
  }

  /** One commit at a time, so that commits are published in order. */
  function kick(): void {
    if (running || queue.length === 0) return;
    running = commitNext().finally(() => {
      running = undefined;
      kick();
    });
  }

  return {
    append(inputs: EmitInput[]): Promise<StoredEvent[]> {
      if (closed) return Promise.reject(new EventAppendError("the event store is closed"));
      if (inputs.length === 0) return Promise.resolve([]);
      let items: Prepared[];
      try {
        items = inputs.map(prepare);
      } catch (err) {
        return Promise.reject(err);
      }
      return new Promise<StoredEvent[]>((resolve, reject) => {
        queue.push({ items, resolve, reject });
        kick();
      });
    },
    async close(): Promise<void> {
      closed = true;
      while (running) await running;
      queue = [];
    },
  };
}
