import { describe, expect, it } from "vitest";
import { hasEscapedNul, storableJson, storableText } from "./storable-text.js";

const R = "\uFFFD";

describe("storable text", () => {
  it("replaces a NUL and lone surrogates in raw text, keeping well-formed pairs", () => {
    expect(storableText("plain")).toBe("plain");
    expect(storableText("a\0b")).toBe(`a${R}b`);
    expect(storableText("\ud800x\udc00")).toBe(`${R}x${R}`);
    expect(storableText("\ud83d\ude00 \ud83d")).toBe(`\ud83d\ude00 ${R}`);
    expect(storableText("\udc00\ud800")).toBe(`${R}${R}`);
  });

  it("replaces escaped NULs and lone surrogates in JSON text, in keys and values, and nothing else", () => {
    const cases: Array<[unknown, unknown]> = [
      [{ a: "x\0y" }, { a: `x${R}y` }],
      [{ ["k\0"]: ["\ud800", "\udfff", "\ud83d\ude00", "\ud83d"] }, { [`k${R}`]: [R, R, "\ud83d\ude00", R] }],
      // Text that only looks like an escape: a backslash, then "u0000".
      [{ a: "\\u0000 \\ud800", b: "\\\0" }, { a: "\\u0000 \\ud800", b: `\\${R}` }],
      [{ a: "\u0001\t\n" }, { a: "\u0001\t\n" }],
    ];
    for (const [value, stored] of cases) {
      const json = storableJson(JSON.stringify(value));
      expect(JSON.parse(json)).toEqual(stored);
    }
    const plain = JSON.stringify({ a: "nothing to do" });
    expect(storableJson(plain)).toBe(plain);
    // An escaped pair (not what JSON.stringify writes, but valid JSON) stays.
    expect(storableJson('"\\ud83d\\ude00"')).toBe('"\\ud83d\\ude00"');
  });

  it("finds an escaped NUL in JSON text, not the text \\u0000", () => {
    expect(hasEscapedNul(JSON.stringify({ a: "x\0" }))).toBe(true);
    expect(hasEscapedNul(JSON.stringify({ ["\0"]: 1 }))).toBe(true);
    expect(hasEscapedNul(JSON.stringify({ a: "\\\0" }))).toBe(true);
    expect(hasEscapedNul(JSON.stringify({ a: "\\u0000" }))).toBe(false);
    expect(hasEscapedNul(JSON.stringify({ a: "\u0001" }))).toBe(false);
  });
});
