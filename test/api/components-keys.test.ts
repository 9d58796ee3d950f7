/**
 * Component keys per account (decisions.md, Components): accounts never block each other's
 * keys, the newest of an account's components with a key wins, the registry is a namespace of
 * its own (409 on publishing a key another user or the system published), built-ins block no
 * user's key within an account, and `key` lookups resolve in the account first, then the registry.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { serveFiles, type FilesServer } from "../support/files-server.js";
import { expectApiError, timerComponent, uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { hit, waitForEvents } from "../runtime/helpers.js";

/** A user's own HTTP source under the built-in's key: it tags each event so we know whose ran. */
const ownHttpSource = (tag: string) => `
export default {
  key: "http-new-requests",
  name: "My HTTP requests",
  version: "9.0.0",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit({ mine: "${tag}", path: event.path }); },
};
`;

/** A user's own RSS source under the built-in's key, laid out as the vendor lays out its files. */
const RSS_FILES = {
  "/rss/sources/new-item-in-feed/new-item-in-feed.mjs": `
import rss from "../../rss.app.mjs";
import { titles } from "../common/parse.mjs";
export default {
  key: "rss-new-item-in-feed",
  name: "My RSS",
  version: "1.0.0",
  props: { rss, url: { type: "string", label: "Feed URL" }, timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } } },
  hooks: { async deploy() { await this.emitAll(); } },
  methods: { async emitAll() { for (const title of titles(await this.rss.read(this.url))) this.$emit({ title }, { id: title }); } },
  async run() { await this.emitAll(); },
};`,
  "/rss/sources/common/parse.mjs": `export const titles = (xml) => [...xml.matchAll(/<title>([^<]*)<\\/title>/g)].map((m) => m[1]);`,
  "/rss/rss.app.mjs": `export default { type: "app", app: "rss", methods: { async read(url) { return (await fetch(url)).text(); } } };`,
  "/http/sources/new-requests/new-requests.mjs": `
import { tag } from "../common/tag.mjs";
export default {
  key: "http-new-requests",
  name: "My HTTP requests by URL",
  version: "9.1.0",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit({ mine: tag(event.method), path: event.path }); },
};`,
  "/http/sources/common/tag.mjs": `export const tag = (m) => "url:" + m;`,
  "/feed.xml": `<rss><channel><item><title>first</title></item><item><title>second</title></item></channel></rss>`,
};

