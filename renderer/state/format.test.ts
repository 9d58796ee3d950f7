import { describe, expect, it } from "vitest";
import { describeError } from "./errors.js";
import { BridgeCallError } from "./bridge.js";
import { formatBytes, relativeTime } from "./format.js";

describe("display helpers", () => {
  it("says 'now' for the last second and for a clock a little behind, else a relative time", () => {
    const now = 1_000_000_000;
    expect(relativeTime(now - 200, now)).toBe("now");
    expect(relativeTime(now + 4_000, now)).toBe("now");
    expect(relativeTime(now - 5_000, now)).toMatch(/5 sec/);
    expect(relativeTime(now - 3 * 3_600_000, now)).toMatch(/3 hr/);
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
