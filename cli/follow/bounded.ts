/**
 * Following a source for a consumer that can fall behind (`listen --forward-to`, whose target may
 * be down for hours). Events waiting to be forwarded were held in memory without a bound: a busy
 * source and a long outage could take the command's memory without limit. Now, once `high`
 * events wait, the stream is closed; once fewer than `low` wait, it is opened again after the
 * last event taken. The server keeps the events meanwhile (within the source's retention), so
 * the command holds at most `high` of them, and nothing is taken twice or out of order.
 */
import type { EventSummary } from "../../shared/resources/index.js";
import { followEvents, type FollowOptions } from "./follow.js";

export interface BoundedFollowOptions extends Omit<FollowOptions, "onEvent"> {
  /** Hands an event to the consumer. */
  take(e: EventSummary): void;
  /** Events the consumer holds and has not finished with. */
  waiting(): number;
  /** Resolves once fewer than `below` events wait (or the signal stopped the consumer). */
  drained(below: number): Promise<void>;
  /** The stream closes at this many waiting events (default 1,000) ... */
  high?: number;
  /** ... and opens again below this many (default 100). */
  low?: number;
  onPause(waiting: number): void;
  onResume(): void;
  /** The follower (tests give their own). */
  follow?: (opts: FollowOptions) => Promise<void>;
}

/** Runs until the signal is aborted (resolves) or the stream can never work (rejects). */
export async function followBounded(opts: BoundedFollowOptions): Promise<void> {
  const high = opts.high ?? 1000;
  const low = Math.min(opts.low ?? 100, high);
  const follow = opts.follow ?? followEvents;
  let after = opts.after;
  while (!opts.signal.aborted) {
    // A stream of its own, closed by a pause or by the command's own stop.
    const stream = new AbortController();
    const stop = () => stream.abort();
    opts.signal.addEventListener("abort", stop, { once: true });
    let paused = false;
    try {
      await follow({
        ...opts,
        after,
        signal: stream.signal,
        onEvent: (e) => {
          // What arrives after the pause is read again after `after` when the stream reopens.
          if (paused) return;
          after = e.id;
          opts.take(e);
          if (opts.waiting() >= high) {
            paused = true;
            stream.abort();
          }
        },
      });
    } finally {
      opts.signal.removeEventListener("abort", stop);
    }
    if (!paused || opts.signal.aborted) return;
    opts.onPause(opts.waiting());
    await opts.drained(low);
    if (!opts.signal.aborted) opts.onResume();
  }
}
