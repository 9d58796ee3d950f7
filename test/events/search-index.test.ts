/**
 * The SQLite search index in its own file, written by a worker thread (store/search/): a search
 * sees every stored event whether or not the worker got to it, deleted events leave the index,
 * a rowid reused after the newest rows were deleted is indexed again, and an index file that does
 * not belong to its database (a restored copy, another database) is rebuilt.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "kysely";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { LocalEventBus } from "../../server/events/bus.js";
import { createEventStore, type ManagedEventStore } from "../../server/events/event-store.js";
import { deleteEvents } from "../../server/events/reads.js";
import { openDb, type OpenedDb } from "../../server/store/db.js";
import { searchEvents } from "../../server/store/repos/event-search.js";
import { SQLite } from "../../shared/sqlite-native.js";
import { tempDb } from "./helpers.js";

type Opened = Awaited<ReturnType<typeof tempDb>>;
const page = { limit: 100 };

describe("search index in a file of its own (SQLite)", () => {
  let db: Opened;
  let store: ManagedEventStore;

  const open = async () => {
    store = createEventStore({ db: db.db, writes: db.writes, bus: new LocalEventBus(), retention: 3, onStored: () => db.searchIndex!.changed() });
  };
  beforeEach(async () => {
    db = await tempDb();
    await open();
  });
  afterEach(async () => {
    await store.close();
    await db.close();
  });

  const emit = async (text: string, emitterId = "dc_s") => (await store.append([{ emitterId, ownerId: "u_a", channel: "", event: { text } }]))[0]!.id;
  const indexed = async () => (await sql<{ n: number }>`SELECT count(*) AS n FROM search.events_search`.execute(db.db)).rows[0]!.n;
  const search = async (q: string, emitterId = "dc_s") => (await searchEvents(db.db, db.searchIndex, emitterId, "", q, page)).rows.map((r) => r.id);
  const until = async (done: () => Promise<boolean>) => {
    for (let i = 0; i < 500 && !(await done()); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await done()).toBe(true);
  };

  it("keeps the index in headwater-search.db, owner-only, and none in the database", async () => {
    const file = path.join(db.dir, "headwater-search.db");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const tables = await sql<{ name: string }>`SELECT name FROM main.sqlite_master WHERE type = 'table' AND name LIKE 'events_search%'`.execute(db.db);
    expect(tables.rows).toEqual([]);
  });

  it("a search finds the events stored right before it", async () => {
    const a = await emit("alpha one");
    const b = await emit("alpha two");
    expect(await search("alpha")).toEqual([b, a]);
    expect((await searchEvents(db.db, db.searchIndex, "dc_s", "", "alpha", page)).total).toBe(2);
  });

  it("the worker indexes stored events without a search", async () => {
    await emit("delta");
    await until(async () => (await indexed()) === 1);
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
    // The applied deletes leave the database's queue once the worker is idle again.
    db.searchIndex!.changed();
    await until(async () => (await sql<{ n: number }>`SELECT count(*) AS n FROM search_deletes`.execute(db.db)).rows[0]!.n === 0);
  });

  it("indexes a rowid reused after the newest events were deleted, never the deleted text", async () => {
    const old = await emit("gamma old");
    const newest = await emit("gamma newest");
    expect(await search("gamma")).toEqual([newest, old]);
    await deleteEvents(db.db, "dc_s", "", newest, newest);
    const reused = await emit("gamma reused");
    const rowids = await sql<{ r: number }>`SELECT rowid AS r FROM events ORDER BY rowid`.execute(db.db);
    expect(rowids.rows.map((r) => r.r)).toEqual([1, 2]);
    expect(await search("gamma")).toEqual([reused, old]);
    expect(await search("newest")).toEqual([]);
    expect(await search("reused")).toEqual([reused]);
  });

  it("searches scan the events when the index cannot be brought up to date", async () => {
    const a = await emit("eta one");
    await db.searchIndex!.close();
    const b = await emit("eta two");
    expect(await search("eta")).toEqual([b, a]);
  });
});

describe("an index file that does not belong to its database is rebuilt (SQLite)", () => {
  let dir: string;
  let opened: OpenedDb | undefined;
  let store: ManagedEventStore | undefined;

  const start = async () => {
    opened = await openDb({ dataDir: dir });
    const o = opened;
    store = createEventStore({ db: o.db, writes: o.writes, bus: new LocalEventBus(), retention: 100, onStored: () => o.searchIndex!.changed() });
  };
  const stop = async () => {
    await store?.close();
    await opened?.close();
    store = undefined;
    opened = undefined;
  };
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-search-restore-"));
    await start();
  });
  afterEach(async () => {
    await stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const emit = async (text: string) => (await store!.append([{ emitterId: "dc_s", ownerId: "u_a", channel: "", event: { text } }]))[0]!.id;
  const search = async (q: string) => (await searchEvents(opened!.db, opened!.searchIndex, "dc_s", "", q, page)).rows.map((r) => r.id);
  /** A page-for-page copy of the database (rowids and the index's token kept), as a file copy would be. */
  const copyDatabase = async () => {
    const raw = new SQLite(path.join(dir, "headwater.db"), { readonly: true });
    await raw.backup(path.join(dir, "copy.db"));
    raw.close();
  };
  /** With the server stopped, the copy put back in place of the database; the index file stays. */
  const putBackCopy = async () => {
    await stop();
    fs.copyFileSync(path.join(dir, "copy.db"), path.join(dir, "headwater.db"));
    for (const f of ["headwater.db-wal", "headwater.db-shm"]) fs.rmSync(path.join(dir, f), { force: true });
    expect(fs.existsSync(path.join(dir, "headwater-search.db"))).toBe(true);
    await start();
  };

  it("after an older copy is put back whose deletes are behind the index's", async () => {
    const kept = await emit("zeta kept");
    expect(await search("zeta")).toEqual([kept]);
    await copyDatabase();
    const later = await emit("zeta later");
    expect(await search("zeta")).toEqual([later, kept]);
    await sql`DELETE FROM events WHERE id = ${later}`.execute(opened!.db);
    // Takes the rowid "later" had, and is indexed there.
    const newer = await emit("zeta newer");
    expect(await search("zeta")).toEqual([newer, kept]);
    await putBackCopy();
    expect(await search("zeta")).toEqual([kept]);
    // In the copy, the rowid of "newer" is free: a new event takes it, and must not match "newer".
    const fresh = await emit("zeta fresh");
    expect(await search("newer")).toEqual([]);
    expect(await search("zeta")).toEqual([fresh, kept]);
  });

  it("after an older copy is put back that lacks the newest indexed events", async () => {
    const kept = await emit("theta kept");
    expect(await search("theta")).toEqual([kept]);
    await copyDatabase();
    const later = await emit("theta later");
    expect(await search("theta")).toEqual([later, kept]);
    await putBackCopy();
    const fresh = await emit("theta fresh");
    expect(await search("later")).toEqual([]);
    expect(await search("theta")).toEqual([fresh, kept]);
  });

  it("after the database's rows were renumbered, as a VACUUM may do", async () => {
    const ids = [await emit("lambda one"), await emit("lambda two"), await emit("lambda three")];
    await deleteEvents(opened!.db, "dc_s", "", ids[0], ids[0]);
    expect(await search("lambda")).toEqual([ids[2], ids[1]]);
    await stop();
    const raw = new SQLite(path.join(dir, "headwater.db"));
    raw.exec("VACUUM");
    // SQLite 3.53 keeps these rowids through a VACUUM; one that closes the gap does this:
    raw.exec("UPDATE events SET rowid = rowid - 1");
    raw.close();
    await start();
    const four = await emit("lambda four");
    expect(await search("lambda")).toEqual([four, ids[2], ids[1]]);
    expect(await search("three")).toEqual([ids[2]]);
    expect(await search("four")).toEqual([four]);
  });

  it("when the index's file is not a database at all", async () => {
    const kept = await emit("kappa kept");
    expect(await search("kappa")).toEqual([kept]);
    await stop();
    const errors: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((m: string) => void errors.push(m));
    try {
      fs.writeFileSync(path.join(dir, "headwater-search.db"), "this is not a database ".repeat(400));
      await start();
      expect(errors.join("\n")).toMatch(/headwater-search\.db cannot be used .*built again/);
    } finally {
      spy.mockRestore();
    }
    expect(await search("kappa")).toEqual([kept]);
    const fresh = await emit("kappa fresh");
    expect(await search("kappa")).toEqual([fresh, kept]);
  });

  it("when the database names another index (a copy made by headwater backup)", async () => {
    const kept = await emit("iota kept");
    expect(await search("iota")).toEqual([kept]);
    await copyDatabase();
    // The same rows and deletes, another text at the same rowid: only the token tells this
    // database's index from the one in the data dir.
    const copy = new SQLite(path.join(dir, "copy.db"));
    copy.prepare("UPDATE search_link SET token = 'another'").run();
    copy.prepare(`UPDATE events SET event_json = '{"text":"iota changed"}'`).run();
    copy.close();
    await putBackCopy();
    expect(await search("kept")).toEqual([]);
    expect(await search("changed")).toEqual([kept]);
  });
});
