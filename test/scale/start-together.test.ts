/**
 * Instances started at the same moment on one fresh PostgreSQL database: migrations, the
 * bootstrap admin and the built-in components are made once, and both instances serve them.
 */
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { createServer, type Server } from "../../server/app.js";
import { loadConfig } from "../../server/config.js";
import { createClient } from "../../shared/client/index.js";
import { databaseEnv, type FreshDatabase } from "../support/databases.js";
import { randomKey, tempDataDir } from "../support/server.js";
import { postgresForScale } from "./cluster.js";

const pgDb = postgresForScale();

// Skipped (with the notice printed by postgresForScale) when HEADWATER_TEST_DATABASE_URL is unset.
describe.skipIf(!pgDb)("instances starting together on one PostgreSQL database", () => {
  let fresh: FreshDatabase | undefined;
  const servers: Server[] = [];
  const dirs: string[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
    await fresh?.drop();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("seed the admin and the built-ins once; both answer with them", { timeout: 90_000 }, async () => {
    fresh = await pgDb!.create();
    const apiKey = randomKey();
    const start = () => {
      const dataDir = tempDataDir();
      dirs.push(dataDir);
      return createServer(
        loadConfig({
          HEADWATER_HOST: "127.0.0.1",
          HEADWATER_PORT: "0",
          HEADWATER_DATA_DIR: dataDir,
          HEADWATER_API_KEY: apiKey,
          ...databaseEnv(fresh!.databaseUrl!),
          HEADWATER_LOG_LEVEL: "silent",
        }),
      );
    };
    const started = await Promise.allSettled([start(), start()]);
    for (const r of started) if (r.status === "fulfilled") servers.push(r.value);
    expect(started.map((r) => (r.status === "rejected" ? String(r.reason) : "ok"))).toEqual(["ok", "ok"]);

    const clients = servers.map((s) => createClient({ baseUrl: `${s.url}/v1`, apiKey }));
    const admins = await Promise.all(clients.map((c) => c.getMe()));
    expect(admins[0]!.id).toBe(admins[1]!.id);
    const users = await clients[0]!.listUsers({ limit: 100 });
    expect(users.data.filter((u) => u.username === "admin")).toHaveLength(1);
    // The built-in schedule is in the registry once, whichever instance is asked.
    const made = await Promise.all(clients.map((c) => c.createSource({ key: "schedule", configured_props: { timer: { intervalSeconds: 3600 } } })));
    expect(made[0]!.component_id).toBe(made[1]!.component_id);
  });
});
