/**
 * The SQLite search index filled behind the commits (migrations/0007): a search sees every
 * stored event whether or not its batch ran, deleted events leave the index, and a rowid reused
 * after the newest rows were deleted is indexed again.
 */
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { LocalEventBus } from "../../server/events/bus.js";
import { createEventStore, type ManagedEventStore } from "../../server/events/event-store.js";
import { deleteEvents } from "../../server/events/reads.js";
import { startSearchIndexer, type SearchIndexer } from "../../server/events/search-indexer.js";
import { searchEvents } from "../../server/store/repos/event-search.js";
import { tempDb } from "./helpers.js";

type Opened = Awaited<ReturnType<typeof tempDb>>;
const page = { limit: 100 };

describe("search index behind the commits (SQLite)", () => {
  let db: Opened;
  let store: ManagedEventStore;

  beforeEach(async () => {
    db = await tempDb();
    store = createEventStore({ db: db.db, writes: db.writes, bus: new LocalEventBus(), retention: 3 });
  });
  afterEach(async () => {
    await store.close();
    await db.close();
  });

  const emit = async (text: string) => (await store.append([{ emitterId: "dc_s", ownerId: "u_a", channel: "", event: { text } }]))[0]!.id;
  const indexed = async () => (await sql<{ n: number }>`SELECT count(*) AS n FROM events_search`.execute(db.db)).rows[0]!.n;
  const mark = async () => (await sql<{ r: number }>`SELECT indexed_rowid AS r FROM search_index_state`.execute(db.db)).rows[0]!.r;
  const search = async (q: string) => (await searchEvents(db.db, "dc_s", "", q, page)).rows.map((r) => r.id);

  it("commits without indexing, and a search indexes what is pending first", async () => {
    const a = await emit("alpha one");
    const b = await emit("alpha two");
    expect(await indexed()).toBe(0);
    expect(await search("alpha")).toEqual([b, a]);
    expect(await indexed()).toBe(2);
    expect(await (await searchEvents(db.db, "dc_s", "", "alpha", page)).total).toBe(2);
  });

  it("drops deleted events from the index, indexed or not, retention included", async () => {
    const ids = [await emit("beta 1"), await emit("beta 2")];
    expect(await search("beta")).toEqual([ids[1], ids[0]]);
    // Retention 3: two more push the oldest out, one of them before it was ever indexed.
    ids.push(await emit("beta 3"), await emit("beta 4"));
    expect(await search("beta")).toEqual([ids[3], ids[2], ids[1]]);
    await deleteEvents(db.db, "dc_s", "", ids[2], ids[2]);
    expect(await search("beta")).toEqual([ids[3], ids[1]]);
    expect(await indexed()).toBe(2);
  });

  it("indexes a rowid reused after the newest events were deleted", async () => {
    const old = await emit("gamma old");
    const newest = await emit("gamma newest");
    expect(await search("gamma")).toEqual([newest, old]);
    const before = await mark();
    await deleteEvents(db.db, "dc_s", "", newest, newest);
    // The mark follows the highest row left, so the next insert (which may take the freed rowid) is indexed.
    expect(await mark()).toBe(before - 1);
    const reused = await emit("gamma reused");
    expect(await search("gamma")).toEqual([reused, old]);
    expect(await search("newest")).toEqual([]);
  });

  it("the background indexer fills the index after commits", async () => {
    const indexer: SearchIndexer = startSearchIndexer(db.db, db.writes, (err) => {
      throw err;
    }, 10);
    const withIndexer = createEventStore({ db: db.db, writes: db.writes, bus: new LocalEventBus(), retention: 100, onStored: indexer.stored });
    await withIndexer.append([{ emitterId: "dc_t", ownerId: "u_a", channel: "", event: { text: "delta" } }]);
    for (let i = 0; i < 200 && (await indexed()) === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(await indexed()).toBe(1);
    await withIndexer.close();
    await indexer.close();
  });

  it("the background indexer runs right after a commit, once the oldest pending one is old enough", async () => {
    // 200 ms: a commit 250 ms after the first indexes both at once, 150 ms before the timer would.
    const indexer = startSearchIndexer(db.db, db.writes, (err) => {
      throw err;
    }, 200);
    const withIndexer = createEventStore({ db: db.db, writes: db.writes, bus: new LocalEventBus(), retention: 100, onStored: indexer.stored });
    // Past its look at start (for what an earlier process left) first.
    await new Promise((r) => setTimeout(r, 220));
    await withIndexer.append([{ emitterId: "dc_t", ownerId: "u_a", channel: "", event: { text: "epsilon one" } }]);
    expect(await indexed()).toBe(0);
    await new Promise((r) => setTimeout(r, 250));
    expect(await indexed()).toBe(0);
    await withIndexer.append([{ emitterId: "dc_t", ownerId: "u_a", channel: "", event: { text: "epsilon two" } }]);
    for (let i = 0; i < 50 && (await indexed()) < 2; i++) await new Promise((r) => setTimeout(r, 1));
    expect(await indexed()).toBe(2);
    await withIndexer.close();
    await indexer.close();
  });
});
