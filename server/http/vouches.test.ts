import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuthUser } from "../users/service.js";
import { Vouches } from "./auth.js";

const user = (id: string): AuthUser => ({ id, username: id, admin: false, apiKey: `key-${id}` });

describe("Vouches", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("stands for the caller with that key only", () => {
    const v = new Vouches();
    const token = v.issue("key-a", user("a"));
    expect(v.userFor(token, "key-a")?.id).toBe("a");
    expect(v.userFor(token, "key-b")).toBeUndefined();
    expect(v.userFor("made-up", "key-a")).toBeUndefined();
  });

  it("lapses two seconds after the last admission, and a renewal carries the user as admitted now", () => {
    vi.useFakeTimers();
    const v = new Vouches();
    const token = v.issue("key-a", user("a"));
    vi.advanceTimersByTime(1_500);
    v.renew(token, { ...user("a"), admin: true });
    vi.advanceTimersByTime(1_500);
    expect(v.userFor(token, "key-a")?.admin).toBe(true);
    vi.advanceTimersByTime(600);
    expect(v.userFor(token, "key-a")).toBeUndefined();
  });

  it("a revoked token stands for nobody", () => {
    const v = new Vouches();
    const token = v.issue("key-a", user("a"));
    v.revoke(token);
    expect(v.userFor(token, "key-a")).toBeUndefined();
  });
});
