/**
 * Following an emitter's events without polling: its SSE stream (`/sources/{id}/sse`,
 * `/workflows/{id}/sse`), which resumes after `Last-Event-ID` and is fed by the event bus (across
 * instances on PostgreSQL). wait_for_events answers from it; resource subscriptions turn it into
 * `notifications/resources/updated`, coalesced to at most one a second.
 */
import type { EventSummary } from "../resources/index.js";
import { connectSse, toEventSummary } from "../sse/index.js";
import type { McpDeps } from "./deps.js";
import type { Emitter } from "./emitters.js";
import { McpRefusal } from "./results.js";

export interface EmitterStream {
  close(): void;
}

export interface StreamHandlers {
  onEvent(event: EventSummary): void;
  /** The stream cannot be followed: the key is refused, or the emitter is not the user's. */
  onRefused(refusal: McpRefusal): void;
}

export function streamUrl(deps: McpDeps, e: Emitter): string {
  return e.kind === "source" ? deps.client.sourceStreamUrl(e.id) : deps.client.workflowStreamUrl(e.id);
}

/** Opens the emitter's default-channel stream, after `lastEventId` when given (else live only). */
export function openEmitterStream(deps: McpDeps, e: Emitter, lastEventId: string | undefined, h: StreamHandlers): EmitterStream {
  return connectSse({
    url: streamUrl(deps, e),
    headers: { Authorization: `Bearer ${deps.apiKey}` },
    lastEventId,
    fetch: deps.streamFetch,
    onMessage: (m) => {
      const summary = toEventSummary(m.data, { messageId: m.id, emitterId: e.id, channel: "" });
      if (summary) h.onEvent(summary);
    },
    onState: (info) => {
      if (info.state === "unauthorized") {
        h.onRefused(new McpRefusal(info.status === 403 ? "forbidden" : "unauthorized", info.message ?? "refused", info.status ?? 401));
      } else if (info.state === "closed" && info.status === 404) {
        h.onRefused(new McpRefusal("not_found", `${e.kind} ${e.id} not found`, 404));
      }
    },
  });
}

export interface WaitResult {
  events: EventSummary[];
  timed_out: boolean;
}

/**
 * Resolves with the events stored after `afterEventId` as soon as at least one is (those that
 * arrive in the same read come along, up to `max`), or with none at the timeout. Rejects with an
 * McpRefusal when the stream is refused; `signal` ends the wait early (no events).
 */
export function waitForEvents(
  deps: McpDeps,
  e: Emitter,
  afterEventId: string,
  o: { timeoutMs: number; max: number; signal?: AbortSignal },
): Promise<WaitResult> {
  return new Promise((resolve, reject) => {
    const got: EventSummary[] = [];
    let settled = false;
    let flushing = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      o.signal?.removeEventListener("abort", onAbort);
      stream.close();
      fn();
    };
    const done = (timedOut: boolean) => finish(() => resolve({ events: got.slice(0, o.max), timed_out: timedOut }));
    const onAbort = () => done(false);
    const stream = openEmitterStream(deps, e, afterEventId, {
      onEvent: (ev) => {
        got.push(ev);
        // One stream write carries every event that was ready, handed over in one go: answer
        // once this read is done (a microtask later), not after the first event alone.
        if (got.length >= o.max) done(false);
        else if (!flushing) {
          flushing = true;
          queueMicrotask(() => done(false));
        }
      },
      onRefused: (r) => finish(() => reject(r)),
    });
    const timer = setTimeout(() => done(true), o.timeoutMs);
    if (o.signal?.aborted) onAbort();
    else o.signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Notifications of one URI: the first at once, then at most one per `intervalMs`. */
export function coalesce(notify: () => void, intervalMs = 1000): { poke(): void; stop(): void } {
  let last = -Infinity;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  const fire = () => {
    timer = undefined;
    if (stopped) return;
    last = Date.now();
    notify();
  };
  return {
    poke() {
      if (stopped || timer) return;
      const wait = last + intervalMs - Date.now();
      if (wait <= 0) fire();
      else timer = setTimeout(fire, wait);
    },
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

/**
 * The watches of one subscriber (a stdio connection, an HTTP session, a listen stream): one
 * stream per events resource, each turning new events into `notify(uri)`, coalesced.
 */
export class ResourceWatches {
  private readonly watches = new Map<string, { stream: EmitterStream; pacer: ReturnType<typeof coalesce> }>();

  constructor(
    private readonly deps: McpDeps,
    private readonly notify: (uri: string) => void,
    private readonly intervalMs = 1000,
  ) {}

  get size(): number {
    return this.watches.size;
  }

  has(uri: string): boolean {
    return this.watches.has(uri);
  }

  /** Starts watching `uri` (an events resource of `e`); a refused stream ends the watch. */
  watch(uri: string, e: Emitter): void {
    if (this.watches.has(uri)) return;
    const pacer = coalesce(() => this.notify(uri), this.intervalMs);
    const stream = openEmitterStream(this.deps, e, undefined, {
      onEvent: () => pacer.poke(),
      onRefused: () => this.unwatch(uri),
    });
    this.watches.set(uri, { stream, pacer });
  }

  unwatch(uri: string): void {
    const w = this.watches.get(uri);
    if (!w) return;
    this.watches.delete(uri);
    w.pacer.stop();
    w.stream.close();
  }

  closeAll(): void {
    for (const uri of [...this.watches.keys()]) this.unwatch(uri);
  }
}
