/**
 * `this.$emit(event, { delivery_ts })`: an event delivered later. The vendor's scheduled-tasks
 * source emits with a future `delivery_ts` and expects the event to appear on its channel at
 * that time, not before.
 *
 * Such an emit is held in the `delayed_emits` table (so it survives a restart) under its source
 * (delivered as that source's event, on the channel it was emitted to; removed with the source:
 * SourceStateRepo.drop), and appended to the event store once due. Hooked in as an EventStore
 * wrapper (`wrap(store)`, given to the invoker): whatever stores a run's emits goes through it,
 * and events without a future `deliverAt` pass straight on.
 *
 * Delivery: a loop wakes at the next due time (at least every `pollMs`, for rows another
 * instance added), claims each due row with a compare-and-set on `claimed_until`, appends the
 * claimed events, then deletes them. At least once, like the queue: a crash between the append
 * and the delete delivers again after the claim runs out; of several instances, one claims.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "../store/db.js";
import type { EmitInput, EventStore, StoredEvent } from "../services.js";

export interface DelayedEmitsOptions {
  /** Longest sleep between looks for due rows (rows held by other instances). */
  pollMs?: number;
  /** How long a claim keeps a row from other instances. */
  claimMs?: number;
  log?: (msg: string, err?: unknown) => void;
}

const BATCH = 100;
/** The latest time a Date can hold; a later `delivery_ts` is not a time, and is delivered now. */
const MAX_TIME = 8.64e15;

export class DelayedEmits {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly pollMs: number;
  private readonly claimMs: number;

  constructor(
    private readonly db: Db,
    private readonly events: EventStore,
    private readonly options: DelayedEmitsOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 5_000;
    this.claimMs = options.claimMs ?? 30_000;
  }

  /**
   * The event store as the invoker should see it: every method that stores a run's emits
   * (`append`, and `commit` where the store has it) holds the ones with a future `deliverAt`
   * first, then passes the rest on with its other arguments unchanged. Held before the store's
   * own write: if that write fails the run is retried and may hold its event twice (at least
   * once), never lose it.
   */
  wrap<S extends EventStore>(store: S): S {
    const storing = new Set<PropertyKey>(["append", "commit"]);
    return new Proxy(store, {
      get: (target, key) => {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== "function") return value;
        const method = value as (...args: unknown[]) => Promise<StoredEvent[]>;
        if (!storing.has(key)) return method.bind(target);
        return async (inputs: EmitInput[], ...rest: unknown[]): Promise<StoredEvent[]> => {
          const now = Date.now();
          const later = inputs.filter(
            (i) => i.deliverAt !== undefined && i.deliverAt > now && i.deliverAt <= MAX_TIME,
          );
          if (later.length === 0) return method.apply(target, [inputs, ...rest]);
          await this.hold(later, now);
          const rest_ = inputs.filter((i) => !later.includes(i));
          // A bare append of nothing is no write at all; a commit still ends its job.
          if (rest_.length === 0 && key === "append") return [];
          return method.apply(target, [rest_, ...rest]);
        };
      },
    });
  }

  private async hold(inputs: EmitInput[], now: number): Promise<void> {
    await this.db
      .insertInto("delayed_emits")
      .values(
        inputs.map((i) => ({
          id: randomUUID(),
          source_id: i.emitterId,
          owner_id: i.ownerId,
          channel: i.channel,
          event: JSON.stringify(i.event ?? null),
          meta: JSON.stringify(i.meta ?? {}),
          hops: i.hops ?? 0,
          deliver_at: Math.floor(i.deliverAt!),
          claimed_until: 0,
          created_ms: now,
        })),
      )
      .execute();
    this.wakeBy(Math.min(...inputs.map((i) => i.deliverAt!)));
  }

  start(): void {
    this.stopped = false;
    this.wakeBy(Date.now());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Makes sure the loop looks again no later than `at` (and within pollMs). */
  private wakeBy(at: number): void {
    if (this.stopped) return;
    const now = Date.now();
    const when = Math.max(now, Math.min(at, now + this.pollMs));
    if (this.timer && this.nextWake <= when) return;
    if (this.timer) clearTimeout(this.timer);
    this.nextWake = when;
    this.timer = setTimeout(() => this.tick(), when - now);
  }

  /** One look, after the previous one (never two at once on an instance), then the next wake-up. */
  private tick(): void {
    this.timer = undefined;
    const run: Promise<void> = (this.running ?? Promise.resolve())
      .then(() => this.deliverDue())
      .catch((err: unknown) => this.options.log?.("delayed emits: delivery failed", err))
      .then(() => {
        if (this.running === run) this.running = undefined;
        return this.scheduleNext();
      });
    this.running = run;
  }

  private nextWake = 0;

  private async scheduleNext(): Promise<void> {
    if (this.stopped) return;
    const next = await this.db
      .selectFrom("delayed_emits")
      .select("deliver_at")
      .orderBy("deliver_at")
      .limit(1)
      .executeTakeFirst()
      .catch(() => undefined);
    this.wakeBy(next ? next.deliver_at : Date.now() + this.pollMs);
  }

  /** Delivers every due row this instance can claim, a batch at a time. */
  private async deliverDue(): Promise<void> {
    for (;;) {
      const now = Date.now();
      const due = await this.db
        .selectFrom("delayed_emits")
        .selectAll()
        .where("deliver_at", "<=", now)
        .where("claimed_until", "<", now)
        .orderBy("deliver_at")
        .limit(BATCH)
        .execute();
      if (due.length === 0 || this.stopped) return;
      const claimed = [];
      for (const row of due) {
        const r = await this.db
          .updateTable("delayed_emits")
          .set({ claimed_until: now + this.claimMs })
          .where("id", "=", row.id)
          .where("claimed_until", "=", row.claimed_until)
          .executeTakeFirst();
        if (Number(r.numUpdatedRows) === 1) claimed.push(row);
      }
      if (claimed.length > 0) {
        // A source deleted while its run was still storing these: they go with it.
        const alive = new Set(
          (
            await this.db
              .selectFrom("sources")
              .select("id")
              .where("id", "in", [...new Set(claimed.map((r) => r.source_id))])
              .execute()
          ).map((r) => r.id),
        );
        const deliver = claimed.filter((row) => alive.has(row.source_id));
        if (deliver.length > 0)
          await this.events.append(
            deliver.map((row) => ({
              emitterId: row.source_id,
              ownerId: row.owner_id,
              channel: row.channel,
              event: JSON.parse(row.event) as unknown,
              meta: JSON.parse(row.meta) as EmitInput["meta"],
              hops: row.hops,
            })),
          );
        await this.db
          .deleteFrom("delayed_emits")
          .where(
            "id",
            "in",
            claimed.map((r) => r.id),
          )
          .execute();
      }
      if (due.length < BATCH) return;
    }
  }
}
