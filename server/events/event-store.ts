/**
 * The event store: `append` assigns ids, applies retention, routes the events to their
 * listeners (their jobs inserted, delivery/route.ts) and commits, all in one transaction, then
 * publishes to the bus. Resolves once durable. `commit` does the same and also commits a job's
 * completion (its jobs deleted, its `this.db` changes and quota count) in that transaction: a
 * run's results and the end of its job are one fact.
 *
 * Appends are grouped (group commit): those made in the same turn of the event loop, or while a
 * commit is running, share the next transaction, and on SQLite that transaction is the turn's
 * shared one (store/write-group.ts). With SQLite every write is serialised anyway, so one commit
 * for many events is what makes ingest fast. Each caller still gets its own ids back, in its
 * input order, and commits are published one after the other, in order. A group that fails is
 * committed again one caller at a time, so one caller's failure (a job completed elsewhere) is
 * never another's.
 */
import { Counter } from "prom-client";
import { randomUUID } from "node:crypto";
import { eventSortKey, formatEventId } from "../../shared/ids.js";
import { routeIn } from "../delivery/route.js";
import type { EmitInput, EventStore, InvocationQueue, JobCompletion, StoredEvent } from "../services.js";
import type { Db } from "../store/db.js";
import { WriteGroup } from "../store/write-group.js";
import { applyCompletions } from "../store/repos/completions.js";
import { addStatsIn, statsOf } from "../store/repos/event-stats.js";
import { applyRetention, insertEvents, reserveEventIds, type EventRow } from "../store/repos/events.js";
import { storableJson, storableText } from "../store/storable-text.js";
import type { EventBus } from "./bus.js";
import { encodeEmitMeta } from "./summaries.js";

/** Events per transaction at most; more wait for the next one. */
const MAX_BATCH = 2000;

export interface EventStoreOptions {
  db: Db;
  bus: EventBus;
  /** Events kept per emitter and channel. */
  retention: number;
  /**
   * Count events and ended runs in `event_stats` in each commit's transaction (default true;
   * the bench turns it off to measure what counting costs).
   */
  countStats?: boolean;
  /** The database's write transactions (default: one of its own, ungrouped). */
  writes?: WriteGroup;
  /** Called after a commit that stored events (SQLite's search index fills behind it: store/search/). */
  onStored?: () => void;
  now?: () => number;
}

export interface ManagedEventStore extends EventStore {
  /**
   * Routes events to subscribed listeners through this queue from now on (their jobs are
   * inserted with the events). Until it is set nothing is routed: only a store used alone
   * (tests of storage) lacks one; the server sets it before it takes requests.
   */
  routeTo(queue: InvocationQueue): void;
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
  completion?: JobCompletion;
  resolve: (stored: StoredEvent[]) => void;
  reject: (err: unknown) => void;
}

export class EventAppendError extends Error {}

