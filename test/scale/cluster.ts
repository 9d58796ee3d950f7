/**
 * Several server processes on one fresh PostgreSQL database, as a load balancer would see them:
 * same HEADWATER_DATABASE_URL and admin key, each its own port and data dir.
 */
import fs from "node:fs";
import { createClient, pages, type Client } from "../../shared/client/index.js";
import type { EventSummary } from "../../shared/resources/index.js";
import { testDatabases, type FreshDatabase } from "../support/databases.js";
import { randomKey, spawnServer, tempDataDir, type SpawnedServer } from "../support/server.js";

/** The PostgreSQL test database, or undefined (with a printed notice) when it is not configured. */
export function postgresForScale(): ReturnType<typeof testDatabases>[number] | undefined {
  const pg = testDatabases().find((d) => d.name === "postgres");
  if (!pg) console.warn("HEADWATER_TEST_DATABASE_URL is not set: the multi-instance (scale) tests are skipped.");
  return pg;
}

export interface Instance {
  name: string;
  server: SpawnedServer;
  client: Client;
  dataDir: string;
}

export interface Cluster {
  apiKey: string;
  databaseUrl: string;
  instances: Instance[];
  /** Starts one more instance on the same database. */
  add(name: string): Promise<Instance>;
  stop(): Promise<void>;
}

export async function startCluster(names: string[], env: Record<string, string> = {}): Promise<Cluster> {
  const db = postgresForScale();
  if (!db) throw new Error("PostgreSQL is not configured");
  const fresh: FreshDatabase = await db.create();
  const apiKey = randomKey();
  const instances: Instance[] = [];
  const add = async (name: string): Promise<Instance> => {
    const dataDir = tempDataDir();
    const server = await spawnServer({ dataDir, databaseUrl: fresh.databaseUrl, apiKey, env, timeoutMs: 60_000 });
    const inst = { name, server, dataDir, client: createClient({ baseUrl: server.baseUrl, apiKey }) };
    instances.push(inst);
    return inst;
  };
  try {
    // One after the other: on a loaded 2-core machine, two cold starts at once can push the
    // first start's built-in component loading past its time limit. (Starting together on one
    // database is safe: migrations and seeding take locks.)
    for (const name of names) await add(name);
  } catch (err) {
    await Promise.all(instances.map((i) => i.server.stop("SIGKILL")));
    await fresh.drop();
    throw err;
  }
  return {
    apiKey,
    databaseUrl: fresh.databaseUrl!,
    instances,
    add,
    async stop() {
      await Promise.all(instances.map((i) => i.server.stop("SIGKILL")));
      await fresh.drop();
      for (const i of instances) fs.rmSync(i.dataDir, { recursive: true, force: true });
    },
  };
}

/** Every retained event of a source's channel, oldest first. */
export async function allEvents(client: Client, sourceId: string, channel = ""): Promise<EventSummary[]> {
  const out: EventSummary[] = [];
  for await (const e of pages((q) => client.listSourceEvents(sourceId, { ...q, event_name: channel, expand: "event" }))) {
    out.push(e);
  }
  return out.reverse();
}

/** Polls until `predicate` holds for the source's events; fails with what it saw. */
export async function waitForEventsWhere(
  client: Client,
  sourceId: string,
  predicate: (events: EventSummary[]) => boolean,
  withinMs: number,
  what: string,
): Promise<EventSummary[]> {
  const deadline = Date.now() + withinMs;
  let seen: EventSummary[] = [];
  while (Date.now() < deadline) {
    seen = await allEvents(client, sourceId);
    if (predicate(seen)) return seen;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not seen within ${withinMs} ms; ${seen.length} events: ${JSON.stringify(seen.map((e) => e.event)).slice(0, 1500)}`);
}

/** Compares event ids (`<ms>-<seq>`) numerically. */
export function compareEventIds(a: string, b: string): number {
  const [am, as] = a.split("-").map(Number) as [number, number];
  const [bm, bs] = b.split("-").map(Number) as [number, number];
  return am - bm || as - bs;
}
