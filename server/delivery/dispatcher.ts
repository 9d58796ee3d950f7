/**
 * The delivery dispatcher: drains the outbox (written in the append transaction) in event
 * order, turns each event into one invocation job per matching listener, queues them durably
 * in the runtime's InvocationQueue (which runs a target's jobs one at a time, in order), and
 * only then removes the outbox rows. A crash before the removal re-delivers from the outbox at
 * the next start, so no acknowledged event is lost on its way to a listener.
 */
import type { EventStore, InvocationJob, InvocationQueue } from "../services.js";
import type { DialectName, Db } from "../store/db.js";
import { removeOutbox, takeOutbox, withDispatchLock, type OutboxRow } from "../store/repos/deliveries.js";
import { matchingListeners } from "../store/repos/subscriptions.js";
import { cycleErrorInput } from "./cycle-error.js";
import { MAX_DELIVERY_HOPS } from "./hops.js";

/** When another instance is dispatching, try again after this long. */
const BUSY_RETRY_MS = 100;

export interface DispatcherOptions {
  db: Db;
  dialect: DialectName;
  queue: InvocationQueue;
  events: EventStore;
  log: { error(obj: unknown, msg: string): void };
  /** Poll for rows written by other instances (PostgreSQL) or left by a failure. */
  pollMs?: number;
  batchSize?: number;
}

export class DeliveryDispatcher {
  private running: Promise<void> | undefined;
  private again = false;
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private busyTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private stopped = false;

  constructor(private readonly o: DispatcherOptions) {}

  start(): void {
    this.timer = setInterval(() => this.wake(), this.o.pollMs ?? 2000);
    this.timer.unref();
    this.wake();
  }

  /** Runs a drain now (or right after the one in progress). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.wake();
      }
    });
  }

  /** Resolves once everything queued so far has been handed to the invocation queue. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.busyTimer) clearTimeout(this.busyTimer);
    await this.idle();
  }

  private async drain(): Promise<void> {
    try {
      const ran = await withDispatchLock(this.o.db, this.o.dialect, async () => {
        for (;;) {
          if (this.stopped) return;
          const rows = await takeOutbox(this.o.db, this.o.batchSize ?? 200);
          if (rows.length === 0) return;
          await this.dispatch(rows);
        }
      });
      this.failures = 0;
      // Another instance holds the round: it may have read the outbox just before our rows
      // committed, so look again soon rather than at the next poll.
      if (!ran && !this.stopped && !this.busyTimer) {
        this.busyTimer = setTimeout(() => {
          this.busyTimer = undefined;
          this.wake();
        }, BUSY_RETRY_MS);
        this.busyTimer.unref();
      }
    } catch (err) {
      // A platform failure (database, queue): keep the rows and try again with backoff.
      this.failures++;
      this.o.log.error({ err }, "event delivery failed; retrying");
      const delay = Math.min(30_000, 250 * 2 ** Math.min(this.failures, 7));
      this.retryTimer = setTimeout(() => this.wake(), delay);
      this.retryTimer.unref();
    }
  }

  private async dispatch(rows: OutboxRow[]): Promise<void> {
    const listenersCache = new Map<string, string[]>();
    const jobs: InvocationJob[] = [];
    const cycleErrors = [];
    for (const row of rows) {
      // Events a cycle error created are never routed (the bound already fired).
      if (row.hops > MAX_DELIVERY_HOPS) continue;
      const key = `${row.owner_id}\u0000${row.emitter_id}\u0000${row.channel}`;
      let listeners = listenersCache.get(key);
      if (!listeners) {
        listeners = await matchingListeners(this.o.db, row.owner_id, row.emitter_id, row.channel);
        listenersCache.set(key, listeners);
      }
      if (listeners.length === 0) continue;
      const event: unknown = JSON.parse(row.event_json);
      for (const listenerId of listeners) {
        if (row.hops + 1 > MAX_DELIVERY_HOPS) {
          cycleErrors.push(
            cycleErrorInput({
              listenerId,
              ownerId: row.owner_id,
              emitterId: row.emitter_id,
              eventId: row.event_id,
              channel: row.channel,
              event,
            }),
          );
          continue;
        }
        jobs.push({
          targetId: listenerId,
          ownerId: row.owner_id,
          trigger: "event",
          event,
          origin: { emitterId: row.emitter_id, eventId: row.event_id, channel: row.channel, hops: row.hops + 1 },
        });
      }
    }
    if (jobs.length > 0) await this.o.queue.enqueue(jobs);
    if (cycleErrors.length > 0) await this.o.events.append(cycleErrors);
    await removeOutbox(this.o.db, rows);
  }
}
