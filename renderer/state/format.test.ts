import { describe, expect, it } from "vitest";
import { describeError } from "./errors.js";
import { BridgeCallError } from "./bridge.js";
import { absoluteTime, formatWhen, fromUnixSeconds, plainText, formatBytes, relativeTime } from "./format.js";

describe("display helpers", () => {
  it("says 'now' for the last second and for a clock a little behind, else a relative time", () => {
    const now = 1_000_000_000;
    expect(relativeTime(now - 200, now)).toBe("now");
    expect(relativeTime(now + 4_000, now)).toBe("now");
    expect(relativeTime(now - 5_000, now)).toMatch(/5 sec/);
    expect(relativeTime(now - 3 * 3_600_000, now)).toMatch(/3 hr/);
  });

  it("has one date-time format, with the year only when it is not this one, relative within the hour", () => {
    const at = new Date(2026, 11, 7, 1, 17, 12, 11).getTime();
    expect(absoluteTime(at, { nowMs: at })).toBe("Dec 7, 01:17:12");
    expect(absoluteTime(at, { ms: true, nowMs: at })).toBe("Dec 7, 01:17:12.011");
    expect(absoluteTime(at, { nowMs: new Date(2027, 0, 2).getTime() })).toBe("Dec 7 2026, 01:17:12");
    expect(formatWhen(at, at + 5 * 60_000)).toMatch(/5 min/);
    expect(formatWhen(at, at + 2 * 3_600_000)).toBe("Dec 7, 01:17:12");
    expect(fromUnixSeconds(Math.floor(at / 1000), at + 3 * 86_400_000)).toBe("Dec 7, 01:17:12");
  });

  it("reads a markdown description as plain words", () => {
    expect(plainText("Get a row. [See the docs](https://x.test/docs)\n\n**Bold** and `code` and _this_")).toBe(
      "Get a row. See the docs Bold and code and this",
    );
  });

  it("formats sizes", () => {
    expect(formatBytes(45)).toBe("45 B");
    expect(formatBytes(2048)).toBe("2.0 KB");
  });
});

describe("errors in words", () => {
  it("titles a bridge error by its code, keeps the message and details, and adds what to do", () => {
    const d = describeError(
      new BridgeCallError({
        status: 401,
        code: "unauthorized",
        message: "unknown API key.",
        details: [{ path: "key", message: "bad" }],
      }),
    );
    expect(d.title).toBe("The API key was refused");
    expect(d.message).toBe("unknown API key. Check this connection's API key in Account → Connections.");
    expect(d.code).toBe("unauthorized");
    expect(d.details).toEqual([{ path: "key", message: "bad" }]);
  });

  it("does not repeat advice the host already gave", () => {
    const d = describeError(
      new BridgeCallError({
        status: 401,
        code: "unauthorized",
        message: "Refused. Check the key of this connection.",
      }),
    );
    expect(d.message).toBe("Refused. Check the key of this connection.");
  });

  it("describes an unknown failure by its status class", () => {
    expect(
      describeError(new BridgeCallError({ status: 503, code: "http_503", message: "upstream down" })).title,
    ).toBe("The server had a problem");
    expect(describeError(new Error("plain")).message).toBe("plain");
  });
});
