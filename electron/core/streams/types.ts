import type { StreamChannel, StreamStateUpdate } from "../../../shared/bridge.js";
import type { Client } from "../../../shared/client/index.js";
import type { EventSummary, Run } from "../../../shared/resources/index.js";
import type { BackoffOptions } from "../../../shared/sse/index.js";

/** What a watch needs to reach its server, fixed when the watch starts. */
export interface WatchConnection {
  client: Client;
  /** Read on every (re)connect, so a rotated key is picked up. */
  apiKey: () => string;
  fetch?: typeof globalThis.fetch;
}

export interface WatchOptions {
  emitterId: string;
  channel: StreamChannel;
  connection: WatchConnection;
  watchdogMs?: number;
  backoff?: BackoffOptions;
  pollIntervalMs?: number;
  /** Most events fetched over REST in one back-fill (newest kept). */
  backfillLimit?: number;
}

/** Where a watch sends its output: events oldest first, and state changes (without watchId). */
export interface WatchSink {
  events(list: EventSummary[]): void;
  state(update: Omit<StreamStateUpdate, "watchId">): void;
  log?(message: string): void;
}

export interface Watch {
  close(): void;
}

export interface RunWatchOptions {
  workflowId: string;
  connection: WatchConnection;
  watchdogMs?: number;
  backoff?: BackoffOptions;
}

/** Where a runs watch sends its output: runs in the order their changes arrived, and states. */
export interface RunWatchSink {
  runs(list: Run[]): void;
  state(update: Omit<StreamStateUpdate, "watchId">): void;
  log?(message: string): void;
}
