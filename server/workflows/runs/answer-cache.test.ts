import { describe, expect, it } from "vitest";
import { RunAnswerCache } from "./answer-cache.js";

const bytes = (n: number) => Buffer.alloc(n, 0x61);

describe("RunAnswerCache", () => {
  it("answers only the version it was given, and forgets an entry of another version", () => {
    const cache = new RunAnswerCache(1000);
    cache.set("r_1", 5, bytes(10));
    expect(cache.get("r_1", 5)?.length).toBe(10);
    expect(cache.get("r_1", 6)).toBeUndefined();
    expect(cache.get("r_1", 5)).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it("keeps within its budget, pushing out the least recently read first", () => {
    const cache = new RunAnswerCache(300, 200);
    cache.set("a", 1, bytes(100));
    cache.set("b", 1, bytes(100));
    cache.set("c", 1, bytes(100));
    cache.get("a", 1); // a is now the most recent: b goes first
    cache.set("d", 1, bytes(100));
    expect(cache.get("b", 1)).toBeUndefined();
    expect(cache.get("a", 1)).toBeDefined();
    expect(cache.get("c", 1)).toBeDefined();
    expect(cache.get("d", 1)).toBeDefined();
    expect(cache.size).toEqual({ entries: 3, bytes: 300 });
  });

  it("does not keep an answer over its entry limit, nor an old version of it", () => {
    const cache = new RunAnswerCache(1000, 200);
    cache.set("a", 1, bytes(100));
    cache.set("a", 2, bytes(500));
    expect(cache.get("a", 1)).toBeUndefined();
    expect(cache.get("a", 2)).toBeUndefined();
    expect(cache.size.bytes).toBe(0);
  });
});
