/** Timer sources (cron, run-less schedule) and the built-in registry components, through the API. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveFiles, type FilesServer } from "../support/files-server.js";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { channelEvents, fixture, hit, waitForEvents } from "./helpers.js";

const rss = (items: Array<{ title: string; guid: string }>) => `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>Test &amp; Feed</title><link>https://feed.example.test/</link>
${items
  .map(
    (i) => `<item><title><![CDATA[${i.title}]]></title><link>https://feed.example.test/${i.guid}</link>
<guid isPermaLink="false">${i.guid}</guid><pubDate>Sat, 21 Nov 2026 10:00:00 GMT</pubDate><description>About ${i.title}</description></item>`,
  )
  .reverse()
  .join("\n")}
</channel></rss>`;

const atom = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom"><title>Atom test</title><link href="https://atom.example.test/"/>
<entry><title>Atom &lt;one&gt;</title><link rel="alternate" href="https://atom.example.test/1"/><id>urn:uuid:1</id><updated>2026-11-21T10:00:00Z</updated><summary>first</summary></entry>
</feed>`;

describe.each(testDatabases())("timers and built-in components on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  let feed: FilesServer;
  let items = [
    { title: "First <post>", guid: "post-1" },
    { title: "Second post", guid: "post-2" },
  ];

  beforeAll(async () => {
    // The test's feed server listens on loopback, which components may reach only when allowed.
    s = await startServer({ db, env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1" } });
    alice = await s.newUser();
    feed = await serveFiles({
      "/feed.xml": (res) => res.writeHead(200, { "content-type": "application/rss+xml" }).end(rss(items)),
      "/atom.xml": (res) => res.writeHead(200, { "content-type": "application/atom+xml" }).end(atom),
      "/data.json": (res) => res.writeHead(200, { "content-type": "application/json" }).end('{"hello":"json"}'),
    });
  });
  afterAll(async () => {
    await feed?.close();
    await s?.stop();
  });

  it("runs a cron timer with the timer event {timestamp, cron} and keeps its db between runs", async () => {
    const src = await alice.client.createSource({ component_code: fixture("cron-timer.mjs") });
    const events = await waitForEvents(alice.client, src.id, "", 2);
    const [a, b] = events.map((e) => e.event as { runs: number; timer: { timestamp: number; cron: string } });
    expect(a!.runs).toBe(1);
    expect(b!.runs).toBe(2);
    expect(a!.timer).toEqual({ timestamp: expect.any(Number), cron: "* * * * * *" });
    expect(b!.timer.timestamp).toBeGreaterThan(a!.timer.timestamp);
    await alice.client.deleteSource(src.id);
  });

  it("a run-less schedule emits its timer event; deactivating stops it", async () => {
    const src = await alice.client.createSource({ component_code: fixture("schedule.mjs") });
    const events = await waitForEvents(alice.client, src.id, "", 1);
    expect(events[0]!.event).toEqual({ timestamp: expect.any(Number), interval_seconds: 1 });
    await alice.client.updateSource(src.id, { component_id: src.component_id, active: false });
    const stopped = (await channelEvents(alice.client, src.id, "")).length;
    await new Promise((r) => setTimeout(r, 2500));
    // At most a tick that was already queued when it was deactivated.
    expect((await channelEvents(alice.client, src.id, "")).length).toBeLessThanOrEqual(stopped + 1);
    await alice.client.updateSource(src.id, { component_id: src.component_id, active: true });
    await waitForEvents(alice.client, src.id, "", stopped + 2);
  });

  it("gives components the platform's axios (response data; errors carry the response)", async () => {
    const src = await alice.client.createSource({ component_code: fixture("platform-axios.mjs"), configured_props: { url: `${feed.url}/data.json` } });
    await hit((src.configured_props.http as { endpoint_url: string }).endpoint_url, { body: {} });
    const [e] = await waitForEvents(alice.client, src.id, "", 1);
    expect(e!.event).toEqual({ data: { hello: "json" }, status: 404 });
  });

  it("ships the built-ins in the registry", async () => {
    for (const key of ["http-new-requests", "schedule", "rss-new-item-in-feed"]) {
      const c = await alice.client.getRegistryComponent(key);
      expect(c).toMatchObject({ key, published: true });
    }
  });

  it("the built-in HTTP source emits each request", async () => {
    const src = await alice.client.createSource({ key: "http-new-requests" });
    const url = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
    const r = await hit(url, { body: { a: 1 }, path: "/hook?q=1" });
    expect(r.json).toEqual({ success: true });
    const [e] = await waitForEvents(alice.client, src.id, "", 1);
    expect(e!.event).toMatchObject({ method: "POST", path: "/hook", query: { q: "1" }, body: { a: 1 }, bodyRaw: '{"a":1}' });
    expect(e!.metadata.summary).toBe("POST /hook");
  });

  it("the built-in RSS poller emits each item once (unique dedupe), then only new ones", async () => {
    const src = await alice.client.createSource({
      key: "rss-new-item-in-feed",
      configured_props: { url: `${feed.url}/feed.xml`, timer: { intervalSeconds: 1 } },
    });
    // The deploy hook polls at once.
    const first = await waitForEvents(alice.client, src.id, "", 2);
    expect(first.map((e) => e.event)).toMatchObject([
      { title: "First <post>", guid: "post-1", link: "https://feed.example.test/post-1", permalink: "https://feed.example.test/post-1" },
      { title: "Second post", guid: "post-2", link: "https://feed.example.test/post-2", description: "About Second post" },
    ]);
    expect(first[0]!.metadata).toMatchObject({ id: "post-1", summary: "First <post>" });
    // Timer polls see the same feed: nothing new.
    const polls = feed.requests.length;
    while (feed.requests.length < polls + 2) await new Promise((r) => setTimeout(r, 100));
    expect(await channelEvents(alice.client, src.id, "")).toHaveLength(2);
    items = [...items, { title: "Third post", guid: "post-3" }];
    const after = await waitForEvents(alice.client, src.id, "", 3);
    expect(after[2]!.event).toMatchObject({ title: "Third post", guid: "post-3" });
    expect(await channelEvents(alice.client, src.id, "$errors")).toEqual([]);
    await alice.client.deleteSource(src.id);
  });

  it("the built-in RSS poller reads Atom feeds", async () => {
    const src = await alice.client.createSource({ key: "rss-new-item-in-feed", configured_props: { url: `${feed.url}/atom.xml` } });
    const [e] = await waitForEvents(alice.client, src.id, "", 1);
    expect(e!.event).toMatchObject({ title: "Atom <one>", link: "https://atom.example.test/1", guid: "urn:uuid:1", permalink: "https://atom.example.test/1" });
  });
});
