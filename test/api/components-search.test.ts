/**
 * GET /components/search: the registry's components by key and name (prefix, contains, near
 * spellings), best first; a user's unpublished components stay theirs; a query naming an app
 * says what came of its vendor package; a registry lookup of a word that is no key suggests keys.
 * (The vendor package fetch itself is in components-npm.test.ts, which installs one.)
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { expectApiError, timerComponent, uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

describe.each(testDatabases())("component search on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    s = await startServer({ db });
    alice = await s.newUser();
    bob = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  const keys = async (u: TestUser, q: string) => (await u.client.searchComponents({ q })).data.map((m) => m.key);

  it("an app's word finds its components by key prefix, first", async () => {
    const found = await alice.client.searchComponents({ q: "http" });
    expect(found.data[0]).toMatchObject({ key: "http-new-requests", origin: "registry", type: "source", match: "prefix" });
    expect(found.data.map((m) => m.key)).not.toContain("schedule");
    // The server here looks up no vendor packages: it says so rather than failing.
    expect(found.app).toEqual({ name: "http", package: "@pipedream/http", status: "off" });
  });

  it("matches words of names, several words, and near spellings", async () => {
    expect(await keys(alice, "new requests")).toContain("http-new-requests");
    expect(await keys(alice, "schedul")).toEqual(["schedule"]);
    const typo = await alice.client.searchComponents({ q: "htpp" });
    expect(typo.data[0]).toMatchObject({ key: "http-new-requests", match: "fuzzy" });
    expect(await keys(alice, "zzqqxx")).toEqual([]);
  });

  it("an empty query lists every registry component; limit bounds it", async () => {
    const all = await keys(alice, "");
    expect(all).toEqual(expect.arrayContaining(["http-new-requests", "rss-new-item-in-feed", "schedule"]));
    expect((await alice.client.searchComponents({ limit: 1 })).data).toHaveLength(1);
  });

  it("finds published components for everyone, a user's unpublished ones for nobody", async () => {
    const key = uniqueKey("searchme");
    const own = await alice.client.createComponent({ component_code: timerComponent(key, "Searchable timer") });
    expect(await keys(bob, key)).toEqual([]);
    await alice.client.publishComponent(own.id);
    const found = await bob.client.searchComponents({ q: "searchable" });
    expect(found.data).toContainEqual({
      key,
      name: "Searchable timer",
      description: null,
      type: "source",
      origin: "registry",
      match: "prefix",
    });
  });

  it("a registry lookup of a word that is no key suggests the nearest keys", async () => {
    const err = await expectApiError(alice.client.getRegistryComponent("http"), 404, "not_found");
    expect(err.message).toBe("registry component http not found; did you mean http-new-requests?");
    const none = await expectApiError(alice.client.getRegistryComponent("zzqqxx-nothing"), 404, "not_found");
    expect(none.message).toBe("registry component zzqqxx-nothing not found");
  });

  it("refuses a query too long or a limit out of range (400), and needs a key (401)", async () => {
    await expectApiError(alice.client.searchComponents({ q: "x".repeat(201) }), 400);
    await expectApiError(alice.client.searchComponents({ limit: 0 }), 400);
    const res = await fetch(`${s.baseUrl}/components/search?q=http`);
    expect(res.status).toBe(401);
  });
});
