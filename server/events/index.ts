/**
 * The events concern as app.ts builds it: the bus, the event store, reads and deletes,
 * subscriptions, workflow records, and, once the runtime's queue exists, delivery.
 *
 *   const events = await createEventServices({ store, config, publicUrl, log });
 *   ... runtime built with events.store (for $emit) ...
 *   events.routeTo(queue);          // before the server takes requests
 *   queue handler for p_ targets: events.workflowHandler(runWorkflowSteps, quotas)
 *   events.startDelivery(queue);    // once the queue runs: drains an older version's outbox
 */
import type { Config } from "../config.js";
import { drainLegacyOutbox } from "../delivery/legacy-outbox.js";
import { SubscriptionService } from "../delivery/subscriptions.js";
import type { Quotas } from "../quotas/quotas.js";
import type { InvocationQueue } from "../services.js";
import type { OpenedDb } from "../store/db.js";
import { ownsParticipant } from "../store/repos/subscriptions.js";
import { TargetCache } from "../runtime/triggers/target-cache.js";
import {
  createWorkflowRunner,
  readRunnableWorkflow,
  type RunnableWorkflow,
  type RunWorkflowSteps,
  type WorkflowJobHandler,
  type WorkflowRunnerOptions,
} from "../workflows/runner.js";
import { WorkflowService } from "../workflows/service.js";
import { LocalEventBus, type EventBus } from "./bus.js";
import { createEventStore, type ManagedEventStore } from "./event-store.js";
import { PgEventBus } from "./pg-bus.js";
import { deleteEvents, listSummaries, type ListOptions } from "./reads.js";
import { replayEvents, type ReplayRequest } from "./replay.js";
import { readStats, startStatsPruning, type StatsWindow } from "./stats.js";

export interface Logger {
  warn(obj: unknown, msg: string): void;
  error(obj: unknown, msg: string): void;
}

export interface EventServicesOptions {
  store: OpenedDb;
  config: Pick<Config, "eventRetention" | "statsRetentionDays">;
  /** Base of endpoint URLs (known once the server listens). */
  publicUrl: () => string;
  log: Logger;
}

export interface EventServices {
  bus: EventBus;
  /** Implements `EventStore` (server/services.ts): what `$emit`, logs and errors call. */
  store: ManagedEventStore;
  subscriptions: SubscriptionService;
  workflows: WorkflowService;
  /** True when `id` is a source or workflow of the owner. */
  owns(ownerId: string, id: string): Promise<boolean>;
  list: (emitterId: string, channel: string, opts: ListOptions) => ReturnType<typeof listSummaries>;
  deleteRange: (emitterId: string, channel: string, startId?: string, endId?: string) => Promise<number>;
  /** Queues a range's events again for the channel's listeners (events/replay.ts). */
  replay(request: ReplayRequest): Promise<{ events: number; deliveries: number }>;
  /** Per-bucket counts of an emitter (events/stats.ts). */
  stats(emitterId: string, window: StatsWindow): ReturnType<typeof readStats>;
  /** The invocation-queue handler for workflow (`p_`) jobs. */
  workflowHandler(
    runSteps: RunWorkflowSteps,
    quotas: Quotas,
    runs?: Pick<WorkflowRunnerOptions, "changes" | "answers" | "retention" | "dispatch" | "fence" | "forgetCalls" | "log">,
  ): WorkflowJobHandler;
  /** Routes stored events to listeners through the runtime's queue (jobs inserted with the events). */
  routeTo(queue: InvocationQueue): void;
  /** Once the queue runs: hands an earlier version's outbox rows to their listeners. */
  startDelivery(queue: InvocationQueue): Promise<void>;
  close(): Promise<void>;
}

export async function createEventServices(o: EventServicesOptions): Promise<EventServices> {
  const { db, dialect, pgPool, writes, searchIndex } = o.store;
  const bus: EventBus =
    dialect === "postgres" && pgPool
      ? await PgEventBus.start({ pool: pgPool, db, log: o.log })
      : new LocalEventBus();
  // SQLite's search index follows the stored and deleted events in a worker thread (store/search/).
  const indexChanged = searchIndex ? () => searchIndex.changed() : undefined;
  const store = createEventStore({
    db,
    writes,
    bus,
    retention: o.config.eventRetention,
    onStored: indexChanged,
  });
  let draining: Promise<void> | undefined;
  let queue: InvocationQueue | undefined;
  const pruning = startStatsPruning(db, o.config.statsRetentionDays, o.log);
  const subscriptions = new SubscriptionService(db);
  const workflows = new WorkflowService(db, o.publicUrl, {
    created: (ownerId, id) => subscriptions.participantCreated(ownerId, id),
    deleted: (id) => subscriptions.participantDeleted(id),
  });
  // The workflow a run runs, remembered for a moment where that is exact: on SQLite every change
  // goes through this process, which forgets it at once (as the runtime does sources). With
  // several instances (PostgreSQL) each run reads it: one paused elsewhere must not run here.
  const runnable = dialect === "sqlite" ? new TargetCache<RunnableWorkflow | undefined>() : undefined;
  if (runnable) workflows.onChanged((id) => runnable.forget(id));

  return {
    bus,
    store,
    subscriptions,
    workflows,
    owns: (ownerId, id) => ownsParticipant(db, ownerId, id),
    list: (emitterId, channel, opts) => listSummaries(db, searchIndex, emitterId, channel, opts),
    async deleteRange(emitterId, channel, startId, endId) {
      const deleted = await deleteEvents(db, emitterId, channel, startId, endId);
      if (deleted > 0) indexChanged?.();
      return deleted;
    },
    replay(request) {
      if (!queue) return Promise.reject(new Error("replay before the delivery queue exists"));
      return replayEvents(db, queue, request);
    },
    stats: (emitterId, window) => readStats(db, emitterId, window),
    workflowHandler: (runSteps, quotas, runs = {}) =>
      createWorkflowRunner({
        db,
        events: store,
        runSteps,
        quotas,
        writes,
        ...(runnable ? { readWorkflow: (id) => runnable.get(id, (i) => readRunnableWorkflow(db, i)) } : {}),
        ...runs,
      }),
    routeTo(q) {
      queue = q;
      store.routeTo(q);
    },
    startDelivery(q) {
      queue = q;
      store.routeTo(q);
      draining ??= drainLegacyOutbox({ db, dialect, queue: q, events: store, log: o.log });
      return draining;
    },
    async close() {
      await pruning.stop();
      await draining;
      await store.close();
      await bus.close();
    },
  };
}
