/**
 * Routing: which listeners (subscriptions, auto-subscriptions made concrete, workflows) receive
 * each stored event, as invocation jobs inserted in the transaction that stores the events
 * (InvocationQueue.enqueueIn). The jobs exist exactly when the events do, so each listener is
 * handed each event once: no outbox to drain, no window in which a crash repeats or drops one.
 *
 * Listeners of an emitter come in listener id order, and one event's jobs follow the previous
 * event's, so every listener receives one emitter's events in order. A delivery that would pass
 * the hop bound is not made; the listener's `$errors` gets a cycle error instead (returned to
 * the caller, which stores it in the same transaction).
 */
import type { EmitInput, InvocationJob, InvocationQueue } from "../services.js";
import type { Db } from "../store/db.js";
import { globFor, subscribedListeners, type ListenerRow } from "../store/repos/subscriptions.js";
import { cycleErrorInput } from "./cycle-error.js";
import { MAX_DELIVERY_HOPS } from "./hops.js";

/** What routing needs of a stored event. */
export interface RoutableEvent {
  id: string;
  emitter_id: string;
  channel: string;
  owner_id: string;
  hops: number;
  event_json: string;
}

export interface Routed {
  /** Targets that received jobs (wake the queue for them once committed). */
  targets: Set<string>;
  /** Cycle errors to store with the events (they have hops past the bound: never routed). */
  cycleErrors: EmitInput[];
}

/** Inserts the listeners' jobs for `events` inside `trx`; see the file comment. */
export async function routeIn(trx: Db, queue: InvocationQueue, events: RoutableEvent[]): Promise<Routed> {
  const routed: Routed = { targets: new Set(), cycleErrors: [] };
  // Events past the bound (cycle errors themselves) are never routed.
  const routable = events.filter((e) => e.hops <= MAX_DELIVERY_HOPS);
  if (routable.length === 0) return routed;
  const byOwner = new Map<string, Set<string>>();
  for (const e of routable) {
    let emitters = byOwner.get(e.owner_id);
    if (!emitters) byOwner.set(e.owner_id, (emitters = new Set()));
    emitters.add(e.emitter_id);
  }
  /** Listeners by owner, emitter (or glob) and channel. */
  const listeners = new Map<string, string[]>();
  for (const [ownerId, emitters] of byOwner) {
    for (const row of await subscribedListeners(trx, ownerId, [...emitters])) add(listeners, ownerId, row);
  }
  if (listeners.size === 0) return routed;

  const jobs: InvocationJob[] = [];
  for (const e of routable) {
    const direct = listeners.get(key(e.owner_id, e.emitter_id, e.channel)) ?? [];
    const glob = globFor(e.emitter_id);
    const byGlob = glob ? (listeners.get(key(e.owner_id, glob, e.channel)) ?? []) : [];
    const targets = [...new Set([...direct, ...byGlob])].sort();
    if (targets.length === 0) continue;
    const event: unknown = JSON.parse(e.event_json);
    for (const listenerId of targets) {
      if (e.hops + 1 > MAX_DELIVERY_HOPS) {
        routed.cycleErrors.push(
          cycleErrorInput({ listenerId, ownerId: e.owner_id, emitterId: e.emitter_id, eventId: e.id, channel: e.channel, event }),
        );
        continue;
      }
      jobs.push({
        targetId: listenerId,
        ownerId: e.owner_id,
        trigger: "event",
        event,
        origin: { emitterId: e.emitter_id, eventId: e.id, channel: e.channel, hops: e.hops + 1 },
      });
      routed.targets.add(listenerId);
    }
  }
  await queue.enqueueIn(trx, jobs);
  return routed;
}

const key = (owner: string, emitter: string, channel: string) => `${owner}\u0000${emitter}\u0000${channel}`;

function add(map: Map<string, string[]>, ownerId: string, row: ListenerRow): void {
  const k = key(ownerId, row.emitter_id, row.channel);
  const list = map.get(k);
  if (list) list.push(row.listener_id);
  else map.set(k, [row.listener_id]);
}
