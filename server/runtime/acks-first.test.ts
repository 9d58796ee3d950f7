/** When a runner gives way to requests waiting for their acknowledgement (acks-first.ts). */
import { describe, expect, it } from "vitest";
import { AcksFirst, BACKLOG_BATCH, CROWDED_FOR_MS, MAX_LAG_MS, WAITING_REQUESTS, YIELD_GAP_MS } from "./acks-first.js";

function crowd(acks: AcksFirst, n: number): Array<() => void> {
  const release: Array<() => void> = [];
  for (let i = 0; i < n; i++) void acks.storing(new Promise<void>((r) => release.push(r)));
  return release;
}

describe("acknowledgements first", () => {
  it("spaces a backlog's batches while many requests wait at once, and a little after", async () => {
    const clock = { ms: 10_000 };
    const acks = new AcksFirst(() => clock.ms);
    expect(acks.delayBeforeBatch(clock.ms, 100, clock.ms)).toBe(0);
    const release = crowd(acks, WAITING_REQUESTS);
    expect(acks.delayBeforeBatch(clock.ms - 10, 100, clock.ms)).toBe(YIELD_GAP_MS - 10);
    // Their commit acknowledged them all: the burst is still on for a moment.
    for (const r of release) r();
    await new Promise((r) => setImmediate(r));
    clock.ms += CROWDED_FOR_MS;
    expect(acks.delayBeforeBatch(clock.ms - 10, 100, clock.ms)).toBe(YIELD_GAP_MS - 10);
    clock.ms += 1;
    expect(acks.delayBeforeBatch(clock.ms - 10, 100, clock.ms)).toBe(0);
  });

  it("never delays a small batch, a batch whose gap has passed, or a backlog that lags too far", () => {
    const clock = { ms: 10_000 };
    const acks = new AcksFirst(() => clock.ms);
    crowd(acks, WAITING_REQUESTS);
    expect(acks.delayBeforeBatch(clock.ms, BACKLOG_BATCH - 1, clock.ms)).toBe(0);
    expect(acks.delayBeforeBatch(clock.ms - YIELD_GAP_MS, BACKLOG_BATCH, clock.ms)).toBe(0);
    expect(acks.delayBeforeBatch(clock.ms, BACKLOG_BATCH, clock.ms - MAX_LAG_MS)).toBe(0);
    expect(acks.delayBeforeBatch(clock.ms, BACKLOG_BATCH, clock.ms - MAX_LAG_MS + 1)).toBe(YIELD_GAP_MS);
  });

  it("does not count fewer requests waiting at once as a burst", () => {
    const clock = { ms: 10_000 };
    const acks = new AcksFirst(() => clock.ms);
    crowd(acks, WAITING_REQUESTS - 1);
    expect(acks.delayBeforeBatch(clock.ms, 100, clock.ms)).toBe(0);
  });
});
