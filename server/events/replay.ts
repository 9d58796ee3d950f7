/**
 * Replay (decisions.md "Event inspection"): a channel's retained events in a range are
 * delivered again, in id order, to the channel's current listeners (or one of them), through
 * the same durable queue as first deliveries and with the same job payload (same event, same
 * origin id and channel, same hop count).
 *
 * Exactly once per replay: every job of a replay is inserted in ONE transaction, so a crash
 * before the commit leaves none (the request failed; asking again replays once) and after it
 * leaves all, which the queue then runs once each. The API answers 202 after that commit. The
 * events are read and queued in batches with a turn of the event loop between them, so a replay
 * of 10,000 events never holds the loop (on SQLite other queries wait for the transaction, as for
 * any write; it is one pass of inserts).
 *
 * A replay is a new delivery, not a repeat the queue could drop: the listener runs again. What
 * the listener then emits passes its component's dedupe as any run's emits do (a source with
 * `dedupe: "unique"` that emits the same ids again stores nothing new), and the run counts
 * against the owner's quotas and reports failures on its `$errors`, as any invocation does.
 */
import { eventSortKey, parseEventId } from "../../shared/ids.js";
import { MAX_DELIVERY_HOPS } from "../delivery/hops.js";
import type { InvocationJob, InvocationQueue } from "../services.js";
import type { Db } from "../store/db.js";
import { countEventRange, eventRange } from "../store/repos/events.js";
import { globFor, subscribedListeners } from "../store/repos/subscriptions.js";
import { EventQueryError } from "./reads.js";

/** Events read and queued per step. */
const BATCH = 500;
/** Events one replay may cover; a wider range is refused (narrow it with start_id / end_id). */
export const MAX_REPLAY_EVENTS = 100_000;

export class ReplayListenerError extends Error {}

export interface ReplayRequest {
  emitterId: string;
  ownerId: string;
  channel: string;
  startId?: string | undefined;
  endId?: string | undefined;
  listenerId?: string | undefined;
}

function keyOf(id: string, param: string): string {
  const parsed = parseEventId(id);
  if (!parsed) throw new EventQueryError("bad_request", `${param} is not an event id: ${id}`);
  return eventSortKey(parsed);
}

/** The channel's current listeners, in listener id order (as routing orders them). */
export async function listenersOf(db: Db, ownerId: string, emitterId: string, channel: string): Promise<string[]> {
  const glob = globFor(emitterId);
  const rows = await subscribedListeners(db, ownerId, [emitterId]);
  const ids = rows.filter((r) => r.channel === channel && (r.emitter_id === emitterId || r.emitter_id === glob)).map((r) => r.listener_id);
  return [...new Set(ids)].sort();
}

export async function replayEvents(db: Db, queue: InvocationQueue, r: ReplayRequest): Promise<{ events: number; deliveries: number }> {
  const from = r.startId !== undefined ? keyOf(r.startId, "start_id") : undefined;
  const to = r.endId !== undefined ? keyOf(r.endId, "end_id") : undefined;
  if (from !== undefined && to !== undefined && from > to) throw new EventQueryError("bad_request", "start_id is later than end_id");

  let listeners = await listenersOf(db, r.ownerId, r.emitterId, r.channel);
  if (r.listenerId !== undefined) {
    if (!listeners.includes(r.listenerId)) {
      const channel = r.channel === "" ? "the default channel" : `channel ${r.channel}`;
      throw new ReplayListenerError(`listener ${r.listenerId} does not listen to ${channel} of ${r.emitterId}`);
    }
    listeners = [r.listenerId];
  }
  const inRange = await countEventRange(db, r.emitterId, r.channel, from, to);
  if (inRange > MAX_REPLAY_EVENTS) {
    throw new EventQueryError(
      "bad_request",
      `the range holds ${inRange} events; a replay covers at most ${MAX_REPLAY_EVENTS} (narrow it with start_id and end_id)`,
    );
  }
  if (listeners.length === 0 || inRange === 0) return { events: inRange, deliveries: 0 };

  const result = await db.transaction().execute(async (trx) => {
    let events = 0;
    let deliveries = 0;
    let after: string | undefined;
    for (;;) {
      const rows = await eventRange(trx, r.emitterId, r.channel, from, to, after, BATCH);
      if (rows.length === 0) break;
      const jobs: InvocationJob[] = [];
      for (const e of rows) {
        events++;
        // Past the hop bound the first delivery was not made either (a cycle error was stored).
        if (e.hops + 1 > MAX_DELIVERY_HOPS) continue;
        const event: unknown = JSON.parse(e.event_json);
        for (const listenerId of listeners) {
          jobs.push({
            targetId: listenerId,
            ownerId: e.owner_id,
            trigger: "event",
            event,
            origin: { emitterId: e.emitter_id, eventId: e.id, channel: e.channel, hops: e.hops + 1 },
          });
        }
      }
      await queue.enqueueIn(trx, jobs);
      deliveries += jobs.length;
      after = rows[rows.length - 1]!.sort_key;
      if (rows.length < BATCH) break;
      // A turn of the loop between batches: requests keep being answered during a long replay.
      await new Promise((resolve) => setImmediate(resolve));
    }
    return { events, deliveries };
  });
  if (result.deliveries > 0) queue.wake(listeners);
  return result;
}
