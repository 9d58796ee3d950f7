/**
 * The token bucket behind the rate limits, on a fake clock: exact refill figures that the API
 * test (test/ops/rate-limit.test.ts), run against a real server on a busy machine, can only
 * bound from below.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { TokenBucketStore } from "./rate-limit.js";

/** max 10 per 2 s window: 5 per second, a burst of 10 (HEADWATER_RATE_LIMIT=5). */
const WINDOW = 2000;
const MAX = 10;

function take(store: TokenBucketStore, key = "k") {
  let out: { current: number; ttl: number } | undefined;
  store.incr(key, (_err, res) => (out = res), WINDOW, MAX);
  return { passed: out!.current <= MAX, ...out! };
}

describe("TokenBucketStore", () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(1_000_000);
  });
  afterEach(() => vi.useRealTimers());

  it("lets a burst of max through, then refuses, saying when the next token comes", () => {
    const store = new TokenBucketStore();
    const results = Array.from({ length: 12 }, () => take(store));
    expect(results.filter((r) => r.passed)).toHaveLength(10);
    expect(results.slice(10).every((r) => !r.passed)).toBe(true);
    expect(results[10]!.ttl).toBe(200); // one token per 200 ms
  });

  it("refills gradually: 0.5 s after an empty bucket, 2 requests pass, not a whole burst", () => {
    const store = new TokenBucketStore();
    for (let i = 0; i < 10; i++) take(store);
    expect(take(store).passed).toBe(false);
    vi.advanceTimersByTime(500);
    const after = Array.from({ length: 8 }, () => take(store));
    expect(after.filter((r) => r.passed)).toHaveLength(2);
  });

  it("never holds more than the burst, however long it waits", () => {
    const store = new TokenBucketStore();
    take(store);
    vi.advanceTimersByTime(60_000);
    expect(Array.from({ length: 12 }, () => take(store)).filter((r) => r.passed)).toHaveLength(10);
  });

  it("keeps one bucket per key", () => {
    const store = new TokenBucketStore();
    for (let i = 0; i < 11; i++) take(store, "alice");
    expect(take(store, "alice").passed).toBe(false);
    expect(take(store, "bob").passed).toBe(true);
  });
});
