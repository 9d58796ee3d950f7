/** HTTP sources through the API: custom responses, db state, batching, logs, hooks. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { channelEvents, fixture, hit, waitForEvents } from "./helpers.js";

describe.each(testDatabases())("HTTP sources on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    s = await startServer({ db });
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  const endpointOf = (src: { configured_props: Record<string, unknown> }) =>
    (src.configured_props.http as { endpoint_url: string }).endpoint_url;

  it("answers with the first this.http.respond, keeps a db counter and logs to $logs", async () => {
    const src = await alice.client.createSource({ component_code: fixture("http-counter.mjs") });
    const url = endpointOf(src);
    expect(url).toBe(`${s.origin}/e/${src.id}`);

    const first = await hit(url, { body: { hello: "world" }, path: "/some/path?x=1&x=2&y=z" });
    expect(first.status).toBe(201);
    expect(first.headers.get("x-count")).toBe("1");
    expect(first.json).toEqual({
      n: 1,
      method: "POST",
      path: "/some/path",
      query: { x: ["1", "2"], y: "z" },
      body: { hello: "world" },
      ct: "application/json",
    });
    const form = await hit(url, { body: "a=1&b=two", headers: { "content-type": "application/x-www-form-urlencoded" }, method: "PUT" });
    expect(form.status).toBe(201);
    expect(form.json).toMatchObject({ n: 2, method: "PUT", path: "/", body: { a: "1", b: "two" } });
    const text = await hit(url, { body: "plain words", headers: { "content-type": "text/plain" } });
    expect(text.json).toMatchObject({ n: 3, body: "plain words" });

    const events = await waitForEvents(alice.client, src.id, "", 3);
    expect(events.map((e) => e.event)).toEqual([
      { n: 1, body: { hello: "world" }, bodyRaw: '{"hello":"world"}' },
      { n: 2, body: { a: "1", b: "two" }, bodyRaw: "a=1&b=two" },
      { n: 3, body: "plain words", bodyRaw: "plain words" },
    ]);
    expect(events[0]!.metadata).toMatchObject({ summary: "request 1", id: "req-1", emitter_id: src.id, name: "" });
    const evens = await waitForEvents(alice.client, src.id, "evens", 1);
    expect(evens.map((e) => [e.event, e.metadata.name])).toEqual([[{ even: 2 }, "evens"]]);
    const logs = await waitForEvents(alice.client, src.id, "$logs", 3);
    expect(logs.map((e) => (e.event as { message: string }).message)).toEqual([
      "request 1 POST /some/path",
      "request 2 PUT /",
      "request 3 POST /",
    ]);
    expect(await channelEvents(alice.client, src.id, "$errors")).toEqual([]);
  });

  it("answers 200 {success:true} at once without customResponse, and a batcher emits an array", async () => {
    const src = await alice.client.createSource({ component_code: fixture("batcher.js"), configured_props: { size: 3 } });
    const url = endpointOf(src);
    for (let i = 1; i <= 7; i++) {
      const r = await hit(url, { body: { i } });
      expect(r.status).toBe(200);
      expect(r.json).toEqual({ success: true });
    }
    const events = await waitForEvents(alice.client, src.id, "", 2);
    expect(events.map((e) => e.event)).toEqual([
      [{ i: 1 }, { i: 2 }, { i: 3 }],
      [{ i: 4 }, { i: 5 }, { i: 6 }],
    ]);
  });

  it("runs a burst of requests in order: each run sees the db the last one left, dedupe and errors hold", async () => {
    const src = await alice.client.createSource({ component_code: fixture("burst-counter.mjs") });
    const url = endpointOf(src);
    // 40 requests at once (they queue up and run in batches); keys k0..k29, so ten repeat one.
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) => hit(url, { body: { i, key: `k${i % 30}`, fail: i === 5 } })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(40).fill(200));
    await hit(url, { body: { i: 99, key: "last" } });
    const events = await waitForEvents(alice.client, src.id, "", 31);
    // The 41st run counted 41: no run missed another's db.set, in a batch or between batches.
    expect(events.at(-1)!.event).toEqual({ n: 41, i: 99 });
    const kept = events.slice(0, -1).map((e) => e.event as { n: number; i: number });
    expect(kept).toHaveLength(30);
    // Stored in run order, and unique dedupe kept one event per key.
    expect(kept.map((e) => e.n)).toEqual([...kept.map((e) => e.n)].sort((a, b) => a - b));
    expect(new Set(kept.map((e) => e.i % 30)).size).toBe(30);
    const errors = await waitForEvents(alice.client, src.id, "$errors", 1);
    expect(errors).toHaveLength(1);
    expect(errors[0]!.event).toMatchObject({
      error: { code: "COMPONENT_ERROR", message: "request 5 failed on purpose" },
      original_event: { body: { i: 5 } },
    });
  });

  it("runs hooks in the documented order, and a throwing hook fails the request with its message", async () => {
    const src = await alice.client.createSource({ component_code: fixture("hooks.mjs") });
    await alice.client.updateSource(src.id, { component_id: src.component_id, active: false });
    await alice.client.updateSource(src.id, { component_id: src.component_id, active: true });
    const logs = await waitForEvents(alice.client, src.id, "$logs", 4);
    expect(logs.map((e) => (e.event as { message: string }).message)).toEqual([
      "hook deploy",
      "hook activate true",
      "hook deactivate",
      "hook activate true",
    ]);
    expect((await channelEvents(alice.client, src.id, "")).map((e) => e.event)).toEqual([{ hook: "deploy" }]);
    await hit(endpointOf(src), { body: {} });
    const events = await waitForEvents(alice.client, src.id, "", 2);
    expect(events[1]!.event).toEqual({ run: true, endpoint: endpointOf(src), deployed: true });

    const before = (await alice.client.listMySources()).page_info.total_count;
    const failed = await hit(`${s.baseUrl}/sources/`, {
      body: { component_code: fixture("hooks.mjs"), configured_props: { fail: "deploy" } },
      headers: { authorization: `Bearer ${alice.key}` },
    });
    expect(failed.status).toBeGreaterThanOrEqual(400);
    expect(failed.status).toBeLessThan(500);
    expect(String(failed.json.error)).toMatch(/deploy refused: missing token/);
    expect((await alice.client.listMySources()).page_info.total_count).toBe(before);
  });

  it("a failing deactivate does not block updating or deleting the source", async () => {
    const src = await alice.client.createSource({ component_code: fixture("hooks.mjs"), configured_props: { fail: "deactivate" } });
    const updated = await alice.client.updateSource(src.id, { component_id: src.component_id, active: false });
    expect(updated.active).toBe(false);
    await alice.client.updateSource(src.id, { component_id: src.component_id, active: true });
    await alice.client.deleteSource(src.id);
    expect((await hit(`${s.baseUrl}/sources/${src.id}`, { headers: { authorization: `Bearer ${alice.key}` } })).status).toBe(404);
  });

  it("does not trigger an inactive source, and re-enabling resumes it; a deleted one is 404 at once", async () => {
    const src = await alice.client.createSource({ component_code: fixture("batcher.js"), configured_props: { size: 1 } });
    const url = endpointOf(src);
    // Its endpoint answered just before each change (the endpoint's target is remembered briefly).
    expect((await hit(url, { body: { i: 0 } })).status).toBe(200);
    await waitForEvents(alice.client, src.id, "", 1);
    await alice.client.updateSource(src.id, { component_id: src.component_id, active: false });
    const refused = await hit(url, { body: { i: 1 } });
    expect(refused.status).toBe(404);
    expect(refused.json.code).toBe("inactive");
    await alice.client.updateSource(src.id, { component_id: src.component_id, active: true });
    expect((await hit(url, { body: { i: 2 } })).status).toBe(200);
    const events = await waitForEvents(alice.client, src.id, "", 2);
    expect(events.map((e) => e.event)).toEqual([[{ i: 0 }], [{ i: 2 }]]);
    await alice.client.deleteSource(src.id);
    const gone = await hit(url, { body: { i: 3 } });
    expect(gone.status).toBe(404);
    expect(gone.json.code).toBe("not_found");
  });

  it("runs the next request with a source's changed props at once", async () => {
    const src = await alice.client.createSource({ component_code: fixture("batcher.js"), configured_props: { size: 1 } });
    const url = endpointOf(src);
    expect((await hit(url, { body: { i: 0 } })).status).toBe(200);
    await waitForEvents(alice.client, src.id, "", 1);
    // Right after a run (the source as that run read it is fresh in memory): batches of two now.
    await alice.client.updateSource(src.id, { component_id: src.component_id, configured_props: { size: 2 } });
    expect((await hit(url, { body: { i: 1 } })).status).toBe(200);
    expect((await hit(url, { body: { i: 2 } })).status).toBe(200);
    const events = await waitForEvents(alice.client, src.id, "", 2);
    expect(events.map((e) => e.event)).toEqual([[{ i: 0 }], [{ i: 1 }, { i: 2 }]]);
  });

  it("runs a listener source on events delivered by a subscription (trigger-agnostic run)", async () => {
    const emitter = await alice.client.createSource({ component_code: fixture("batcher.js"), configured_props: { size: 1 } });
    const listener = await alice.client.createSource({ component_code: fixture("relay.mjs") });
    await alice.client.createSubscription({ emitter_id: emitter.id, listener_id: listener.id });
    await hit(endpointOf(emitter), { body: { i: 1 } });
    await hit(endpointOf(emitter), { body: { i: 2 } });
    const events = await waitForEvents(alice.client, listener.id, "", 2);
    expect(events.map((e) => e.event)).toEqual([
      { seen: 1, got: [{ i: 1 }] },
      { seen: 2, got: [{ i: 2 }] },
    ]);
  });

  it("takes any method, no body, and refuses a body over the limit with 413", async () => {
    const src = await alice.client.createSource({ component_code: fixture("http-counter.mjs") });
    const url = endpointOf(src);
    for (const method of ["GET", "DELETE", "PATCH", "OPTIONS"]) {
      const r = await hit(url, { method });
      expect(r.status).toBe(201);
      expect(r.json).toMatchObject({ method, body: "", path: "/" });
    }
    const big = await hit(url, { body: "x".repeat(2 * 1024 * 1024), headers: { "content-type": "text/plain" } });
    expect(big.status).toBe(413);
    expect(big.json).toMatchObject({ code: expect.any(String), error: expect.any(String) });
  });

  it("keeps each source's db to itself", async () => {
    const counter = await alice.client.createSource({ component_code: fixture("http-counter.mjs") });
    expect((await hit(endpointOf(counter), { body: {} })).json.n).toBe(1);
    const peek = await alice.client.createSource({ component_code: fixture("db-peek.mjs") });
    await hit(endpointOf(peek), { body: {} });
    const [e] = await waitForEvents(alice.client, peek.id, "", 1);
    expect(e!.event).toEqual({ count: null, batch: null });
  });

  it("answers 404 for an unknown endpoint", async () => {
    const r = await hit(`${s.origin}/e/dc_doesnotexist`, { body: {} });
    expect(r.status).toBe(404);
    expect(r.json.code).toBe("not_found");
  });
});
