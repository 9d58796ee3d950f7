import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compareEventIds } from "../../shared/ids.js";
import { LocalEventBus, type BusEvent } from "../../server/events/bus.js";
import { createEventStore, type ManagedEventStore } from "../../server/events/event-store.js";
import { deleteEvents, listSummaries, EventQueryError } from "../../server/events/reads.js";
import { tempDb } from "./helpers.js";

type Opened = Awaited<ReturnType<typeof tempDb>>;

describe("event store", () => {
  let db: Opened;
  let bus: LocalEventBus;
  let store: ManagedEventStore;
  let clock: number;

  beforeEach(async () => {
    db = await tempDb();
    bus = new LocalEventBus();
    clock = 1_700_000_000_000;
    store = createEventStore({ db: db.db, bus, retention: 5, now: () => clock });
  });
  afterEach(async () => {
    await store.close();
    await db.close();
  });

  const emit = (n: number, emitterId = "dc_a", channel = "") =>
    store.append(Array.from({ length: n }, (_, i) => ({ emitterId, ownerId: "u_1", channel, event: { i } })));

  it("assigns strictly increasing ids within one millisecond and after the clock goes back", async () => {
    const first = await emit(3);
    expect(first.map((e) => e.id)).toEqual(["1700000000000-0", "1700000000000-1", "1700000000000-2"]);
    clock -= 10; // clock went back
    const second = await emit(1);
    expect(second[0]!.id).toBe("1700000000000-3");
    clock += 100;
    const third = await emit(1);
    expect(third[0]!.id).toBe("1700000000090-0");
  });

  it("keeps ids increasing across a restart (a new store on the same database)", async () => {
    await emit(2);
    await store.close();
    store = createEventStore({ db: db.db, bus, retention: 5, now: () => clock });
    const after = await emit(1);
    expect(after[0]!.id).toBe("1700000000000-2");
  });

  it("concurrent appends from many callers get distinct ordered ids", async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => emit(2, "dc_c")));
    const ids = results.flat().map((e) => e.id);
    expect(new Set(ids).size).toBe(100);
    const sorted = [...ids].sort(compareEventIds);
    expect(ids).toEqual(sorted);
  });

  it("retains the newest N per emitter and channel", async () => {
    await emit(8);
    await emit(2, "dc_a", "$logs");
    const page = await listSummaries(db.db, db.searchIndex, "dc_a", "", { limit: 100 });
    expect(page.page_info.total_count).toBe(5);
    expect(page.data.map((s) => (s.event as { i: number }).i)).toEqual([7, 6, 5, 4, 3]);
    const logs = await listSummaries(db.db, db.searchIndex, "dc_a", "$logs", {});
    expect(logs.page_info.total_count).toBe(2);
    // An emit naming the channel "default" lands on the default channel "".
    await emit(1, "dc_a", "default");
    expect((await listSummaries(db.db, db.searchIndex, "dc_a", "", {})).data[0]!.event).toEqual({ i: 0 });
    expect((await listSummaries(db.db, db.searchIndex, "dc_a", "default", {})).page_info.total_count).toBe(0);
  });

  it("pages newest first with after and before cursors", async () => {
    await emit(5);
    const p1 = await listSummaries(db.db, db.searchIndex, "dc_a", "", { limit: 2 });
    expect(p1.data.map((s) => (s.event as { i: number }).i)).toEqual([4, 3]);
    const p2 = await listSummaries(db.db, db.searchIndex, "dc_a", "", { limit: 2, after: p1.page_info.end_cursor! });
    expect(p2.data.map((s) => (s.event as { i: number }).i)).toEqual([2, 1]);
    const back = await listSummaries(db.db, db.searchIndex, "dc_a", "", { limit: 2, before: p2.page_info.start_cursor! });
    expect(back.data.map((s) => (s.event as { i: number }).i)).toEqual([4, 3]);
    expect(back.page_info).toMatchObject({ total_count: 5, count: 2 });
    await expect(listSummaries(db.db, db.searchIndex, "dc_a", "", { after: "nope" })).rejects.toBeInstanceOf(EventQueryError);
  });

  it("truncates events over 1024 bytes unless expanded, and keeps $emit metadata", async () => {
    const big = { text: "é".repeat(1000) };
    await store.append([
      { emitterId: "dc_t", ownerId: "u_1", channel: "", event: big, meta: { id: "k1", summary: "big one", ts: 5 } },
    ]);
    const short = await listSummaries(db.db, db.searchIndex, "dc_t", "", {});
    const item = short.data[0]!;
    const size = Buffer.byteLength(JSON.stringify(big));
    expect(item.event).toMatchObject({ truncated: true, size });
    const preview = (item.event as { preview: string }).preview;
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(1024);
    expect(JSON.stringify(big).startsWith(preview)).toBe(true);
    expect(item.metadata).toMatchObject({ name: "", emitter_id: "dc_t", id: "k1", summary: "big one", ts: 5, truncated: true });
    const full = await listSummaries(db.db, db.searchIndex, "dc_t", "", { expand: true });
    expect(full.data[0]!.event).toEqual(big);
    expect(full.data[0]!.metadata.truncated).toBeUndefined();
  });

  it("deletes inclusive ranges in every combination", async () => {
    const ids = (await emit(5)).map((e) => e.id);
    const left = async () => (await listSummaries(db.db, db.searchIndex, "dc_a", "", { limit: 100 })).data.map((s) => s.id).reverse();
    await deleteEvents(db.db, "dc_a", "", ids[2], ids[2]);
    expect(await left()).toEqual([ids[0], ids[1], ids[3], ids[4]]);
    await deleteEvents(db.db, "dc_a", "", ids[3], undefined);
    expect(await left()).toEqual([ids[0], ids[1]]);
    await deleteEvents(db.db, "dc_a", "", undefined, ids[0]);
    expect(await left()).toEqual([ids[1]]);
    await deleteEvents(db.db, "dc_a", "", undefined, undefined);
    expect(await left()).toEqual([]);
    expect((await listSummaries(db.db, db.searchIndex, "dc_a", "", {})).page_info.total_count).toBe(0);
  });

  it("publishes committed events to bus listeners of their emitter", async () => {
    const seen: BusEvent[] = [];
    const off = bus.subscribe("dc_a", (evs) => seen.push(...evs));
    await emit(2);
    await emit(1, "dc_other");
    off();
    await emit(1);
    expect(seen.map((e) => e.emitter_id)).toEqual(["dc_a", "dc_a"]);
  });

  it("refuses events that are not JSON", async () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(store.append([{ emitterId: "dc_a", ownerId: "u_1", channel: "", event: cyclic }])).rejects.toThrow(/JSON/);
    expect((await emit(1))[0]!.id).toBe("1700000000000-0");
  });
});
