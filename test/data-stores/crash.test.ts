/**
 * Increments survive kill -9 (decisions.md "Workflow triggers, environment variables and data
 * stores"): a server killed while increments are in flight has, after its restart, every
 * increment it acknowledged, and no more than those plus the ones still unanswered at the kill
 * (each of which it may or may not have done, once).
 */
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../shared/client/index.js";
import { testDatabases } from "../support/databases.js";
import { randomKey, spawnServer, tempDataDir, type SpawnedServer } from "../support/server.js";

describe.each(testDatabases())("data store increments across kill -9 on $name", (db) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it("keeps every acknowledged increment and doubles none", { timeout: 120_000 }, async () => {
    const fresh = await db.create();
    cleanups.push(() => fresh.drop());
    const dataDir = tempDataDir();
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const apiKey = randomKey();
    const start = () =>
      spawnServer({ dataDir, databaseUrl: fresh.databaseUrl, apiKey, detached: true, timeoutMs: 30_000 });
    let server: SpawnedServer = await start();
    cleanups.push(() => server.killGroup());
    const client = createClient({ baseUrl: server.baseUrl, apiKey, timeoutMs: 10_000 });
    const store = await client.createDataStore("crash");

    let acknowledged = 0;
    let failed = 0;
    // 8 callers, each sending its next increment once the last one was answered, until one fails
    // (the kill): that one may or may not have been done.
    const caller = async () => {
      for (;;) {
        try {
          await client.incrementDataStoreRecord(store.id, "count");
          acknowledged++;
        } catch {
          failed++;
          return;
        }
      }
    };
    const callers = Array.from({ length: 8 }, caller);
    while (acknowledged < 300) await new Promise((r) => setTimeout(r, 5));
    await server.killGroup();
    await Promise.all(callers);
    expect(failed).toBe(8);

    server = await start();
    const after = createClient({ baseUrl: server.baseUrl, apiKey });
    const value = (await after.getDataStoreRecord(store.id, "count")).value as number;
    expect(value).toBeGreaterThanOrEqual(acknowledged);
    expect(value).toBeLessThanOrEqual(acknowledged + failed);
    // Increments go on from there, one each.
    expect((await after.incrementDataStoreRecord(store.id, "count")).value).toBe(value + 1);
  });
});
