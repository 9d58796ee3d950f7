/** `q` on event lists (decisions.md "Event inspection", Search), against a real server. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { emitDirect, newSource } from "./fixtures.js";

describe.each(testDatabases())("event search on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db, env: { HEADWATER_EVENT_RETENTION: "5000" } });
    alice = await srv.newUser();
    bob = await srv.newUser();
  });
  afterAll(() => srv?.stop());

  it("finds events by data or summary, case-insensitive, newest first, with cursors and total_count", async () => {
    const source = await newSource(alice);
    // 1,200 events: the matches lie beyond the first thousand (what a dashboard has loaded).
    const ids: string[] = [];
    for (let b = 0; b < 12; b++) {
      ids.push(...(await emitDirect(srv, alice, source, Array.from({ length: 100 }, (_, i) => ({ n: b * 100 + i, text: "ordinary" })))));
    }
    const [needle1] = await srv.server.services.events.store.append([
      { emitterId: source, ownerId: alice.user.id, channel: "", event: { n: -1 }, meta: { summary: "Invoice PAID by Ada" } },
    ]);
    // Back-dated matches: the oldest events of the source.
    const first = ids.slice(0, 3);
    await alice.client.deleteSourceEvents(source, { start_id: ids[3]!, end_id: ids[1199]! });
    const extra = await emitDirect(srv, alice, source, [{ customer: "Ada Lovelace", note: 'said "hello"' }, { customer: "Charles" }]);

    const ada = await alice.client.listSourceEvents(source, { q: "ada" });
    expect(ada.data.map((e) => e.id)).toEqual([extra[0], needle1!.id]);
    expect(ada.page_info).toMatchObject({ total_count: 2, count: 2, start_cursor: extra[0], end_cursor: needle1!.id });

    // Quotes inside event data (stored as JSON) are found as typed.
    const quoted = await alice.client.listSourceEvents(source, { q: 'SAID "HELLO"' });
    expect(quoted.data.map((e) => e.id)).toEqual([extra[0]]);

    // Paging through matches with after / before.
    const ordinary = await alice.client.listSourceEvents(source, { q: "ordin", limit: 2 });
    expect(ordinary.page_info.total_count).toBe(3);
    expect(ordinary.data.map((e) => e.id)).toEqual([first[2], first[1]]);
    const next = await alice.client.listSourceEvents(source, { q: "ordin", limit: 2, after: ordinary.page_info.end_cursor! });
    expect(next.data.map((e) => e.id)).toEqual([first[0]]);
    const back = await alice.client.listSourceEvents(source, { q: "ordin", limit: 2, before: next.page_info.start_cursor! });
    expect(back.data.map((e) => e.id)).toEqual([first[2], first[1]]);

    // Short text (below three characters) still matches, case-insensitively.
    const short = await alice.client.listSourceEvents(source, { q: "aD", limit: 10 });
    expect(short.data.map((e) => e.id)).toEqual([extra[0], needle1!.id]);

    // No match, and text that is a LIKE / FTS metacharacter, are taken literally.
    for (const q of ["zzz-nothing", "%", "_", "*", "a%d"]) {
      const none = await alice.client.listSourceEvents(source, { q });
      expect(none.page_info.total_count, q).toBe(0);
      expect(none.data, q).toEqual([]);
    }
  });

  it("treats empty or bad q as absent", async () => {
    const source = await newSource(alice);
    await emitDirect(srv, alice, source, [{ a: 1 }, { b: 2 }]);
    for (const q of ["", "   "]) {
      const page = await alice.client.listSourceEvents(source, { q });
      expect(page.page_info.total_count).toBe(2);
    }
    const repeated = (await alice.client.raw("GET", `/sources/${source}/event_summaries?q=a&q=b`)) as { page_info: { total_count: number } };
    expect(repeated.page_info.total_count).toBe(2);
    const long = (await alice.client.raw("GET", `/sources/${source}/event_summaries`, { query: { q: "x".repeat(300) } })) as {
      page_info: { total_count: number };
    };
    expect(long.page_info.total_count).toBe(2);
  });

  it("searches every channel and workflows, and only the owner's events", async () => {
    const source = await newSource(alice);
    await emitDirect(srv, alice, source, [{ level: "info", message: "connected to upstream" }], "$logs");
    await emitDirect(srv, alice, source, [{ message: "upstream refused" }], "$errors");
    await emitDirect(srv, alice, source, [{ other: "upstream" }], "orders");
    const logs = await alice.client.listSourceEvents(source, { event_name: "$logs", q: "UPSTREAM" });
    expect(logs.data.map((e) => e.event)).toEqual([{ level: "info", message: "connected to upstream" }]);
    const orders = await alice.client.listSourceEvents(source, { event_name: "orders", q: "upstream" });
    expect(orders.page_info.total_count).toBe(1);
    const dflt = await alice.client.listSourceEvents(source, { q: "upstream" });
    expect(dflt.page_info.total_count).toBe(0);

    const wf = await alice.client.createWorkflow({ name: "wf", steps: [{ code: "export default defineComponent({ async run() {} });" }] });
    await emitDirect(srv, alice, wf.id, [{ order: "A-17" }, { order: "B-18" }]);
    await emitDirect(srv, alice, wf.id, [{ error: { message: "boom in A-17" } }], "$errors");
    expect((await alice.client.listWorkflowEvents(wf.id, { q: "a-17" })).data.map((e) => e.event)).toEqual([{ order: "A-17" }]);
    expect((await alice.client.listWorkflowErrors(wf.id, { q: "a-17" })).page_info.total_count).toBe(1);

    // Bob's search of Alice's source is a 404, as any read of it.
    await expect(bob.client.listSourceEvents(source, { q: "upstream" })).rejects.toMatchObject({ status: 404 });
  });

  it("keeps search in step with retention and range deletes", async () => {
    const source = await newSource(alice);
    const ids = await emitDirect(srv, alice, source, [{ tag: "keep-me" }, { tag: "drop-me" }, { tag: "drop-me" }]);
    expect((await alice.client.listSourceEvents(source, { q: "drop-me" })).page_info.total_count).toBe(2);
    await alice.client.deleteSourceEvents(source, { start_id: ids[1]! });
    const after = await alice.client.listSourceEvents(source, { q: "drop-me" });
    expect(after.page_info.total_count).toBe(0);
    expect(after.data).toEqual([]);
    expect((await alice.client.listSourceEvents(source, { q: "keep-me" })).page_info.total_count).toBe(1);
  });
});
