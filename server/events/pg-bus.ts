/**
 * The event bus across instances sharing one PostgreSQL database. Every instance learns of
 * events through NOTIFY on one channel, sent from inside the append transaction (`stage`):
 * PostgreSQL delivers notifications in commit order, and per emitter commit order is id order
 * (ids are reserved under the emitter's row lock), so every instance publishes an emitter's
 * events in id order, whichever instance appended them. A notification carries only emitter,
 * channel and sort key (payloads are limited to 8 kB); other instances read those rows once,
 * while the appending instance publishes the rows it kept when its own notification comes back.
 */
import { randomUUID } from "node:crypto";
import type pg from "pg";
import { eventSortKey } from "../../shared/ids.js";
import type { Db } from "../store/db.js";
import { PgSession } from "../store/pg-session.js";
import {
  EVENTS_NOTIFY_CHANNEL as CHANNEL,
  eventsByKey,
  eventsOfEmitterAfter,
  listenForEvents,
  notifyEvents,
  notifyEventsInTransaction,
} from "../store/repos/events.js";
import { LocalEventBus, type BusEvent, type BusListener, type EventBus } from "./bus.js";

/** Payload bytes per notification, under PostgreSQL's 8000-byte limit. */
const MAX_PAYLOAD_BYTES = 7000;
/** Own staged rows whose notification never came back (rolled back, connection lost) go after this. */
const OWN_TTL_MS = 60_000;
/** After a lost connection, emitters with nothing published yet are re-read from this long before. */
const RESYNC_MARGIN_MS = 5_000;

interface Payload {
  /** Sending instance. */
  i: string;
  /** The sender's token for rows it kept (its own copy of the notification publishes them). */
  t?: string;
  /** [emitter_id, channel, sort_key] per event. */
  e: Array<[string, string, string]>;
}

export interface PgEventBusOptions {
  pool: pg.Pool;
  db: Db;
  log: { warn(obj: unknown, msg: string): void };
}

export class PgEventBus implements EventBus {
  private readonly local = new LocalEventBus();
  private readonly instance = randomUUID();
  private session: PgSession | undefined;
  /** Fetches of remote events run one after another, so their order is kept. */
  private chain: Promise<void> = Promise.resolve();
  /** Appends whose notification was sent in their transaction (not to be notified again). */
  private readonly notified = new WeakSet<BusEvent[]>();
  /** Appends published when their own notification comes back, in commit order. */
  private readonly deferred = new WeakSet<BusEvent[]>();
  /** Emitters with listeners here (how many), and the last event published for each. */
  private readonly followed = new Map<string, number>();
  private readonly lastKey = new Map<string, string>();
  /** When the LISTEN connection was lost (undefined while connected). */
  private lostAt: number | undefined;
  /** Rows of this instance's notifications, by token, until the notification comes back. */
  private readonly own = new Map<string, { rows: BusEvent[]; at: number }>();

  private constructor(private readonly o: PgEventBusOptions) {}

  static async start(o: PgEventBusOptions): Promise<PgEventBus> {
    const bus = new PgEventBus(o);
    await bus.connect();
    return bus;
  }

  private async connect(): Promise<void> {
    this.session = await PgSession.open({
      pool: this.o.pool,
      label: "event bus",
      retryMs: 1000,
      setup: listenForEvents,
      onNotification: (msg) => {
        if (msg.channel === CHANNEL && msg.payload) this.onNotify(msg.payload);
      },
      onLost: () => {
        this.lostAt ??= Date.now();
      },
      onReconnected: () => {
        const since = this.lostAt ?? Date.now();
        this.lostAt = undefined;
        this.chain = this.chain
          .then(() => this.resync(since))
          .catch((err: unknown) => this.o.log.warn({ err }, "event bus resync failed"));
      },
      log: this.o.log,
    });
  }

  /**
   * Notifications sent while the connection was down are lost: re-read what the emitters
   * followed here got since (from their last published event, else from shortly before the
   * loss). Streams skip what they already sent, so overlap is harmless.
   */
  private async resync(lostAt: number): Promise<void> {
    const fallback = eventSortKey({ ms: Math.max(0, lostAt - RESYNC_MARGIN_MS), seq: 0 });
    for (const emitterId of this.followed.keys()) {
      let after = this.lastKey.get(emitterId) ?? fallback;
      for (;;) {
        const rows = await eventsOfEmitterAfter(this.o.db, emitterId, after, 500);
        this.deliver(rows);
        if (rows.length < 500) break;
        after = rows.at(-1)!.sort_key;
      }
    }
  }

