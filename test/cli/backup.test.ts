/**
 * `headwater backup`, through the real binary: a copy taken while a real server (a child process,
 * SQLite) acknowledges writes as fast as it can, restored by starting a second server on a data
 * dir holding the copy. Everything acknowledged before the backup began must be there: users
 * created, and requests to a source endpoint (each acknowledged once its job is durably queued,
 * so the restored server runs them into events).
 */
import fs from "node:fs";
import path from "node:path";
import { SQLite as Database } from "../../shared/sqlite-native.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, pages, type Client } from "../../shared/client/index.js";
import { randomKey, spawnServer, type SpawnedServer } from "../support/server.js";
import { eventually, oneLine, runCli, tempDir } from "./helpers.js";

const ENV = { HEADWATER_EVENT_RETENTION: "100000" };

describe("headwater backup", { timeout: 240_000 }, () => {
  const adminKey = randomKey();
  let dataDir: string;
  let server: SpawnedServer;
  let admin: Client;
  let restored: SpawnedServer | undefined;
  let restoredDir: string;

  beforeAll(async () => {
    dataDir = tempDir("hw-backup-data-");
    server = await spawnServer({ dataDir, apiKey: adminKey, env: ENV });
    admin = createClient({ baseUrl: server.baseUrl, apiKey: adminKey });
  });
  afterAll(async () => {
    await restored?.stop();
    await server?.stop();
  });

  it("copies the database while the server writes; a server started on the copy has everything acknowledged before", async () => {
    const endpointOf = (s: { configured_props: Record<string, unknown> }) =>
      (s.configured_props.http as { endpoint_url: string }).endpoint_url;
    const bulk = await admin.createSource({ key: "http-new-requests", name: "bulk" });
    const load = await admin.createSource({ key: "http-new-requests", name: "load" });
    // Some megabytes first, so the copy takes long enough for commits to land beside it.
    const filler = "x".repeat(100_000);
    for (let i = 0; i < 60; i += 6) {
      await Promise.all(
        Array.from({ length: 6 }, (_, j) =>
          fetch(endpointOf(bulk), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ i: i + j, filler }) }).then((r) => {
            if (!r.ok) throw new Error(`bulk ${r.status}`);
          }),
        ),
      );
    }

    // Writers: endpoint requests (seq) and users, each with the time its acknowledgement arrived.
    const acked = { requests: new Map<number, number>(), users: new Map<string, number>() };
    let stop = false;
    let seq = 0;
    const failures: string[] = [];
    const requestWriter = async () => {
      while (!stop) {
        const n = seq++;
        const r = await fetch(endpointOf(load), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ seq: n }) });
        if (r.ok) acked.requests.set(n, Date.now());
        else failures.push(`request ${n}: ${r.status}`);
      }
    };
    const userWriter = async () => {
      while (!stop) {
        const name = `user-${seq++}`;
        try {
          await admin.createUser({ username: name });
          acked.users.set(name, Date.now());
        } catch (err) {
          failures.push(`user ${name}: ${String(err)}`);
        }
      }
    };
    // Data store increments: how many were acknowledged, and when each was.
    const store = await admin.createDataStore("backed up");
    await admin.putDataStoreRecord(store.id, "config", { value: { region: "eu" } });
    const increments: number[] = [];
    const storeWriter = async () => {
      while (!stop) {
        try {
          await admin.incrementDataStoreRecord(store.id, "count");
          increments.push(Date.now());
        } catch (err) {
          failures.push(`increment: ${String(err)}`);
        }
      }
    };
    const writers = [requestWriter(), requestWriter(), requestWriter(), userWriter(), storeWriter()];
    await eventually(() => (acked.requests.size >= 20 && acked.users.size >= 5 ? true : undefined), 30_000, "writes under way");

    const backupFile = path.join(tempDir("hw-backup-out-"), "copy.db");
    const began = Date.now();
    const r = await runCli(["backup", backupFile], { env: { HEADWATER_DATA_DIR: dataDir } });
    await new Promise((res) => setTimeout(res, 200));
    stop = true;
    await Promise.all(writers);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^backed up .*headwater\.db to .*copy\.db \(\d+\.\d (KB|MB), \d+ pages\) in \d+\.\d s\n$/);
    expect(failures).toEqual([]);
    // The writers ran across the backup: acknowledged before it began and after it (the CLI
    // starts in ~0.15 s, shorter than one acknowledged request may take on a busy machine, so
    // the window itself need not hold one).
    const after = [...acked.requests.values()].filter((t) => t > began).length;
    expect(after).toBeGreaterThan(0);
    expect(fs.readdirSync(path.dirname(backupFile))).toEqual(["copy.db"]);

    const before = {
      requests: [...acked.requests].filter(([, t]) => t < began).map(([n]) => n),
      users: [...acked.users].filter(([, t]) => t < began).map(([u]) => u),
    };
    expect(before.requests.length).toBeGreaterThan(0);
    expect(before.users.length).toBeGreaterThan(0);

    // Restore as docs/operations.md says: the copy as headwater.db of an empty data dir.
    await server.stop();
    restoredDir = tempDir("hw-backup-restored-");
    fs.copyFileSync(backupFile, path.join(restoredDir, "headwater.db"));
    restored = await spawnServer({ dataDir: restoredDir, apiKey: adminKey, env: ENV });
    const client = createClient({ baseUrl: restored.baseUrl, apiKey: adminKey });

    const usernames = new Set<string>();
    for await (const u of pages((q) => client.listUsers(q))) usernames.add(u.username);
    expect(before.users.filter((u) => !usernames.has(u))).toEqual([]);

    const sources = (await client.listMySources({ limit: 10 })).data.map((s) => s.name).sort();
    expect(sources).toEqual(["bulk", "load"]);
    // Data stores and their records are in the copy: every increment acknowledged before it began.
    expect((await client.getDataStoreRecord(store.id, "config")).value).toEqual({ region: "eu" });
    const counted = (await client.getDataStoreRecord(store.id, "count")).value as number;
    expect(counted).toBeGreaterThanOrEqual(increments.filter((t) => t < began).length);
    // Acknowledged requests are durable jobs: the restored server runs those not yet run.
    await eventually(
      async () => ((await client.listSourceEvents(bulk.id, { limit: 100 })).data.length === 60 ? true : undefined),
      60_000,
      "the 60 bulk requests as events of the restored server",
    );
    const missing = await eventually(
      async () => {
        const seen = new Set<number>();
        for await (const e of pages((q) => client.listSourceEvents(load.id, { ...q, expand: "event" }))) {
          seen.add((e.event as { body: { seq: number } }).body.seq);
        }
        const left = before.requests.filter((n) => !seen.has(n));
        return left.length === 0 ? left : undefined;
      },
      60_000,
      "every request acknowledged before the backup as an event of the restored server",
    );
    expect(missing).toEqual([]);
  });

  it("refuses to overwrite a file without --force, and replaces it with --force", async () => {
    const dir = tempDir("hw-backup-out-");
    const file = path.join(dir, "existing.db");
    fs.writeFileSync(file, "not a database");
    // The restored server is running: its database is copied while it is open.
    const env = { HEADWATER_DATA_DIR: restoredDir };
    const refused = await runCli(["backup", file], { env });
    expect(refused.code).toBe(2);
    expect(oneLine(refused.stderr)).toMatch(/existing\.db exists: choose another name, or add --force/);
    expect(fs.readFileSync(file, "utf8")).toBe("not a database");

    const forced = await runCli(["backup", file, "--force", "--json"], { env });
    expect(forced.code, forced.stderr).toBe(0);
    const out = JSON.parse(forced.stdout) as { file: string; bytes: number; pages: number };
    expect(out).toMatchObject({ file, bytes: fs.statSync(file).size });
    const copy = new Database(file, { readonly: true });
    try {
      expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
      const users = copy.prepare("select count(*) as n from users").get() as { n: number };
      expect(users.n).toBeGreaterThan(1);
      // The copy names a search index of its own: restored in place of its database, the index
      // left in the data dir is not taken for its own (the server rebuilds it).
      const live = new Database(path.join(restoredDir, "headwater.db"), { readonly: true });
      const token = (db: InstanceType<typeof Database>) => db.prepare("select token from search_link").pluck().get() as string;
      try {
        expect(token(copy)).toMatch(/^[0-9a-f]{32}$/);
        expect(token(copy)).not.toBe(token(live));
      } finally {
        live.close();
      }
    } finally {
      copy.close();
    }
    expect(fs.readdirSync(dir)).toEqual(["existing.db"]);
  });

  it("with PostgreSQL it points to pg_dump and exits 2; without a database it says where it looked", async () => {
    const dir = tempDir("hw-backup-out-");
    const pg = await runCli(["backup", path.join(dir, "copy.db")], {
      env: { HEADWATER_DATABASE_URL: "postgres://headwater:secret-password@db.internal:5432/headwater" },
    });
    expect(pg.code).toBe(2);
    const line = oneLine(pg.stderr);
    expect(line).toMatch(/PostgreSQL.*pg_dump/);
    expect(line).not.toContain("secret-password");
    expect(pg.stdout).toBe("");

    const empty = tempDir("hw-backup-empty-");
    const none = await runCli(["backup", path.join(dir, "copy.db"), "--data-dir", empty]);
    expect(none.code).toBe(2);
    expect(oneLine(none.stderr)).toContain(`no Headwater database at ${path.join(empty, "headwater.db")}`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
