import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { StartRows } from "./start-rows.js";

describe("StartRows", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("writes the rows of runs still going after the moment, in order, and none cancelled", () => {
    const rows = new StartRows(40);
    const written: string[] = [];
    rows.add(() => written.push("a"));
    const b = rows.add(() => written.push("b"));
    vi.advanceTimersByTime(15);
    rows.add(() => written.push("c"));
    rows.cancel(b);
    vi.advanceTimersByTime(30);
    expect(written).toEqual(["a"]);
    vi.advanceTimersByTime(15);
    expect(written).toEqual(["a", "c"]);
    // Armed again for runs that start later.
    rows.add(() => written.push("d"));
    vi.advanceTimersByTime(39);
    expect(written).toEqual(["a", "c"]);
    vi.advanceTimersByTime(1);
    expect(written).toEqual(["a", "c", "d"]);
  });
});