  /** Publishes to this instance's listeners, remembering the last key of followed emitters. */
  private deliver(rows: BusEvent[]): void {
    for (const r of rows) {
      if (!this.followed.has(r.emitter_id)) continue;
      const last = this.lastKey.get(r.emitter_id);
      if (last === undefined || r.sort_key > last) this.lastKey.set(r.emitter_id, r.sort_key);
    }
    this.local.publish(rows);
  }

  private onNotify(text: string): void {
    let payload: Payload;
    try {
      payload = JSON.parse(text) as Payload;
    } catch {
      return;
    }
    if (payload.i === this.instance) {
      const mine = payload.t === undefined ? undefined : this.own.get(payload.t);
      if (!mine) return;
      this.own.delete(payload.t!);
      this.chain = this.chain.then(() => this.deliver(mine.rows));
      return;
    }
    if (!Array.isArray(payload.e)) return;
    const keys = payload.e.map(([emitterId, channel, sortKey]) => ({ emitterId, channel, sortKey }));
    this.chain = this.chain
      .then(async () => {
        const rows = await eventsByKey(this.o.db, keys);
        // Rows already dropped (retention, deletes) are simply not delivered live.
        this.deliver(rows);
      })
      .catch((err: unknown) => this.o.log.warn({ err }, "reading notified events failed"));
  }

  async stage(trx: Db, events: BusEvent[]): Promise<void> {
    if (events.length === 0) return;
    // Without the LISTEN connection our own notification would not come back: these rows reach
    // local listeners through the resync after reconnecting, in order with everything missed.
    const listening = this.session?.connected === true;
    const now = Date.now();
    for (const [k, v] of this.own) if (now - v.at > OWN_TTL_MS) this.own.delete(k);
    for (const chunk of chunks(events)) {
      const token = listening ? randomUUID() : undefined;
      const payload: Payload = {
        i: this.instance,
        t: token,
        e: chunk.map((e) => [e.emitter_id, e.channel, e.sort_key]),
      };
      await notifyEventsInTransaction(trx, JSON.stringify(payload));
      if (token) this.own.set(token, { rows: chunk, at: now });
    }
    this.notified.add(events);
    this.deferred.add(events);
  }

  publish(events: BusEvent[]): void {
    if (this.deferred.has(events)) return; // published when the notification comes back
    this.deliver(events);
    if (this.notified.has(events)) return;
    for (const chunk of chunks(events)) {
      const payload: Payload = {
        i: this.instance,
        e: chunk.map((e) => [e.emitter_id, e.channel, e.sort_key]),
      };
      notifyEvents(this.o.pool, JSON.stringify(payload)).catch((err: unknown) =>
        this.o.log.warn({ err }, "event notification failed"),
      );
    }
  }

  subscribe(emitterId: string, listener: BusListener): () => void {
    this.followed.set(emitterId, (this.followed.get(emitterId) ?? 0) + 1);
    const unsubscribe = this.local.subscribe(emitterId, listener);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      unsubscribe();
      const n = (this.followed.get(emitterId) ?? 1) - 1;
      if (n > 0) this.followed.set(emitterId, n);
      else {
        this.followed.delete(emitterId);
        this.lastKey.delete(emitterId);
      }
    };
  }

  listenerCount(emitterId: string): number {
    return this.local.listenerCount(emitterId);
  }

  async close(): Promise<void> {
    await this.session?.close();
    await this.chain;
    await this.local.close();
  }
}

/** Splits events so each notification's keys stay under MAX_PAYLOAD_BYTES. */
function chunks(events: BusEvent[]): BusEvent[][] {
  const out: BusEvent[][] = [];
  let current: BusEvent[] = [];
  let bytes = 0;
  for (const e of events) {
    const size = Buffer.byteLength(JSON.stringify([e.emitter_id, e.channel, e.sort_key]), "utf8") + 1;
    if (current.length > 0 && bytes + size > MAX_PAYLOAD_BYTES) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(e);
    bytes += size;
  }
  if (current.length > 0) out.push(current);
  return out;
}
