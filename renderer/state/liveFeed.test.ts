import { describe, expect, it } from "vitest";
import type { EventSummary } from "../../shared/resources/index.js";
import { createLiveFeed } from "./liveFeed.js";

function ev(ms: number, seq = 0): EventSummary {
  return {
    id: `${ms}-${seq}`,
    indexed_at_ms: ms,
    event: { n: ms },
    metadata: { emit_id: `e${ms}-${seq}`, name: "", emitter_id: "dc_a" },
  };
}
const ids = (rows: EventSummary[]) => rows.map((r) => r.id);

describe("live feed store", () => {
  it("applies a batch newest first in a single state update", () => {
    const feed = createLiveFeed();
    feed.getState().reset("dc_a|", [ev(1), ev(2)]);
    let updates = 0;
    const unsubscribe = feed.subscribe(() => updates++);
    feed.getState().applyBatch("dc_a|", [ev(3), ev(4), ev(5)]);
    unsubscribe();
    expect(updates).toBe(1);
    expect(ids(feed.getState().rows)).toEqual(["5-0", "4-0", "3-0", "2-0", "1-0"]);
  });

  it("drops duplicates and interleaves a back-fill in id order", () => {
    const feed = createLiveFeed();
    feed.getState().reset("k", [ev(10), ev(30)]);
    feed.getState().applyBatch("k", [ev(30), ev(20), ev(20), ev(40)]);
    expect(ids(feed.getState().rows)).toEqual(["40-0", "30-0", "20-0", "10-0"]);
  });

  it("orders by sequence within one millisecond", () => {
    const feed = createLiveFeed();
    feed.getState().reset("k");
    feed.getState().applyBatch("k", [ev(5, 2), ev(5, 10), ev(5, 1)]);
    expect(ids(feed.getState().rows)).toEqual(["5-10", "5-2", "5-1"]);
  });

  it("ignores batches for another stream", () => {
    const feed = createLiveFeed();
    feed.getState().reset("k");
    feed.getState().applyBatch("other", [ev(1)]);
    expect(feed.getState().rows).toHaveLength(0);
  });

  it("keeps at most the retention cap, dropping the oldest", () => {
    const feed = createLiveFeed(1000);
    feed.getState().reset("k");
    for (let b = 0; b < 30; b++) {
      const batch = Array.from({ length: 50 }, (_, i) => ev(1_000 + b * 50 + i));
      feed.getState().applyBatch("k", batch);
    }
    const rows = feed.getState().rows;
    expect(rows).toHaveLength(1000);
    expect(rows[0]?.id).toBe("2499-0");
    expect(rows[999]?.id).toBe("1500-0");
  });

  it("holds events while paused, counts them, and merges them on resume", () => {
    const feed = createLiveFeed();
    feed.getState().reset("k", [ev(1)]);
    feed.getState().setPaused(true);
    feed.getState().applyBatch("k", [ev(2), ev(3)]);
    expect(ids(feed.getState().rows)).toEqual(["1-0"]);
    expect(feed.getState().pending).toHaveLength(2);
    feed.getState().setPaused(false);
    expect(ids(feed.getState().rows)).toEqual(["3-0", "2-0", "1-0"]);
    expect(feed.getState().pending).toHaveLength(0);
  });

  it("removes an inclusive id range, and open ranges", () => {
    const feed = createLiveFeed();
    feed.getState().reset(
      "k",
      [1, 2, 3, 4, 5].map((n) => ev(n)),
    );
    feed.getState().removeRange("2-0", "4-0");
    expect(ids(feed.getState().rows)).toEqual(["5-0", "1-0"]);
    feed.getState().removeRange(undefined, undefined);
    expect(feed.getState().rows).toHaveLength(0);
  });
});
