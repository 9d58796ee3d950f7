/**
 * Rate limits (decisions.md, Operating a server): per API key on /v1 as a token bucket (the rate
 * per second, a burst of twice that), per source endpoint when configured; over it, 429
 * `rate_limited` in the error shape with Retry-After and RateLimit-* headers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

const HTTP_SOURCE = `export default {
  name: "ok", version: "0.1.0",
  props: { http: "$.interface.http" },
  async run() {},
};`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(testDatabases())("rate limits on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    s = await startServer({ db, env: { HEADWATER_RATE_LIMIT: "5", HEADWATER_ENDPOINT_RATE_LIMIT: "2" } });
    alice = await s.newUser();
    bob = await s.newUser();
    await sleep(2100); // the admin's bucket refills after making the users
  });
  afterAll(() => s?.stop());

  const me = (key: string) => fetch(`${s.baseUrl}/users/me`, { headers: { authorization: `Bearer ${key}` } });

  it("a key gets a burst of twice the rate, then 429 rate_limited with Retry-After and RateLimit-*", async () => {
    await sleep(2100);
    // Sent at once: the burst (10) passes, the rest is refused (a token may come back meanwhile).
    const answers = await Promise.all(Array.from({ length: 16 }, () => me(alice.key)));
    const passed = answers.filter((r) => r.status === 200);
    const refusedAll = answers.filter((r) => r.status === 429);
    expect(passed.length).toBeGreaterThanOrEqual(10);
    expect(passed.length).toBeLessThanOrEqual(13);
    expect(refusedAll.length).toBe(16 - passed.length);
    expect(passed[0]!.headers.get("ratelimit-limit")).toBe("10");
    const remaining = passed.map((r) => Number(r.headers.get("ratelimit-remaining"))).sort((x, y) => x - y);
    expect(remaining[0]).toBe(0);
    expect(remaining.at(-1)).toBeGreaterThanOrEqual(8);
    const refused = refusedAll[0]!;
    expect(await refused.json()).toMatchObject({ code: "rate_limited", error: expect.stringMatching(/5 per second/) });
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get("ratelimit-remaining")).toBe("0");
    expect(Number(refused.headers.get("ratelimit-reset"))).toBeGreaterThanOrEqual(1);
    // Another key has its own bucket.
    expect((await me(bob.key)).status).toBe(200);
    // Outside /v1: health is never limited.
    for (let i = 0; i < 20; i++) expect((await fetch(`${s.origin}/healthz`)).status).toBe(200);
  });

  it("refills as a token bucket: after 0.5 s about 2 requests pass, not a whole window's", async () => {
    await sleep(2100);
    const burst = await Promise.all(Array.from({ length: 14 }, () => me(bob.key)));
    expect(burst.filter((r) => r.status === 429).length).toBeGreaterThanOrEqual(3);
    // A fixed window would let nothing through until it ends (2 s); a bucket refills 5 per second.
    await sleep(500);
    const after = await Promise.all(Array.from({ length: 8 }, () => me(bob.key)));
    const passed = after.filter((r) => r.status === 200).length;
    expect(passed).toBeGreaterThanOrEqual(2);
    // Not a whole burst back either; the exact refill (2 after 0.5 s) is checked on a fake clock
    // in server/http/rate-limit.test.ts: here a busy machine may take longer than 0.5 s.
    expect(passed).toBeLessThan(8);
  });

  it("a source endpoint is limited on its own (HEADWATER_ENDPOINT_RATE_LIMIT)", async () => {
    await sleep(2100);
    const a = await alice.client.createSource({ component_code: HTTP_SOURCE });
    const b = await alice.client.createSource({ component_code: HTTP_SOURCE });
    const url = (src: { configured_props: Record<string, unknown> }) =>
      (src.configured_props.http as { endpoint_url: string }).endpoint_url;
    const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(url(a), { method: "POST", body: "{}" })));
    const passed = answers.filter((r) => r.status === 200).length;
    expect(passed).toBeGreaterThanOrEqual(4);
    expect(passed).toBeLessThanOrEqual(5);
    const refused = answers.find((r) => r.status === 429)!;
    expect(await refused.json()).toMatchObject({ code: "rate_limited" });
    expect(refused.headers.get("retry-after")).toBeTruthy();
    expect((await fetch(url(b), { method: "POST", body: "{}" })).status).toBe(200);
  });
});

describe("HEADWATER_RATE_LIMIT=0", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ env: { HEADWATER_RATE_LIMIT: "0" } });
  });
  afterAll(() => s?.stop());

  it("turns the limit off: 300 quick requests all pass, without RateLimit headers", async () => {
    const answers = await Promise.all(
      Array.from({ length: 300 }, () => fetch(`${s.baseUrl}/users/me`, { headers: { authorization: `Bearer ${s.adminKey}` } })),
    );
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(answers[0]!.headers.get("ratelimit-limit")).toBeNull();
  });
});
