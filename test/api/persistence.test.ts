/**
 * Restart persistence and clean shutdown, with the server as a child process (`server/main.ts`):
 * stop it, start it again on the same data dir (or PostgreSQL database), everything is there.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../shared/client/index.js";
import { testDatabases, type FreshDatabase } from "../support/databases.js";
import { timerComponent, uniqueKey } from "../support/fixtures.js";
import { randomKey, spawnServer, tempDataDir, type SpawnedServer } from "../support/server.js";

describe.each(testDatabases())("persistence on $name", (db) => {
  let fresh: FreshDatabase;
  let dataDir: string;
  const adminKey = randomKey();
  const running: SpawnedServer[] = [];

  beforeAll(async () => {
    fresh = await db.create();
    dataDir = tempDataDir();
  });
  afterAll(async () => {
    for (const p of running) await p.stop("SIGKILL");
    await fresh?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () => {
    const p = await spawnServer({ dataDir, databaseUrl: fresh.databaseUrl, apiKey: adminKey });
    running.push(p);
    return p;
  };

  it("keeps users, keys, components and sources across SIGTERM and restart", async () => {
    const first = await start();
    expect(first.output()).toMatch(/listening on http:\/\/127\.0\.0\.1:\d+/);
    const admin = createClient({ baseUrl: first.baseUrl, apiKey: adminKey });
    const user = await admin.createUser({ username: "persisted" });
    const usersBefore = (await admin.listUsers()).page_info.total_count;
    const client = createClient({ baseUrl: first.baseUrl, apiKey: user.api_key! });
    const key = uniqueKey();
    const component = await client.createComponent({ component_code: timerComponent(key) });
    await client.publishComponent(component.id);
    const source = await client.createSource({
      component_id: component.id,
      configured_props: { timer: { intervalSeconds: 120 } },
    });
    const off = await client.updateSource(source.id, { component_id: component.id, active: false });

    expect(await first.stop("SIGTERM")).toBe(0);

    const second = await start();
    const again = createClient({ baseUrl: second.baseUrl, apiKey: user.api_key! });
    expect((await again.getMe()).id).toBe(user.id);
    expect(await again.getComponent(component.id)).toMatchObject({
      id: component.id,
      key,
      published: true,
      code_hash: component.code_hash,
    });
    expect(await again.getSource(source.id)).toEqual(off);
    expect((await again.listMySources()).data.map((s) => s.id)).toEqual([source.id]);
    const admin2 = createClient({ baseUrl: second.baseUrl, apiKey: adminKey });
    expect((await admin2.getRegistryComponent(key)).id).toBe(component.id);
    expect((await admin2.listUsers()).page_info.total_count).toBe(usersBefore);
    expect(await second.stop("SIGTERM")).toBe(0);
  });

  it("keeps every acknowledged write across kill -9", async () => {
    const first = await start();
    const admin = createClient({ baseUrl: first.baseUrl, apiKey: adminKey });
    const component = await admin.createComponent({ component_code: timerComponent() });
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await admin.createSource({ component_id: component.id, name: `crash-${i}` })).id);
    const newUser = await admin.createUser({ username: "crash-user" });
    await first.stop("SIGKILL");

    const second = await start();
    const again = createClient({ baseUrl: second.baseUrl, apiKey: adminKey });
    const listed = (await again.listMySources({ limit: 100 })).data.map((x) => x.id);
    expect(listed).toEqual(expect.arrayContaining(made));
    const user = createClient({ baseUrl: second.baseUrl, apiKey: newUser.api_key! });
    expect((await user.getMe()).username).toBe("crash-user");
    expect(await second.stop("SIGTERM")).toBe(0);
  });

  it("lets an in-flight request finish on SIGTERM, then exits 0", async () => {
    const p = await start();
    const admin = createClient({ baseUrl: p.baseUrl, apiKey: adminKey });
    // Loading this component takes the sandbox's full time limit: the request is in flight.
    const slow = admin
      .createComponent({ component_code: "while (true) {}\nmodule.exports = { async run() {} };" })
      .then(
        () => "ok",
        (e: { status: number; code: string }) => `${e.status} ${e.code}`,
      );
    await new Promise((r) => setTimeout(r, 500));
    const exited = p.stop("SIGTERM");
    expect(await slow).toBe("400 component_timeout");
    expect(await exited).toBe(0);
  });
});