/** Validates and serialises an input; throws EventAppendError for data that cannot be stored. */
function prepare(input: EmitInput): Prepared {
  let eventJson: string;
  let metaJson: string;
  try {
    // A NUL or a lone surrogate a component wrote is stored as U+FFFD (store/storable-text.ts).
    eventJson = storableJson(JSON.stringify(input.event === undefined ? null : input.event) ?? "null");
    metaJson = storableJson(encodeEmitMeta(input.meta));
  } catch (err) {
    throw new EventAppendError(`event is not JSON-serialisable: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (!input.emitterId || !input.ownerId) throw new EventAppendError("emitterId and ownerId are required");
  return {
    emitterId: input.emitterId,
    ownerId: input.ownerId,
    // "default" names the default channel "" everywhere in the API (decisions.md).
    channel: input.channel === "default" ? "" : storableText(input.channel ?? ""),
    eventJson,
    size: Buffer.byteLength(eventJson, "utf8"),
    metaJson,
    hops: Math.max(0, Math.floor(input.hops ?? 0)),
  };
}

/** The runs that ended with these completions, for the stats of what ran. */
function runsOf(completions: JobCompletion[]): Array<{ targetId: string; invocations: number; computeMs: number }> {
  const runs = [];
  for (const c of completions) if (c.usage?.targetId) runs.push({ targetId: c.usage.targetId, invocations: c.usage.invocations, computeMs: c.usage.computeMs });
  return runs;
}

/** Events stored (`/metrics`; registered by server/metrics). Channels by kind, never by name. */
export const eventsAppended = new Counter({
  name: "headwater_events_appended_total",
  help: "Events stored, by kind of channel ($logs, $errors, or an emit channel)",
  labelNames: ["channel"] as const,
  registers: [],
});
const channelKind = (channel: string) => (channel === "$logs" ? "logs" : channel === "$errors" ? "errors" : "emit");

export function createEventStore(options: EventStoreOptions): ManagedEventStore {
  const { db, bus, retention } = options;
  const writes = options.writes ?? new WriteGroup(db, false);
  const now = options.now ?? Date.now;
  const countStats = options.countStats ?? true;
  let waiting: Waiter[] = [];
  let queue: InvocationQueue | undefined;
  let running: Promise<void> | undefined;
  let closed = false;

  /** Stores the events: ids reserved, rows inserted, retention applied. */
  async function storeIn(trx: Db, items: Prepared[], nowMs: number): Promise<EventRow[]> {
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
    return rows;
  }

  interface Committed {
    /** The callers' events, in input order. */
    rows: EventRow[];
    /** Everything to publish: those, then the cycle errors routing made. */
    published: EventRow[];
    /** Targets that received jobs. */
    woken: Set<string>;
  }

  /** One transaction: the events, their deliveries, the completions of the jobs that made them. */
  async function commitIn(trx: Db, items: Prepared[], completions: JobCompletion[]): Promise<Committed> {
    const nowMs = now();
    const rows = items.length > 0 ? await storeIn(trx, items, nowMs) : [];
    let published = rows;
    let woken = new Set<string>();
    if (queue && rows.length > 0) {
      const routed = await routeIn(trx, queue, rows);
      woken = routed.targets;
      if (routed.cycleErrors.length > 0) published = rows.concat(await storeIn(trx, routed.cycleErrors.map(prepare), nowMs));
    }
    if (published.length > 0) await bus.stage?.(trx, published);
    // After the events: a job's completion commits with what its run emitted, or not at all.
    await applyCompletions(trx, completions);
    // Last: stats rows are the final locks any commit takes (see repos/event-stats.ts).
    if (countStats) await addStatsIn(trx, statsOf(published, runsOf(completions), nowMs));
    return { rows, published, woken };
  }

  /** The waiting appends of the next commit, in arrival order. */
  function takeBatch(): Waiter[] {
    const batch: Waiter[] = [];
    let size = 0;
    while (waiting.length > 0 && (batch.length === 0 || size + waiting[0]!.items.length <= MAX_BATCH)) {
      const w = waiting.shift()!;
      batch.push(w);
      size += w.items.length;
    }
    return batch;
  }

  async function commitNext(): Promise<void> {
    let batch: Waiter[] | undefined;
    let result: Committed;
    try {
      result = await writes.run((trx) => {
        // Taken when the transaction runs, after this turn: appends made meanwhile (several
        // sources' runs ending together) join it. Kept if the write group runs this again alone.
        batch ??= takeBatch();
        return commitIn(
          trx,
          batch.flatMap((w) => w.items),
          batch.flatMap((w) => (w.completion ? [w.completion] : [])),
        );
      });
    } catch (err) {
      batch ??= takeBatch();
      if (batch.length === 1) batch[0]!.reject(err);
      // One caller's failure is not the others': each is committed again alone, in order.
      else for (const w of batch) await commitAlone(w);
      return;
    }
    settle(batch!, result);
  }

  async function commitAlone(w: Waiter): Promise<void> {
    let result: Committed;
    try {
      result = await writes.run((trx) => commitIn(trx, w.items, w.completion ? [w.completion] : []));
    } catch (err) {
      w.reject(err);
      return;
    }
    settle([w], result);
  }

  /** Hands each caller its ids, then publishes and wakes the listeners' runners. */
  function settle(batch: Waiter[], result: Committed): void {
    for (const r of result.rows) eventsAppended.inc({ channel: channelKind(r.channel) });
    let offset = 0;
    for (const w of batch) {
      const mine = result.rows.slice(offset, offset + w.items.length);
      offset += w.items.length;
      w.resolve(mine.map((r) => ({ id: r.id, emitterId: r.emitter_id, channel: r.channel, indexedAtMs: r.indexed_at_ms })));
    }
    if (result.published.length > 0) bus.publish(result.published);
    if (result.woken.size > 0) queue?.wake(result.woken);
    if (result.published.length > 0) options.onStored?.();
  }

  /** One commit at a time, so that commits are published in order. */
  function kick(): void {
    if (running || waiting.length === 0) return;
    running = commitNext().finally(() => {
      running = undefined;
      kick();
    });
  }

  function enter(inputs: EmitInput[], completion: JobCompletion | undefined): Promise<StoredEvent[]> {
    if (closed) return Promise.reject(new EventAppendError("the event store is closed"));
    if (inputs.length === 0 && !completion) return Promise.resolve([]);
    let items: Prepared[];
    try {
      items = inputs.map(prepare);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<StoredEvent[]>((resolve, reject) => {
      waiting.push({ items, ...(completion ? { completion } : {}), resolve, reject });
      kick();
    });
  }

  return {
    append: (inputs) => enter(inputs, undefined),
    commit: (inputs, completion) => enter(inputs, completion),
    routeTo(q) {
      queue = q;
    },
    async close(): Promise<void> {
      closed = true;
      while (running) await running;
      waiting = [];
    },
  };
}
