import { describe, expect, it } from "vitest";
import type { EventSummary } from "../../../shared/resources/index.js";
import { clickSelect, countSelected, selectionBounds } from "./selection.js";

const rows: EventSummary[] = [9, 8, 7, 7, 5, 3, 1].map((ms, i) => ({
  id: `${ms}-${ms === 7 ? 7 - i : 0}`,
  indexed_at_ms: ms,
  event: null,
  metadata: { emit_id: String(i), name: "", emitter_id: "dc_a" },
}));

describe("range selection", () => {
  it("orders the bounds oldest → newest whichever row was clicked first", () => {
    expect(selectionBounds({ anchor: "9-0", head: "3-0" })).toEqual({ start_id: "3-0", end_id: "9-0" });
    expect(selectionBounds({ anchor: "3-0", head: "9-0" })).toEqual({ start_id: "3-0", end_id: "9-0" });
  });

  it("counts the rows inside the inclusive range, by binary search over newest-first rows", () => {
    expect(rows.map((r) => r.id)).toEqual(["9-0", "8-0", "7-5", "7-4", "5-0", "3-0", "1-0"]);
    expect(countSelected(rows, { anchor: "8-0", head: "3-0" })).toBe(5);
    expect(countSelected(rows, { anchor: "7-4", head: "7-4" })).toBe(1);
    expect(countSelected(rows, { anchor: "1-0", head: "9-0" })).toBe(7);
    expect(countSelected(rows, { anchor: "6-0", head: "6-0" })).toBe(0);
    expect(countSelected(rows, null)).toBe(0);
  });

  it("a plain click starts over, a shift-click keeps the anchor", () => {
    const a = clickSelect(null, "8-0", false);
    const b = clickSelect(a, "3-0", true);
    expect(b).toEqual({ anchor: "8-0", head: "3-0" });
    expect(clickSelect(b, "5-0", false)).toEqual({ anchor: "5-0", head: "5-0" });
  });
});
