import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../shared/client/index.js";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { emitDirect, newSource } from "./fixtures.js";

const status = async (p: Promise<unknown>) => {
  try {
    await p;
    return 200;
  } catch (err) {
    return err instanceof ApiError ? err.status : -1;
  }
};

describe.each(testDatabases())("event summaries and deletes on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let source: string;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
    source = await newSource(alice);
  });
  afterAll(() => srv?.stop());

  it("lists a source's events newest first with page_info and both cursors", async () => {
    const ids = await emitDirect(srv, alice, source, [1, 2, 3, 4, 5].map((i) => ({ i })));
    const p1 = await alice.client.listSourceEvents(source, { limit: 2 });
    expect(p1.data.map((e) => e.id)).toEqual([ids[4], ids[3]]);
    expect(p1.page_info).toEqual({ total_count: 5, count: 2, start_cursor: ids[4], end_cursor: ids[3] });
    expect(p1.data[0]).toMatchObject({ event: { i: 5 }, metadata: { name: "", emitter_id: source } });
    expect(typeof p1.data[0]!.metadata.emit_id).toBe("string");
    expect(typeof p1.data[0]!.indexed_at_ms).toBe("number");
    const p2 = await alice.client.listSourceEvents(source, { limit: 2, after: p1.page_info.end_cursor! });
    expect(p2.data.map((e) => e.id)).toEqual([ids[2], ids[1]]);
    const back = await alice.client.listSourceEvents(source, { limit: 2, before: p2.page_info.start_cursor! });
    expect(back.data.map((e) => e.id)).toEqual([ids[4], ids[3]]);
    const last = await alice.client.listSourceEvents(source, { limit: 2, after: ids[0]! });
    expect(last.data).toEqual([]);
    expect(last.page_info).toMatchObject({ count: 0, start_cursor: null, end_cursor: null });
    await alice.client.deleteSourceEvents(source);
  });

  it("reads other channels with event_name and truncates big events unless expand=event", async () => {
    await emitDirect(srv, alice, source, [{ big: "x".repeat(2000) }]);
    await emitDirect(srv, alice, source, [{ log: "hello" }], "$logs");
    const page = await alice.client.listSourceEvents(source);
    expect(page.data[0]!.event).toMatchObject({ truncated: true, size: 2010 });
    expect(page.data[0]!.metadata.truncated).toBe(true);
    const full = await alice.client.listSourceEvents(source, { expand: "event" });
    expect(full.data[0]!.event).toEqual({ big: "x".repeat(2000) });
    const logs = await alice.client.listSourceEvents(source, { event_name: "$logs" });
    expect(logs.data.map((e) => e.event)).toEqual([{ log: "hello" }]);
    expect(logs.data[0]!.metadata.name).toBe("$logs");
    const dflt = await alice.client.listSourceEvents(source, { event_name: "default" });
    expect(dflt.page_info.total_count).toBe(1);
    await alice.client.deleteSourceEvents(source);
    await alice.client.deleteSourceEvents(source, { event_name: "$logs" });
  });

  it("applies every deletion rule, answering 202 {data:{accepted:true}}", async () => {
    const remaining = async () => (await alice.client.listSourceEvents(source, { limit: 100 })).data.map((e) => e.id).reverse();
    const ids = await emitDirect(srv, alice, source, Array.from({ length: 8 }, (_, i) => ({ i })));
    // Rule 4 with equal values: a single event.
    const res = await alice.client.raw("DELETE", `/sources/${source}/events`, { query: { start_id: ids[3], end_id: ids[3] } });
    expect(res).toEqual({ data: { accepted: true } });
    expect(await remaining()).toEqual([ids[0], ids[1], ids[2], ids[4], ids[5], ids[6], ids[7]]);
    // Rule 4: an inclusive range.
    await alice.client.deleteSourceEvents(source, { start_id: ids[1], end_id: ids[2] });
    expect(await remaining()).toEqual([ids[0], ids[4], ids[5], ids[6], ids[7]]);
    // Rule 2: start_id and everything later.
    await alice.client.deleteSourceEvents(source, { start_id: ids[6] });
    expect(await remaining()).toEqual([ids[0], ids[4], ids[5]]);
    // Rule 3: end_id and everything earlier.
    await alice.client.deleteSourceEvents(source, { end_id: ids[4] });
    expect(await remaining()).toEqual([ids[5]]);
    // Rule 1: everything.
    await emitDirect(srv, alice, source, [{ more: true }]);
    await alice.client.deleteSourceEvents(source);
    expect(await remaining()).toEqual([]);
    expect((await alice.client.listSourceEvents(source)).page_info.total_count).toBe(0);
  });

  it("deleting ids that match nothing is still accepted and changes nothing", async () => {
    const ids = await emitDirect(srv, alice, source, [{ a: 1 }]);
    await alice.client.deleteSourceEvents(source, { start_id: "1-0", end_id: "2-0" });
    expect((await alice.client.listSourceEvents(source)).data.map((e) => e.id)).toEqual(ids);
    await alice.client.deleteSourceEvents(source);
  });

  it("refuses bad ids and cursors with 400, foreign and unknown sources with 404", async () => {
    expect(await status(alice.client.deleteSourceEvents(source, { start_id: "abc" }))).toBe(400);
    expect(await status(alice.client.raw("DELETE", `/sources/${source}/events`, { query: { start_id: "5-0", end_id: "4-0" } }))).toBe(400);
    expect(await status(alice.client.listSourceEvents(source, { after: "not-a-cursor" }))).toBe(400);
    expect(await status(alice.client.listSourceEvents(source, { limit: 0 }))).toBe(400);
    expect(await status(alice.client.listSourceEvents(source, { limit: 101 }))).toBe(400);
    expect(await status(bob.client.listSourceEvents(source))).toBe(404);
    expect(await status(bob.client.deleteSourceEvents(source))).toBe(404);
    expect(await status(alice.client.listSourceEvents("dc_doesnotexist"))).toBe(404);
    expect(await status(alice.client.listWorkflowEvents("p_doesnotexist"))).toBe(404);
    expect(await status(alice.client.listWorkflowErrors("p_doesnotexist"))).toBe(404);
  });

  it("retains the newest events per channel (default 100)", async () => {
    const ids = await emitDirect(srv, alice, source, Array.from({ length: 130 }, (_, i) => ({ i })));
    const page = await alice.client.listSourceEvents(source, { limit: 100 });
    expect(page.page_info.total_count).toBe(100);
    expect(page.data[99]!.id).toBe(ids[30]);
    await alice.client.deleteSourceEvents(source);
  });

  it("deleting the source removes its events", async () => {
    const other = await newSource(alice);
    await emitDirect(srv, alice, other, [{ a: 1 }]);
    await alice.client.deleteSource(other);
    expect(await status(alice.client.listSourceEvents(other))).toBe(404);
    const rows = await srv.server.store.db.selectFrom("events").select("id").where("emitter_id", "=", other).execute();
    expect(rows).toEqual([]);
  });
});
