/**
 * The stream manager: one live feed per `watch()` (SSE for sources, polling for workflows) or
 * `watchRuns()` (a workflow's runs over SSE), with events (or runs) gathered per watch and handed
 * to the UI in batches every `batchIntervalMs` (50 ms), so a busy source costs the renderer
 * twenty updates a second, not one per event. A run changed several times within a batch is
 * handed over once, as it is last. State changes are passed on at once.
 */
import {
  STREAM_BATCH_INTERVAL_MS,
  type RunBatch,
  type StreamBatch,
  type StreamChannel,
  type StreamStateUpdate,
} from "../../../shared/bridge.js";
import type { EventSummary, Run } from "../../../shared/resources/index.js";
import type { BackoffOptions } from "../../../shared/sse/index.js";
import { watchRuns } from "./run-watch.js";
import { watchSource } from "./source-watch.js";
import type { Watch, WatchConnection } from "./types.js";
import { watchWorkflow } from "./workflow-watch.js";

export interface StreamManagerOptions {
  onBatch: (batch: StreamBatch) => void;
  onState: (update: StreamStateUpdate) => void;
  /** Batches of `watchRuns` feeds (none are started without it). */
  onRunBatch?: (batch: RunBatch) => void;
  batchIntervalMs?: number;
  watchdogMs?: number;
  backoff?: BackoffOptions;
  pollIntervalMs?: number;
  log?: (message: string) => void;
}

interface Entry {
  watch: Watch;
  buffer: EventSummary[];
  /** A runs feed's pending runs by id, in the order of their latest change. */
  runs: Map<string, Run>;
}

export class StreamManager {
  private readonly entries = new Map<string, Entry>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private counter = 0;

  constructor(private readonly opts: StreamManagerOptions) {}

  /** Starts a feed; returns its id at once (states and batches follow). */
  watch(emitterId: string, channel: StreamChannel, connection: WatchConnection): string {
    const { watchId, entry, state } = this.open();
    const sink = {
      events: (list: EventSummary[]) => {
        if (this.entries.get(watchId) === entry) entry.buffer.push(...list);
      },
      state,
      log: this.opts.log,
    };
    const options = {
      emitterId,
      channel,
      connection,
      watchdogMs: this.opts.watchdogMs,
      backoff: this.opts.backoff,
      pollIntervalMs: this.opts.pollIntervalMs,
    };
    // The id is returned before the first state arrives: the caller may register it first.
    queueMicrotask(() => {
      if (this.entries.get(watchId) !== entry) return;
      entry.watch = emitterId.startsWith("p_") ? watchWorkflow(options, sink) : watchSource(options, sink);
    });
    this.ensureTimer();
    return watchId;
  }

  /** Starts a feed of a workflow's runs; returns its id at once (states and run batches follow). */
  watchRuns(workflowId: string, connection: WatchConnection): string {
    const { watchId, entry, state } = this.open();
    const sink = {
      runs: (list: Run[]) => {
        if (this.entries.get(watchId) !== entry) return;
        for (const r of list) {
          entry.runs.delete(r.id);
          entry.runs.set(r.id, r);
        }
      },
      state,
      log: this.opts.log,
    };
    queueMicrotask(() => {
      if (this.entries.get(watchId) !== entry) return;
      entry.watch = watchRuns(
        { workflowId, connection, watchdogMs: this.opts.watchdogMs, backoff: this.opts.backoff },
        sink,
      );
    });
    this.ensureTimer();
    return watchId;
  }

  /** A new entry, and the state sink every kind of feed shares. */
  private open() {
    const watchId = `w${++this.counter}`;
    const entry: Entry = { watch: { close() {} }, buffer: [], runs: new Map() };
    this.entries.set(watchId, entry);
    const state = (u: Omit<StreamStateUpdate, "watchId">) => {
      if (this.entries.get(watchId) !== entry) return;
      if (u.state === "unauthorized" || u.state === "closed") {
        // Final: deliver what is buffered, then forget the watch.
        this.flushOne(watchId, entry);
        this.entries.delete(watchId);
        this.stopTimerIfIdle();
      }
      this.opts.onState({ watchId, ...u });
    };
    return { watchId, entry, state };
  }

  /** Stops a feed; its final `closed` state is reported. False when the id is unknown. */
  unwatch(watchId: string): boolean {
    const entry = this.entries.get(watchId);
    if (!entry) return false;
    this.flushOne(watchId, entry);
    this.entries.delete(watchId);
    entry.watch.close();
    this.opts.onState({ watchId, state: "closed", message: "Stopped." });
    this.stopTimerIfIdle();
    return true;
  }

  /** Stops every feed (profile switch, shutdown). */
  closeAll(): void {
    for (const id of [...this.entries.keys()]) this.unwatch(id);
  }

  get size(): number {
    return this.entries.size;
  }

  private flushOne(watchId: string, entry: Entry) {
    if (entry.runs.size > 0) {
      const runs = [...entry.runs.values()];
      entry.runs = new Map();
      this.opts.onRunBatch?.({ watchId, runs });
    }
    if (entry.buffer.length === 0) return;
    const events = entry.buffer;
    entry.buffer = [];
    this.opts.onBatch({ watchId, events });
  }

  private flush = () => {
    for (const [watchId, entry] of this.entries) this.flushOne(watchId, entry);
    this.stopTimerIfIdle();
  };

  private ensureTimer() {
    this.timer ??= setInterval(this.flush, this.opts.batchIntervalMs ?? STREAM_BATCH_INTERVAL_MS);
  }

  private stopTimerIfIdle() {
    if (this.entries.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }
}

export type { WatchConnection } from "./types.js";
export type { StreamChannel };