describe.each(testDatabases())("component keys per account on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let files: FilesServer;

  beforeAll(async () => {
    // Files and the feed are served from 127.0.0.1: allow private addresses (refused by default).
    s = await startServer({ db, env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "true" } });
    alice = await s.newUser();
    bob = await s.newUser();
    files = await serveFiles(RSS_FILES);
  });
  afterAll(async () => {
    await files?.close();
    await s?.stop();
  });

  it("two users save the same key; each reads their own", async () => {
    const key = uniqueKey();
    const a = await alice.client.createComponent({ component_code: timerComponent(key, "Alice's") });
    const b = await bob.client.createComponent({ component_code: timerComponent(key, "Bob's") });
    expect(a.id).not.toBe(b.id);
    expect(await alice.client.getComponent(key)).toMatchObject({ id: a.id, name: "Alice's" });
    expect(await bob.client.getComponent(key)).toMatchObject({ id: b.id, name: "Bob's" });
    // Both at once: nobody waits on a key claim, nobody gets a 409.
    const both = await Promise.all([
      alice.client.createComponent({ component_code: timerComponent(key, "A2") }),
      bob.client.createComponent({ component_code: timerComponent(key, "B2") }),
    ]);
    expect(both.map((c) => c.name)).toEqual(["A2", "B2"]);
  });

  it("saving a key again makes a new component; lookups by key give the newest", async () => {
    const key = uniqueKey();
    const first = await alice.client.createComponent({ component_code: timerComponent(key, "First") });
    const second = await alice.client.createComponent({ component_code: timerComponent(key, "Second") });
    expect(second.id).not.toBe(first.id);
    expect((await alice.client.getComponent(key)).id).toBe(second.id);
    expect((await alice.client.createSource({ key })).component_id).toBe(second.id);
    // The older one is still there by id.
    expect((await alice.client.getComponent(first.id)).name).toBe("First");
  });

  it("publishing a key another user published is a 409 and publishes nothing", async () => {
    const key = uniqueKey();
    const a = await alice.client.createComponent({ component_code: timerComponent(key, "Alice's") });
    const b = await bob.client.createComponent({ component_code: timerComponent(key, "Bob's") });
    await alice.client.publishComponent(a.id);
    await expectApiError(bob.client.publishComponent(b.id), 409, "conflict");
    expect((await bob.client.getComponent(b.id)).published).toBe(false);
    expect((await bob.client.getRegistryComponent(key)).id).toBe(a.id);
    // Alice publishes a newer version under her key: the registry moves to it.
    const a2 = await alice.client.createComponent({ component_code: timerComponent(key, "Alice's v2") });
    await alice.client.publishComponent(a2.id);
    expect((await bob.client.getRegistryComponent(key)).id).toBe(a2.id);
  });

  it("two users racing to publish one key: one wins, the other gets a 409 (no 5xx)", async () => {
    const key = uniqueKey();
    const a = await alice.client.createComponent({ component_code: timerComponent(key) });
    const b = await bob.client.createComponent({ component_code: timerComponent(key) });
    const results = await Promise.allSettled([alice.client.publishComponent(a.id), bob.client.publishComponent(b.id)]);
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(lost.map((r) => (r.reason as { status: number }).status)).toEqual([409]);
  });

  it("built-ins block no user's key in an account, but nobody can publish over one in the registry", async () => {
    const builtin = await bob.client.getRegistryComponent("schedule");
    const frank = await s.newUser();
    const mine = await frank.client.createComponent({ component_code: timerComponent("schedule", "Frank's schedule") });
    expect(mine.key).toBe("schedule");
    // Publishing would hand every other user's `key: "schedule"` lookups frank's code.
    await expectApiError(frank.client.publishComponent(mine.id), 409, "conflict");
    expect((await frank.client.getComponent(mine.id)).published).toBe(false);
    expect((await bob.client.getRegistryComponent("schedule")).id).toBe(builtin.id);
    expect((await bob.client.createSource({ key: "schedule" })).component_id).toBe(builtin.id);
    // Frank's own lookups find his component first.
    expect((await frank.client.createSource({ key: "schedule" })).component_id).toBe(mine.id);
  });

  it("a user's own http-new-requests deploys by code next to the built-in; key lookups: account, then registry", async () => {
    const key = "http-new-requests";
    const builtin = await bob.client.getRegistryComponent(key);
    const carol = await s.newUser();
    const byCode = await carol.client.createSource({ component_code: ownHttpSource("carol") });
    const url = (byCode.configured_props.http as { endpoint_url: string }).endpoint_url;
    expect((await hit(url, { body: { x: 1 }, path: "/a" })).status).toBe(200);
    const events = await waitForEvents(carol.client, byCode.id, "", 1);
    expect(events[0]!.event).toEqual({ mine: "carol", path: "/a" });

    // By key, carol now gets her own component; dave (no component of his own) the built-in.
    const carolsByKey = await carol.client.createSource({ key });
    expect(carolsByKey.component_id).toBe(byCode.component_id);
    const dave = await s.newUser();
    const davesByKey = await dave.client.createSource({ key });
    expect(davesByKey.component_id).toBe(builtin.id);
    // The built-in still runs as the built-in (it emits the request itself).
    const daveUrl = (davesByKey.configured_props.http as { endpoint_url: string }).endpoint_url;
    await hit(daveUrl, { body: { y: 2 } });
    const daves = await waitForEvents(dave.client, davesByKey.id, "", 1);
    expect(daves[0]!.event).toMatchObject({ method: "POST", body: { y: 2 } });
    expect(daves[0]!.event).not.toHaveProperty("mine");
  });

  it("the other way round: own http-new-requests by URL (relative imports), own rss-new-item-in-feed by code", async () => {
    const erin = await s.newUser();
    const http = await erin.client.createSource({
      component_url: `${files.url}/http/sources/new-requests/new-requests.mjs`,
    });
    const url = (http.configured_props.http as { endpoint_url: string }).endpoint_url;
    await hit(url, { body: { z: 1 }, path: "/b" });
    expect((await waitForEvents(erin.client, http.id, "", 1))[0]!.event).toEqual({ mine: "url:POST", path: "/b" });

    const rssCode = `export default {
      key: "rss-new-item-in-feed", name: "My RSS by code", version: "1.0.0",
      props: { url: { type: "string" }, timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } } },
      hooks: { async deploy() { await this.poll(); } },
      methods: {
        async poll() {
          const xml = await (await fetch(this.url)).text();
          for (const m of xml.matchAll(/<title>([^<]*)<\\/title>/g)) this.$emit({ title: m[1] }, { id: m[1] });
        },
      },
      async run() { await this.poll(); },
    };`;
    const rss = await erin.client.createSource({ component_code: rssCode, configured_props: { url: `${files.url}/feed.xml` } });
    expect((await waitForEvents(erin.client, rss.id, "", 2)).map((e) => e.event)).toEqual([{ title: "first" }, { title: "second" }]);
    // Each resolves to erin's own by key; the registry still has the built-ins.
    expect((await erin.client.getComponent("http-new-requests")).id).toBe(http.component_id);
    expect((await erin.client.getComponent("rss-new-item-in-feed")).id).toBe(rss.component_id);
    expect((await erin.client.getRegistryComponent("rss-new-item-in-feed")).name).not.toBe("My RSS by code");
  });

  it("a user's own rss-new-item-in-feed deploys by component_url with relative imports and emits every item", async () => {
    const src = await alice.client.createSource({
      component_url: `${files.url}/rss/sources/new-item-in-feed/new-item-in-feed.mjs`,
      configured_props: { url: `${files.url}/feed.xml`, rss: {} },
    });
    const c = await alice.client.getComponent(src.component_id);
    expect(c).toMatchObject({ key: "rss-new-item-in-feed", name: "My RSS", published: false });
    const events = await waitForEvents(alice.client, src.id, "", 2);
    expect(events.map((e) => e.event)).toEqual([{ title: "first" }, { title: "second" }]);
    // Bob's lookup by key is untouched by Alice's component: the built-in RSS source.
    const builtin = await bob.client.getRegistryComponent("rss-new-item-in-feed");
    expect(builtin.id).not.toBe(c.id);
    expect((await alice.client.getComponent("rss-new-item-in-feed")).id).toBe(c.id);
  });
});
