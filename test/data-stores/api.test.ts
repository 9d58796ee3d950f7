/**
 * Data stores over the API (decisions.md "Workflow triggers, environment variables and data
 * stores"), on SQLite and PostgreSQL: stores created, listed a page at a time, renamed and
 * deleted; records put, read, listed in key order by prefix and cursor, incremented and deleted;
 * every bad input a 400 with details that changes nothing; another user's store and records 404;
 * expired records absent at once and swept later; the key limit; 409 while a source names a store.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DATA_STORE_LIMITS } from "../../shared/resources/index.js";
import { sweepExpired } from "../../server/data-stores/sweep.js";
import { DataStoreRecordsRepo } from "../../server/store/repos/data-store-records.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(testDatabases())("data stores on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db, env: { HEADWATER_DATA_STORE_MAX_KEYS: "6" } });
    alice = await srv.newUser();
    bob = await srv.newUser();
  }, 60_000);
  afterAll(() => srv?.stop());

  it("creates, lists a page at a time, renames and deletes stores, with their keys and size", async () => {
    const made = await alice.client.createDataStore("counters");
    expect(made).toEqual({
      id: expect.stringMatching(/^ds_[A-Za-z0-9]{20}$/),
      name: "counters",
      keys: 0,
      bytes: 0,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    const second = await alice.client.createDataStore("cache");
    await alice.client.putDataStoreRecord(made.id, "hits", { value: 12 });
    expect(await alice.client.getDataStore(made.id)).toMatchObject({
      keys: 1,
      bytes: "hits".length + "12".length,
    });

    const first = await alice.client.listMyDataStores({ limit: 1 });
    expect(first.page_info).toMatchObject({ total_count: 2, count: 1 });
    expect(first.data.map((s) => s.id)).toEqual([second.id]);
    const next = await alice.client.listMyDataStores({ limit: 1, after: first.page_info.end_cursor! });
    expect(next.data.map((s) => s.id)).toEqual([made.id]);

    expect(await alice.client.renameDataStore(made.id, "hit counters")).toMatchObject({
      id: made.id,
      name: "hit counters",
      keys: 1,
    });
    await alice.client.deleteDataStore(second.id);
    await expectApiError(alice.client.getDataStore(second.id), 404, "not_found");
    expect((await alice.client.listMyDataStores()).data.map((s) => s.name)).toEqual(["hit counters"]);
    await alice.client.deleteDataStore(made.id);
    // Its records went with it: a store made later starts empty.
    expect((await alice.client.listMyDataStores()).data).toEqual([]);
  });

  it("puts, reads, increments and deletes records by URL-encoded key", async () => {
    const s = await alice.client.createDataStore("records");
    const keys = [
      "plain",
      "with/slash",
      "spaces and ünïcødé",
      "?#&%",
      "a".repeat(DATA_STORE_LIMITS.keyBytes),
    ];
    for (const [i, key] of keys.entries()) {
      const put = await alice.client.putDataStoreRecord(s.id, key, { value: { n: i, key } });
      expect(put).toEqual({ key, value: { n: i, key }, expires_at_ms: null });
      expect(await alice.client.getDataStoreRecord(s.id, key)).toEqual(put);
    }
    // Any JSON: null, arrays, strings, numbers.
    for (const value of [null, [1, "two"], "text", 3.5, false]) {
      await alice.client.putDataStoreRecord(s.id, "plain", { value });
      expect((await alice.client.getDataStoreRecord(s.id, "plain")).value).toEqual(value);
    }
    expect(await alice.client.incrementDataStoreRecord(s.id, "count")).toEqual({
      key: "count",
      value: 1,
      expires_at_ms: null,
    });
    expect((await alice.client.incrementDataStoreRecord(s.id, "count", 41)).value).toBe(42);
    expect((await alice.client.incrementDataStoreRecord(s.id, "count", -2.5)).value).toBe(39.5);
    const notNumber = await expectApiError(
      alice.client.incrementDataStoreRecord(s.id, "with/slash"),
      400,
      "validation_failed",
    );
    expect(notNumber.message).toContain("not a number");
    expect((await alice.client.getDataStoreRecord(s.id, "with/slash")).value).toEqual({
      n: 1,
      key: "with/slash",
    });

    await alice.client.deleteDataStoreRecord(s.id, "with/slash");
    await expectApiError(alice.client.getDataStoreRecord(s.id, "with/slash"), 404, "not_found");
    await expectApiError(alice.client.deleteDataStoreRecord(s.id, "with/slash"), 404, "not_found");
  });

  it("lists records in ascending key order, by prefix, a page at a time both ways", async () => {
    const s = await alice.client.createDataStore("paged");
    for (const key of ["user:3", "user:1", "order:1", "user:2", "user:10"])
      await alice.client.putDataStoreRecord(s.id, key, { value: key.length });
    const all = await alice.client.listDataStoreRecords(s.id, { limit: 100 });
    expect(all.data.map((r) => r.key)).toEqual(["order:1", "user:1", "user:10", "user:2", "user:3"]);
    expect(all.page_info).toMatchObject({ total_count: 5, count: 5 });

    const p1 = await alice.client.listDataStoreRecords(s.id, { prefix: "user:", limit: 2 });
    expect(p1.data.map((r) => r.key)).toEqual(["user:1", "user:10"]);
    expect(p1.page_info.total_count).toBe(4);
    const p2 = await alice.client.listDataStoreRecords(s.id, {
      prefix: "user:",
      limit: 2,
      after: p1.page_info.end_cursor!,
    });
    expect(p2.data.map((r) => r.key)).toEqual(["user:2", "user:3"]);
    const p3 = await alice.client.listDataStoreRecords(s.id, {
      prefix: "user:",
      limit: 2,
      after: p2.page_info.end_cursor!,
    });
    expect(p3.data).toEqual([]);
    const back = await alice.client.listDataStoreRecords(s.id, {
      prefix: "user:",
      limit: 2,
      before: p2.page_info.start_cursor!,
    });
    expect(back.data.map((r) => r.key)).toEqual(["user:1", "user:10"]);
    expect((await alice.client.listDataStoreRecords(s.id, { prefix: "nothing" })).data).toEqual([]);
    // A prefix is not a pattern.
    expect((await alice.client.listDataStoreRecords(s.id, { prefix: "%" })).data).toEqual([]);
    expect((await alice.client.listDataStoreRecords(s.id, { prefix: "user_" })).data).toEqual([]);
    await expectApiError(
      alice.client.listDataStoreRecords(s.id, { after: "not-a-cursor" }),
      400,
      "bad_cursor",
    );
  });

  it("refuses bad input with details, changing nothing", async () => {
    const s = await alice.client.createDataStore("strict");
    await alice.client.putDataStoreRecord(s.id, "keep", { value: "before" });
    const raw = (method: string, path: string, body?: unknown) =>
      alice.client.raw(method, path, body === undefined ? {} : { body });
    const rec = (key: string) => `/data_stores/${s.id}/records/${encodeURIComponent(key)}`;
    const refusals: Array<[string, string, unknown]> = [
      ["POST", "/data_stores", {}],
      ["POST", "/data_stores", { name: "" }],
      ["POST", "/data_stores", { name: "   " }],
      ["POST", "/data_stores", { name: "x".repeat(201) }],
      ["POST", "/data_stores", { name: 5 }],
      ["POST", "/data_stores", { name: "ok", extra: 1 }],
      ["PATCH", `/data_stores/${s.id}`, { name: "" }],
      ["PUT", rec("keep"), {}],
      ["PUT", rec("keep"), { value: "x".repeat(DATA_STORE_LIMITS.valueBytes) }],
      // Bytes, not characters.
      ["PUT", rec("keep"), { value: "€".repeat(22_000) }],
      ["PUT", rec("keep"), { value: 1, ttl_seconds: 0 }],
      ["PUT", rec("keep"), { value: 1, ttl_seconds: 1.5 }],
      ["PUT", rec("keep"), { value: 1, ttl_seconds: "60" }],
      ["PUT", rec("keep"), { value: 1, other: true }],
      ["PUT", rec("k".repeat(DATA_STORE_LIMITS.keyBytes + 1)), { value: 1 }],
      ["PUT", rec("é".repeat(129)), { value: 1 }],
      ["POST", `${rec("keep")}/increment`, { by: "1" }],
      ["POST", `${rec("n")}/increment`, { by: null }],
      ["GET", `/data_stores/${s.id}/records?limit=0`, undefined],
      ["GET", `/data_stores/${s.id}/records?prefix=${"p".repeat(300)}`, undefined],
    ];
    for (const [method, path, body] of refusals) {
      const err = await expectApiError(raw(method, path, body), 400);
      expect(
        err.details?.length,
        `${method} ${path.slice(0, 80)} ${JSON.stringify(body)?.slice(0, 60)}`,
      ).toBeGreaterThan(0);
    }
    expect((await alice.client.listDataStoreRecords(s.id)).data).toEqual([
      { key: "keep", value: "before", expires_at_ms: null },
    ]);
    expect((await alice.client.getDataStore(s.id)).name).toBe("strict");
    expect((await alice.client.listMyDataStores({ limit: 100 })).data.some((d) => d.name === "ok")).toBe(
      false,
    );
    // Exactly 64 KB of JSON is taken (the quotes count).
    await alice.client.putDataStoreRecord(s.id, "big", {
      value: "y".repeat(DATA_STORE_LIMITS.valueBytes - 2),
    });
  });

  it("holds at most HEADWATER_DATA_STORE_MAX_KEYS keys, also when they come at once; a replacement is not refused", async () => {
    const s = await alice.client.createDataStore("bounded");
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        i % 2 === 0
          ? alice.client.putDataStoreRecord(s.id, `k${i}`, { value: i })
          : alice.client.incrementDataStoreRecord(s.id, `k${i}`),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(6);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toMatchObject({ status: 400, code: "validation_failed" });
    expect(String(refused.reason.message)).toContain("at most 6 keys");
    const listed = await alice.client.listDataStoreRecords(s.id, { limit: 100 });
    expect(listed.data).toHaveLength(6);
    const one = listed.data[0]!.key;
    await alice.client.putDataStoreRecord(s.id, one, { value: "replaced" });
    await expectApiError(
      alice.client.putDataStoreRecord(s.id, "seventh", { value: 1 }),
      400,
      "validation_failed",
    );
    await expectApiError(alice.client.incrementDataStoreRecord(s.id, "seventh"), 400, "validation_failed");
    // A deleted key makes room.
    await alice.client.deleteDataStoreRecord(s.id, one);
    await alice.client.putDataStoreRecord(s.id, "seventh", { value: 1 });
    expect((await alice.client.getDataStore(s.id)).keys).toBe(6);
  });

  it("reads an expired record as absent at once, and sweeps it later", async () => {
    const s = await alice.client.createDataStore("ttl");
    const put = await alice.client.putDataStoreRecord(s.id, "short", { value: "soon gone", ttl_seconds: 1 });
    expect(put.expires_at_ms).toBeGreaterThan(Date.now());
    expect(put.expires_at_ms).toBeLessThanOrEqual(Date.now() + 1000);
    await alice.client.putDataStoreRecord(s.id, "long", { value: "stays", ttl_seconds: 3600 });
    await alice.client.putDataStoreRecord(s.id, "counter", { value: 5, ttl_seconds: 1 });
    expect((await alice.client.getDataStore(s.id)).keys).toBe(3);
    await sleep(1100);
    await expectApiError(alice.client.getDataStoreRecord(s.id, "short"), 404, "not_found");
    expect((await alice.client.listDataStoreRecords(s.id)).data.map((r) => r.key)).toEqual(["long"]);
    expect((await alice.client.getDataStore(s.id)).keys).toBe(1);
    await expectApiError(alice.client.deleteDataStoreRecord(s.id, "short"), 404, "not_found");
    // An expired number counts from 0 again, without the old TTL.
    expect(await alice.client.incrementDataStoreRecord(s.id, "counter")).toEqual({
      key: "counter",
      value: 1,
      expires_at_ms: null,
    });

    await alice.client.putDataStoreRecord(s.id, "gone", { value: 1, ttl_seconds: 1 });
    await sleep(1100);
    const records = new DataStoreRecordsRepo(srv.server.store.db, srv.server.store.dialect);
    expect(await sweepExpired(records)).toBeGreaterThanOrEqual(1);
    const left = await srv.server.store.db
      .selectFrom("data_store_records")
      .select("key")
      .where("store_id", "=", s.id)
      .orderBy("key")
      .execute();
    expect(left.map((r) => r.key)).toEqual(["counter", "long"]);
  });

  it("answers 404 for another user's store and records, and lists none of them", async () => {
    const s = await alice.client.createDataStore("private");
    await alice.client.putDataStoreRecord(s.id, "secret", { value: "alice's" });
    expect((await bob.client.listMyDataStores()).data).toEqual([]);
    const attempts: Array<() => Promise<unknown>> = [
      () => bob.client.getDataStore(s.id),
      () => bob.client.renameDataStore(s.id, "mine"),
      () => bob.client.deleteDataStore(s.id),
      () => bob.client.listDataStoreRecords(s.id),
      () => bob.client.getDataStoreRecord(s.id, "secret"),
      () => bob.client.putDataStoreRecord(s.id, "secret", { value: "bob's" }),
      () => bob.client.deleteDataStoreRecord(s.id, "secret"),
      () => bob.client.incrementDataStoreRecord(s.id, "n"),
      () => bob.client.getDataStore("ds_doesnotexist0000000"),
    ];
    for (const attempt of attempts) await expectApiError(attempt(), 404, "not_found");
    expect((await alice.client.listDataStoreRecords(s.id)).data).toEqual([
      { key: "secret", value: "alice's", expires_at_ms: null },
    ]);
    expect((await alice.client.getDataStore(s.id)).name).toBe("private");
  });

  it("deletes a user's stores and their records with the user", async () => {
    const carol = await srv.newUser();
    const s = await carol.client.createDataStore("carol's");
    await carol.client.putDataStoreRecord(s.id, "k", { value: 1 });
    await srv.admin.deleteUser(carol.user.id);
    const db = srv.server.store.db;
    expect(await db.selectFrom("data_stores").select("id").where("id", "=", s.id).execute()).toEqual([]);
    expect(
      await db.selectFrom("data_store_records").select("key").where("store_id", "=", s.id).execute(),
    ).toEqual([]);
  });

  it("refuses to delete a store a source names (409 data_store_in_use), and a source naming another user's store", async () => {
    const s = await alice.client.createDataStore("used");
    const code = `export default { name: "uses a store", version: "0.0.1", props: { http: "$.interface.http", store: { type: "data_store" } }, async run() {} };`;
    const source = await alice.client.createSource({
      component_code: code,
      name: "store-user",
      configured_props: { store: s.id },
    });
    const err = await expectApiError(alice.client.deleteDataStore(s.id), 409, "data_store_in_use");
    expect(err.message).toContain("store-user");
    expect(err.details).toEqual([
      { path: `used_by.${source.id}`, message: expect.stringContaining("store-user") },
    ]);
    expect((await alice.client.getDataStore(s.id)).id).toBe(s.id);
    const refused = await expectApiError(
      bob.client.createSource({ component_code: code, configured_props: { store: s.id } }),
      400,
      "validation_failed",
    );
    expect(refused.details).toEqual([
      { path: "configured_props.store", message: expect.stringContaining(s.id) },
    ]);
    await alice.client.deleteSource(source.id);
    await alice.client.deleteDataStore(s.id);
  });
});
