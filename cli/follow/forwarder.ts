/**
 * The forwarding queue of `listen --forward-to`: events go out one at a time, in the order they
 * were emitted. A target that is down or answers 5xx gets the same event again after a growing
 * pause (`retries` times at most) before the next one is tried, so a local app that restarts
 * sees every event, in order. An event that still fails is reported as not delivered, never
 * dropped without a word. 2xx to 4xx answers are final: the app has seen the request.
 */
import type { EventSummary } from "../../shared/resources/index.js";
import { requestFor, type OutgoingRequest } from "./forward-request.js";
import { send, type SendResult } from "./send.js";

export interface Attempt {
  event: EventSummary;
  request: OutgoingRequest;
  result: SendResult;
  /** 1 for the first try. */
  attempt: number;
  /** `delivered`: the target answered below 500; `retrying`: another try follows after `retryInMs`; `gave_up`: not delivered. */
  outcome: "delivered" | "retrying" | "gave_up";
  retryInMs?: number;
}

export interface ForwarderOptions {
  target: URL;
  sourceId: string;
  /** Tries after the first one. */
  retries: number;
  signal: AbortSignal;
  onAttempt: (a: Attempt) => void;
  timeoutMs?: number;
  /** First pause between tries; it doubles each time up to `maxBackoffMs`. */
  backoffMs?: number;
  maxBackoffMs?: number;
}

export class Forwarder {
  private readonly queue: EventSummary[] = [];
  private running: Promise<void> | undefined;
  /** Callers of `drained`, each with its mark. */
  private readonly drainWaiters = new Set<{ below: number; resolve: () => void }>();
  /** Events that were not delivered (given up on). */
  failed = 0;
  delivered = 0;

  constructor(private readonly opts: ForwarderOptions) {
    opts.signal.addEventListener("abort", () => this.wakeDrainWaiters(true), { once: true });
  }

  push(e: EventSummary): void {
    this.queue.push(e);
    this.running ??= this.drain().finally(() => (this.running = undefined));
  }

  /** Events waiting, not yet sent (after a stop: the ones that were never forwarded). */
  get waiting(): number {
    return this.queue.length;
  }

  /** Resolves once fewer than `below` events wait, or the signal stopped the forwarder. */
  drained(below: number): Promise<void> {
    if (this.queue.length < below || this.opts.signal.aborted) return Promise.resolve();
    return new Promise((resolve) => this.drainWaiters.add({ below, resolve }));
  }

  private wakeDrainWaiters(all = false): void {
    for (const w of this.drainWaiters) {
      if (all || this.queue.length < w.below) {
        this.drainWaiters.delete(w);
        w.resolve();
      }
    }
  }

  /** Resolves once the queue is empty or the signal stopped it. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.opts.signal.aborted) {
      await this.forward(this.queue[0]!);
      if (this.opts.signal.aborted) return;
      this.queue.shift();
      if (this.drainWaiters.size > 0) this.wakeDrainWaiters();
    }
  }

  private async forward(event: EventSummary): Promise<void> {
    const { opts } = this;
    const request = requestFor(event, opts.target, opts.sourceId);
    let pause = opts.backoffMs ?? 500;
    for (let attempt = 1; ; attempt++) {
      const result = await send(request, { timeoutMs: opts.timeoutMs ?? 30_000, signal: opts.signal });
      if (opts.signal.aborted) return;
      const ok = "status" in result && result.status < 500;
      if (ok) {
        this.delivered++;
        return opts.onAttempt({ event, request, result, attempt, outcome: "delivered" });
      }
      if (attempt > opts.retries) {
        this.failed++;
        return opts.onAttempt({ event, request, result, attempt, outcome: "gave_up" });
      }
      opts.onAttempt({ event, request, result, attempt, outcome: "retrying", retryInMs: pause });
      await sleep(pause, opts.signal);
      pause = Math.min(pause * 2, opts.maxBackoffMs ?? 10_000);
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
