import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { emitDirect, newSource } from "../events/fixtures.js";
import { openSse, type SseReader } from "./sse-reader.js";

describe.each(testDatabases())("source SSE streams on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let source: string;
  const auth = (u: TestUser) => ({ authorization: `Bearer ${u.key}` });
  const open: SseReader[] = [];
  const sse = async (path: string, headers: Record<string, string>) => {
    const r = await openSse(`${srv.origin}${path}`, headers);
    open.push(r);
    return r;
  };

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
    source = await newSource(alice);
  });
  afterAll(async () => {
    for (const r of open) r.close();
    await srv?.stop();
  });

  it("needs the owner's key: 401 without, 404 for another user's source", async () => {
    expect((await sse(`/sources/${source}/sse`, {})).status).toBe(401);
    expect((await sse(`/sources/${source}/sse`, auth(bob))).status).toBe(404);
    expect((await sse(`/sources/dc_nope/sse`, auth(alice))).status).toBe(404);
    expect((await sse(`/sources/${source}/sse?last_event_id=garbage`, auth(alice))).status).toBe(400);
  });

  it("streams live events as `id:` + expanded summary, no event: line, after a handshake comment", async () => {
    const r = await sse(`/sources/${source}/sse`, auth(alice));
    expect(r.status).toBe(200);
    const alias = await sse(`/sse/dc/${source}/emits`, auth(alice));
    const big = { text: "y".repeat(3000) };
    const ids = await emitDirect(srv, alice, source, [{ n: 1 }, big]);
    const got = await r.waitFor(2);
    expect(got.map((m) => m.id)).toEqual(ids);
    const first = JSON.parse(got[0]!.data) as Record<string, unknown>;
    expect(first).toMatchObject({ id: ids[0], event: { n: 1 }, metadata: { name: "", emitter_id: source } });
    expect(JSON.parse(got[1]!.data)).toMatchObject({ event: big });
    expect(r.comments).toContain("sse-handshake");
    expect((await alias.waitFor(2)).map((m) => m.id)).toEqual(ids);
  });

  it("observations carry $logs and $errors, not the default channel", async () => {
    const r = await sse(`/sse/dc/${source}/observations`, auth(alice));
    await emitDirect(srv, alice, source, [{ n: "default" }]);
    const [log] = await emitDirect(srv, alice, source, [{ msg: "a log" }], "$logs");
    const [err] = await emitDirect(srv, alice, source, [{ error: "boom" }], "$errors");
    const got = await r.waitFor(2);
    expect(got.map((m) => m.id)).toEqual([log, err]);
    expect(got.map((m) => (JSON.parse(m.data) as { metadata: { name: string } }).metadata.name)).toEqual(["$logs", "$errors"]);
  });

  it("a running source's console.log and thrown errors arrive on observations", async () => {
    const code = `export default {
      key: "${"noisy_" + Date.now()}", name: "Noisy", version: "0.0.1",
      props: { http: "$.interface.http" },
      async run(event) { console.log("hello", event.body.n); if (event.body.fail) throw new Error("it broke"); this.$emit(event.body); },
    };`;
    const src = (await alice.client.createSource({ component_code: code, name: "noisy" })).id;
    const obs = await sse(`/sse/dc/${src}/observations`, auth(alice));
    const emits = await sse(`/sources/${src}/sse`, auth(alice));
    await fetch(`${srv.origin}/e/${src}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ n: 1 }) });
    await fetch(`${srv.origin}/e/${src}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ n: 2, fail: true }) });
    const got = await obs.waitFor(3, 20_000);
    const names = got.map((m) => (JSON.parse(m.data) as { metadata: { name: string } }).metadata.name);
    expect(names).toEqual(["$logs", "$logs", "$errors"]);
    expect(got[0]!.data).toContain("hello");
    expect(got[2]!.data).toContain("it broke");
    const emitted = await emits.waitFor(1);
    expect(JSON.parse(emitted[0]!.data)).toMatchObject({ event: { n: 1 } });
  });

  it("resumes from Last-Event-ID (header or query) with no gap and no duplicate under concurrent emits", async () => {
    const first = await sse(`/sources/${source}/sse`, auth(alice));
    const all: string[] = [];
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        all.push(...(await emitDirect(srv, alice, source, [{ i }])));
        await new Promise((r) => setTimeout(r, 2));
      }
    })();
    await first.waitFor(10);
    first.close();
    const seen = first.messages.map((m) => m.id!);
    // Resume with the header while the writer keeps emitting.
    const second = await sse(`/sources/${source}/sse`, { ...auth(alice), "last-event-id": seen[seen.length - 1]! });
    await second.waitFor(10);
    second.close();
    seen.push(...second.messages.map((m) => m.id!));
    // And once more with the query parameter.
    const third = await sse(`/sources/${source}/sse?last_event_id=${seen[seen.length - 1]!}`, auth(alice));
    await third.waitFor(10);
    writing = false;
    await writer;
    const tail = all.slice(all.indexOf(seen[seen.length - 1]!) + 1);
    await third.waitFor(tail.length);
    seen.push(...third.messages.map((m) => m.id!));
    third.close();
    // Every id from the first one seen to the last emitted, in order, once.
    expect(seen).toEqual(all.slice(all.indexOf(seen[0]!)));
  });

  it("disconnects a client that stops reading, without slowing others; it can resume", async () => {
    // A server of its own, retaining enough that the resume below finds every event.
    const own = await startServer({ db, env: { HEADWATER_EVENT_RETENTION: "2000" } });
    try {
      const u = await own.newUser();
      const src = await newSource(u);
      const bus = own.server.services.events.bus;
      const h = { authorization: `Bearer ${u.key}` };
      const slow = await openSse(`${own.origin}/sources/${src}/sse`, h);
      const fast = await openSse(`${own.origin}/sources/${src}/sse`, h);
      slow.pause();
      // Batches of 10 events of 256 KB until the server drops the stalled stream: the kernel's
      // loopback buffers absorb tens of MB before the server-side limit (1 MB) is reached.
      const payload = "z".repeat(256 * 1024);
      const ids: string[] = [];
      for (let i = 0; bus.listenerCount(src) > 1; i++) {
        if (i >= 400) throw new Error("the stalled stream was never dropped");
        ids.push(...(await emitDirect(own, u, src, Array.from({ length: 10 }, (_, j) => ({ k: i * 10 + j, payload })))));
        await new Promise((r) => setTimeout(r, 100));
      }
      // The fast reader got everything, in order, and is still connected.
      expect((await fast.waitFor(ids.length, 30_000)).map((m) => m.id)).toEqual(ids);
      expect(fast.isEnded()).toBe(false);
      slow.resume();
      await slow.ended;
      const got = slow.messages.map((m) => m.id!);
      expect(got.length).toBeLessThan(ids.length);
      expect(got).toEqual(ids.slice(0, got.length));
      // Resume: the rest of what is retained, then live.
      const again = await openSse(`${own.origin}/sources/${src}/sse`, { ...h, "last-event-id": got[got.length - 1] ?? "0-0" });
      const rest = await again.waitFor(ids.length - got.length, 30_000);
      expect(rest.map((m) => m.id)).toEqual(ids.slice(got.length));
      const [live] = await emitDirect(own, u, src, [{ after: "resume" }]);
      expect((await again.waitFor(ids.length - got.length + 1)).at(-1)!.id).toBe(live);
      for (const r of [slow, fast, again]) r.close();
    } finally {
      await own.stop();
    }
  }, 120_000);
});
