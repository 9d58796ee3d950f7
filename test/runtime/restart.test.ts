/**
 * A source survives a server restart with its db and schedule, and acknowledged requests that
 * were still queued run after a restart, even after kill -9.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createClient } from "../../shared/client/index.js";
import { randomKey, spawnServer, tempDataDir, type SpawnedServer } from "../support/server.js";
import { channelEvents, fixture, hit, waitForEvents } from "./helpers.js";

const alive = (pid: number) => {
  try {
    process.kill(pid, 0); // signal 0: only asks whether it exists
    return true;
  } catch {
    return false;
  }
};

/** The server's child processes (sandbox workers), once at least `min` exist. */
async function childrenWithin(pid: number, min: number): Promise<number[]> {
  let found: number[] = [];
  for (let i = 0; i < 100 && found.length < min; i++) {
    found = fs
      .readdirSync(`/proc/${pid}/task`)
      .flatMap((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, "utf8").trim().split(/\s+/))
      .filter(Boolean)
      .map(Number);
    await new Promise((r) => setTimeout(r, 100));
  }
  return found;
}

async function until(cond: () => boolean, withinMs = 10_000): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error("condition not reached in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("restart", () => {
  const dataDir = tempDataDir();
  const apiKey = randomKey();
  let srv: SpawnedServer | undefined;
  afterAll(async () => {
    await srv?.stop("SIGKILL");
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("keeps db, schedule and queued requests across SIGTERM and kill -9", { timeout: 120_000 }, async () => {
    srv = await spawnServer({ dataDir, apiKey });
    let client = createClient({ baseUrl: srv.baseUrl, apiKey });
    const counter = await client.createSource({ component_code: fixture("http-counter.mjs") });
    const schedule = await client.createSource({ component_code: fixture("schedule.mjs") });
    const slow = await client.createSource({ component_code: fixture("slow-recorder.mjs") });
    const endpoint = (origin: string, id: string) => `${origin}/e/${id}`;

    expect((await hit(endpoint(srv.origin, counter.id), { body: {} })).json.n).toBe(1);
    expect((await hit(endpoint(srv.origin, counter.id), { body: {} })).json.n).toBe(2);
    await waitForEvents(client, schedule.id, "", 1);

    // Clean restart.
    expect(await srv.stop("SIGTERM")).toBe(0);
    srv = await spawnServer({ dataDir, apiKey });
    client = createClient({ baseUrl: srv.baseUrl, apiKey });
    expect((await hit(endpoint(srv.origin, counter.id), { body: {} })).json.n).toBe(3);
    const ticks = (await channelEvents(client, schedule.id, "")).length;
    await waitForEvents(client, schedule.id, "", ticks + 1);

    // Acknowledged requests queue behind a slow run; the server dies before they all ran.
    for (let i = 1; i <= 6; i++) {
      const r = await hit(endpoint(srv.origin, slow.id), { body: { i } });
      expect(r.json).toEqual({ success: true });
    }
    // A worker stuck in a loop when the server is killed must not outlive it.
    const hostile = await client.createSource({ component_code: fixture("hostile.mjs") });
    await hit(endpoint(srv.origin, hostile.id), { body: { what: "loop" } });
    await new Promise((r) => setTimeout(r, 500));
    const workers = await childrenWithin(srv.child.pid!, 1);
    expect(workers.length).toBeGreaterThan(0);
    expect(await srv.stop("SIGKILL")).toBe(null);
    await until(() => workers.every((pid) => !alive(pid)));
    srv = await spawnServer({ dataDir, apiKey });
    client = createClient({ baseUrl: srv.baseUrl, apiKey });
    const events = await waitForEvents(client, slow.id, "", 6, 30_000);
    // At least once: a request that was running at the kill may run again; none is lost, order kept.
    const seen = events.map((e) => (e.event as { i: number }).i);
    expect([...new Set(seen)]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect((await hit(endpoint(srv.origin, counter.id), { body: {} })).json.n).toBe(4);
    // The killed server's sandbox temp dirs were cleaned up by its successor.
    const tmpDirs = fs.readdirSync(path.join(dataDir, "sandbox"));
    expect(tmpDirs.filter((d) => !d.startsWith(`${srv!.child.pid}-`))).toEqual([]);
  });
});
