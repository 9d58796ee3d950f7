import { describe, expect, it } from "vitest";
import type { Client } from "../../shared/client/index.js";
import type { EventSummary } from "../../shared/resources/index.js";
import { followBounded } from "./bounded.js";
import type { FollowOptions } from "./follow.js";
import { Forwarder } from "./forwarder.js";
import { newer } from "./order.js";

const event = (n: number): EventSummary => ({
  id: `${1_700_000_000_000 + n}-0`,
  indexed_at_ms: 1_700_000_000_000 + n,
  event: { n },
  metadata: { emitter_id: "dc_x", emit_id: `e${n}`, name: "" },
});

/**
 * A server that retains `retained` events and streams them as the real follower does: every
 * event after `after`, at once, then the stream stays open until closed. Records each opening.
 */
function fakeServer(retained: EventSummary[]) {
  const openedAfter: Array<string | undefined> = [];
  const follow = async (opts: FollowOptions) => {
    openedAfter.push(opts.after);
    for (const e of retained) {
      if (opts.signal.aborted) break;
      if (opts.after === undefined || newer(e.id, opts.after)) opts.onEvent(e);
    }
    if (!opts.signal.aborted) await new Promise((r) => opts.signal.addEventListener("abort", r, { once: true }));
  };
  return { follow, openedAfter };
}

const base = {
  client: {} as Client,
  apiKey: "k",
  sourceId: "dc_x",
  channels: [""],
  onStatus: () => undefined,
};

describe("followBounded", () => {
  it("holds at most `high` events, pauses the stream, and resumes after the last event taken: each event once, in order", async () => {
    const server = fakeServer(Array.from({ length: 2_500 }, (_, i) => event(i + 1)));
    const stop = new AbortController();
    const queue: EventSummary[] = [];
    const taken: number[] = [];
    let most = 0;
    const pauses: number[] = [];
    // A slow consumer: it works through what waits only while the stream is paused.
    const done = followBounded({
      ...base,
      after: undefined,
      signal: stop.signal,
      high: 1000,
      low: 100,
      follow: server.follow,
      take: (e) => {
        queue.push(e);
        taken.push((e.event as { n: number }).n);
        most = Math.max(most, queue.length);
        if (taken.length === 2_500) stop.abort();
      },
      waiting: () => queue.length,
      drained: async (below) => {
        while (queue.length >= below) queue.shift();
      },
      onPause: (n) => pauses.push(n),
      onResume: () => undefined,
    });
    await done;
    expect(most).toBe(1000);
    expect(pauses).toEqual([1000, 1000]);
    expect(taken).toEqual(Array.from({ length: 2_500 }, (_, i) => i + 1));
    expect(server.openedAfter).toEqual([undefined, event(1000).id, event(1901).id]);
  });

  it("a stop while paused ends it without opening the stream again", async () => {
    const server = fakeServer(Array.from({ length: 50 }, (_, i) => event(i + 1)));
    const stop = new AbortController();
    const queue: EventSummary[] = [];
    let paused = false;
    await followBounded({
      ...base,
      after: undefined,
      signal: stop.signal,
      high: 10,
      low: 5,
      follow: server.follow,
      take: (e) => queue.push(e),
      waiting: () => queue.length,
      // Nothing drains: the wait ends only with the stop.
      drained: () => new Promise((r) => stop.signal.addEventListener("abort", () => r(), { once: true })),
      onPause: () => {
        paused = true;
        setTimeout(() => stop.abort(), 10);
      },
      onResume: () => {
        throw new Error("resumed after the stop");
      },
    });
    expect(paused).toBe(true);
    expect(queue).toHaveLength(10);
    expect(server.openedAfter).toEqual([undefined]);
  });
});

describe("Forwarder.drained", () => {
  it("resolves at once below the mark, and on a stop", async () => {
    const stop = new AbortController();
    const forwarder = new Forwarder({
      target: new URL("http://127.0.0.1:9/"),
      sourceId: "dc_x",
      retries: 1_000,
      backoffMs: 60_000,
      signal: stop.signal,
      onAttempt: () => undefined,
    });
    await forwarder.drained(1);
    // Port 9 refuses: the first event is retried (after a minute), so three stay waiting.
    for (const n of [1, 2, 3]) forwarder.push(event(n));
    let resolved = false;
    const waiting = forwarder.drained(2).then(() => (resolved = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(resolved).toBe(false);
    expect(forwarder.waiting).toBe(3);
    stop.abort();
    await waiting;
    expect(resolved).toBe(true);
  });
});
