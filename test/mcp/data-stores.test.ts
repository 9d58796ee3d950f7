/**
 * The data store tools over /mcp and stdio (decisions.md "Workflow triggers, environment variables
 * and data stores"): create and list stores; set, get, list by prefix, increment and delete
 * records; another user's store is not found; bad input is refused and changes nothing.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { call, connect, refused, type Connected, type Via } from "./helpers.js";

interface StoreOut {
  id: string;
  name: string;
  keys: number;
}
interface RecordOut {
  key: string;
  value: unknown;
  expires_at_ms: number | null;
}

describe.each<Via>(["http", "stdio"])("data stores over MCP (%s)", (via) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let conn: Connected;
  let c: Client;

  beforeAll(async () => {
    s = await startServer();
    alice = await s.newUser();
    bob = await s.newUser();
    conn = await connect(via, s, alice.key, "2026-07-28");
    c = conn.client;
  }, 60_000);
  afterAll(async () => {
    await conn?.close();
    await s?.stop();
  });

  it("creates and lists stores; sets, gets, lists by prefix, increments and deletes records", async () => {
    const { data_store: store } = await call<{ data_store: StoreOut }>(c, "create_data_store", {
      name: "agent notes",
    });
    expect(store).toMatchObject({ id: expect.stringMatching(/^ds_/), name: "agent notes", keys: 0 });

    const set = await call<{ record: RecordOut }>(c, "set_record", {
      store_id: store.id,
      key: "seen:1",
      value: { ok: true },
    });
    expect(set.record).toEqual({ key: "seen:1", value: { ok: true }, expires_at_ms: null });
    const ttl = await call<{ record: RecordOut }>(c, "set_record", {
      store_id: store.id,
      key: "seen:2",
      value: "x",
      ttl_seconds: 600,
    });
    expect(ttl.record.expires_at_ms).toBeGreaterThan(Date.now());
    await call(c, "set_record", { store_id: store.id, key: "other", value: 1 });

    expect(
      (await call<{ record: RecordOut }>(c, "get_record", { store_id: store.id, key: "seen:1" })).record
        .value,
    ).toEqual({ ok: true });
    const page1 = await call<{ records: RecordOut[]; next_cursor: string | null; total_count: number }>(
      c,
      "list_records",
      {
        store_id: store.id,
        prefix: "seen:",
        limit: 1,
      },
    );
    expect([page1.records.map((r) => r.key), page1.total_count]).toEqual([["seen:1"], 2]);
    const page2 = await call<{ records: RecordOut[]; next_cursor: string | null }>(c, "list_records", {
      store_id: store.id,
      prefix: "seen:",
      limit: 1,
      cursor: page1.next_cursor!,
    });
    expect(page2.records.map((r) => r.key)).toEqual(["seen:2"]);

    expect(
      (await call<{ record: RecordOut }>(c, "increment_record", { store_id: store.id, key: "count" })).record
        .value,
    ).toBe(1);
    expect(
      (await call<{ record: RecordOut }>(c, "increment_record", { store_id: store.id, key: "count", by: 9 }))
        .record.value,
    ).toBe(10);
    expect(await call(c, "delete_record", { store_id: store.id, key: "other" })).toEqual({
      deleted: true,
      key: "other",
    });
    expect((await refused(c, "get_record", { store_id: store.id, key: "other" })).code).toBe("not_found");

    const listed = await call<{ data_stores: StoreOut[]; total_count: number }>(c, "list_data_stores");
    expect(listed.data_stores.map((d) => [d.name, d.keys])).toEqual([["agent notes", 3]]);
  });

  it("another user's store is not found; bad input is refused and changes nothing", async () => {
    const theirs = await bob.client.createDataStore("bob's");
    await bob.client.putDataStoreRecord(theirs.id, "k", { value: "bob" });
    for (const [name, args] of [
      ["get_record", { store_id: theirs.id, key: "k" }],
      ["set_record", { store_id: theirs.id, key: "k", value: "alice" }],
      ["increment_record", { store_id: theirs.id, key: "n" }],
      ["list_records", { store_id: theirs.id }],
      ["delete_record", { store_id: theirs.id, key: "k" }],
    ] as const) {
      expect((await refused(c, name, args)).code, name).toBe("not_found");
    }
    expect((await bob.client.getDataStoreRecord(theirs.id, "k")).value).toBe("bob");

    const { data_store: mine } = await call<{ data_store: StoreOut }>(c, "create_data_store", {
      name: "strict",
    });
    expect((await refused(c, "set_record", { store_id: mine.id, key: "k".repeat(257), value: 1 })).code).toBe(
      "invalid_input",
    );
    expect(
      (await refused(c, "set_record", { store_id: mine.id, key: "k", value: "x".repeat(70_000) })).code,
    ).toBe("invalid_input");
    await call(c, "set_record", { store_id: mine.id, key: "text", value: "abc" });
    const notNumber = await refused(c, "increment_record", { store_id: mine.id, key: "text" });
    expect(notNumber.error).toContain("not a number");
    expect((await alice.client.listDataStoreRecords(mine.id)).data).toEqual([
      { key: "text", value: "abc", expires_at_ms: null },
    ]);
  });
});
