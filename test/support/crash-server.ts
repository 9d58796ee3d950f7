/**
 * A server that a test kills with kill -9 (its whole process group: workers too) and starts
 * again on the same data: a fresh database of `db` and a data directory of its own, both removed
 * with the server by the test's cleanups.
 */
import fs from "node:fs";
import { createClient, type Client } from "../../shared/client/index.js";
import type { TestDatabase } from "./databases.js";
import { randomKey, spawnServer, tempDataDir, type SpawnedServer } from "./server.js";

export interface CrashableServer {
  server: SpawnedServer;
  client: Client;
  /** Starts the server again on the same data (after the test killed it); its new server and client. */
  restart(): Promise<{ server: SpawnedServer; client: Client }>;
}

export async function crashableServer(
  db: TestDatabase,
  cleanups: Array<() => Promise<unknown>>,
): Promise<CrashableServer> {
  const fresh = await db.create();
  cleanups.push(() => fresh.drop());
  const dataDir = tempDataDir();
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const apiKey = randomKey();
  const start = async () => {
    const server = await spawnServer({
      dataDir,
      databaseUrl: fresh.databaseUrl,
      apiKey,
      detached: true,
      timeoutMs: 30_000,
    });
    return { server, client: createClient({ baseUrl: server.baseUrl, apiKey }) };
  };
  const crash: CrashableServer = {
    ...(await start()),
    restart: async () => Object.assign(crash, await start()),
  };
  // Whichever server runs at the end is the one to kill.
  cleanups.push(() => crash.server.killGroup());
  return crash;
}
