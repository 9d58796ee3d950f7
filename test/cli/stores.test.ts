/**
 * `headwater stores ...` through the real binary against a real server: create and list stores;
 * set a record from an argument or stdin, with a TTL; get and list keys by prefix, by the store's
 * id or name; delete a record and a store; bad JSON, keys and TTLs are usage errors (exit 2) that
 * change nothing; a missing key or store, a name held by two stores, exit 1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { flags, ndjson, runCli } from "./helpers.js";

describe("headwater stores", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  const hw = (input: string | undefined, ...args: string[]) =>
    runCli([...flags(server.baseUrl, user.key), ...args], input === undefined ? {} : { input });

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("creates and lists stores; sets, gets, lists and deletes records by the store's name or id", async () => {
    const made = await hw(undefined, "stores", "create", "cache");
    expect(made.code, made.stderr).toBe(0);
    const id = /created\s+(ds_\w+)/.exec(made.stdout)![1]!;

    expect((await hw(undefined, "stores", "set", "cache", "user:1", '{"name":"Ada"}')).code).toBe(0);
    const ttl = await hw(undefined, "stores", "set", id, "user:2", '"Grace"', "--ttl", "3600");
    expect(ttl.code, ttl.stderr).toBe(0);
    expect(ttl.stdout).toMatch(/expires\s+20\d\d-/);
    const piped = await hw("[1, 2, 3]\n", "stores", "set", "cache", "list", "-");
    expect(piped.code, piped.stderr).toBe(0);
    expect((await user.client.getDataStoreRecord(id, "list")).value).toEqual([1, 2, 3]);
    expect((await user.client.getDataStoreRecord(id, "user:2")).expires_at_ms).toBeGreaterThan(Date.now());

    const got = await hw(undefined, "stores", "get", "cache", "user:1");
    expect(got.code, got.stderr).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual({ name: "Ada" });

    const keys = await hw(undefined, "--json", "stores", "keys", "cache", "--prefix", "user:");
    expect(keys.code, keys.stderr).toBe(0);
    expect(ndjson(keys.stdout)).toEqual([
      { key: "user:1", value: { name: "Ada" }, expires_at_ms: null },
      { key: "user:2", value: "Grace", expires_at_ms: expect.any(Number) },
    ]);
    const table = await hw(undefined, "stores", "list");
    expect(table.stdout).toMatch(new RegExp(`${id}\\s+cache\\s+3\\s`));

    expect((await hw(undefined, "stores", "delete", "cache", "user:1")).code).toBe(0);
    const missing = await hw(undefined, "stores", "get", "cache", "user:1");
    expect([missing.code, missing.stderr]).toEqual([1, expect.stringContaining('no key "user:1" in cache')]);
    const gone = await hw(undefined, "stores", "delete", id);
    expect(gone.code, gone.stderr).toBe(0);
    expect((await user.client.listMyDataStores()).data).toEqual([]);
  });

  it("refuses bad JSON, keys and TTLs as usage errors, changing nothing; unknown or ambiguous stores exit 1", async () => {
    const s = await user.client.createDataStore("strict");
    for (const args of [
      ["stores", "set", "strict", "k", "not json"],
      ["stores", "set", "strict", "k", "1", "--ttl", "0"],
      ["stores", "set", "strict", "k", "1", "--ttl", "soon"],
      ["stores", "set", "strict", "k".repeat(257), "1"],
      ["stores", "get", "strict", ""],
    ]) {
      const r = await hw(undefined, ...args);
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2);
    }
    expect((await user.client.listDataStoreRecords(s.id)).data).toEqual([]);
    const unknown = await hw(undefined, "stores", "keys", "nope");
    expect([unknown.code, unknown.stderr]).toEqual([
      1,
      expect.stringContaining('no data store named "nope"'),
    ]);
    await user.client.createDataStore("strict");
    const twice = await hw(undefined, "stores", "keys", "strict");
    expect([twice.code, twice.stderr]).toEqual([1, expect.stringContaining("2 data stores are named")]);
    // Another user's store id is not found either.
    const other = await server.newUser();
    const theirs = await other.client.createDataStore("theirs");
    const r = await hw(undefined, "stores", "keys", theirs.id);
    expect(r.code).toBe(1);
  });
});
