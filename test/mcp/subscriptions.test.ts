/**
 * Resource subscriptions, over both transports and revisions: `resources/subscribe`
 * (2025-11-25, its session's GET stream over HTTP) and `subscriptions/listen` (2026-07-28)
 * bring `notifications/resources/updated` within a second of new events, at most one a second,
 * and nothing about another user's source.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { connect, echoSource, ERAS, until, type Connected, type Era, type Via } from "./helpers.js";

let s: TestServer;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  s = await startServer();
  [alice, bob] = await Promise.all([s.newUser(), s.newUser()]);
});
afterAll(async () => {
  await s?.stop();
});

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.status);

async function httpSource(u: TestUser) {
  const src = await u.client.createSource({ component_code: echoSource(uniqueKey("sub")) });
  return { id: src.id, url: `${s.origin}/e/${src.id}`, uri: `headwater://sources/${src.id}/events` };
}

/** Subscribes the era's way; returns the unsubscribe. */
async function subscribe(conn: Connected, era: Era, uri: string): Promise<() => Promise<unknown>> {
  if (era === "2025-11-25") {
    await conn.client.subscribeResource({ uri });
    return () => conn.client.unsubscribeResource({ uri });
  }
  const sub = await conn.client.listen({ resourceSubscriptions: [uri] });
  expect(sub.honoredFilter.resourceSubscriptions).toEqual([uri]);
  return () => sub.close();
}

const combos: Array<[Via, Era]> = (["http", "stdio"] as const).flatMap((via) => ERAS.map((era): [Via, Era] => [via, era]));

describe.each(combos)("over %s, protocol %s", (via, era) => {
  let conn: Connected;
  const updates: Array<{ uri: string; at: number }> = [];
  beforeAll(async () => {
    conn = await connect(via, s, alice.key, era);
    conn.client.setNotificationHandler("notifications/resources/updated", (n) => {
      updates.push({ uri: n.params.uri, at: Date.now() });
    });
  });
  afterAll(async () => {
    await conn?.close();
  });

  it("notifies within a second of new events, at most once a second, until unsubscribed", async () => {
    const src = await httpSource(alice);
    const unsubscribe = await subscribe(conn, era, src.uri);
    // The watch's stream is open once the subscription is answered; give it a moment to attach.
    await new Promise((r) => setTimeout(r, 200));
    const t0 = Date.now();
    for (let i = 0; i < 5; i++) expect(await post(src.url, { i })).toBe(200);
    await until(() => updates.some((u) => u.uri === src.uri), 5000, "the first notification");
    const first = updates.find((u) => u.uri === src.uri)!;
    // Within a second of the first event's commit (the request before it waited for a sandbox).
    const stored = (await alice.client.listSourceEvents(src.id, { limit: 100 })).data.map((e) => e.indexed_at_ms);
    expect(first.at - Math.min(...stored)).toBeLessThan(1000);
    expect(first.at).toBeGreaterThanOrEqual(t0);
    // More events a moment later: one more notification, not one per event, a second apart.
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 5; i < 10; i++) expect(await post(src.url, { i })).toBe(200);
    await new Promise((r) => setTimeout(r, 2000));
    const mine = updates.filter((u) => u.uri === src.uri);
    expect(mine.length).toBeGreaterThanOrEqual(2);
    expect(mine.length).toBeLessThanOrEqual(3);
    // The server sends them a second apart; what arrives here may be closer by the jitter of
    // the way (a loaded machine delays one more than the next), never one per event.
    for (let k = 1; k < mine.length; k++) expect(mine[k]!.at - mine[k - 1]!.at).toBeGreaterThanOrEqual(600);

    await unsubscribe();
    await new Promise((r) => setTimeout(r, 200));
    const before = updates.length;
    expect(await post(src.url, { after: "unsubscribe" })).toBe(200);
    await new Promise((r) => setTimeout(r, 1500));
    expect(updates.length).toBe(before);
  });

  it("says nothing about another user's source", async () => {
    const theirs = await httpSource(bob);
    if (era === "2025-11-25") {
      await expect(conn.client.subscribeResource({ uri: theirs.uri })).rejects.toThrow();
    } else {
      const sub = await conn.client.listen({ resourceSubscriptions: [theirs.uri] });
      await new Promise((r) => setTimeout(r, 200));
      expect(await post(theirs.url, { secret: true })).toBe(200);
      await new Promise((r) => setTimeout(r, 1500));
      await sub.close();
    }
    expect(updates.filter((u) => u.uri === theirs.uri)).toEqual([]);
    await expect(conn.client.readResource({ uri: theirs.uri })).rejects.toThrow();
  });
});
