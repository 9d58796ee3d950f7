/**
 * `replay`, `events --search` and `stats`: the real binary against a real server, checked by what
 * it prints and by what the server then holds (a listener that received the replay).
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventSummary } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { eventually, flags, ndjson, oneLine, post, runCli } from "./helpers.js";

const echo = fs
  .readFileSync(path.join(import.meta.dirname, "fixtures", "http-echo.mjs"), "utf8")
  .replace('import { label } from "./label.mjs";', 'const label = "i";')
  .replace("n: event.body?.n }", "n: event.body?.n, note: event.body?.note ?? null }");

/** A source that emits every event it is sent (it listens to the echo source). */
const relay = `
export default {
  key: "cli-relay", name: "Relay", version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit({ relayed: event }); },
};`;

describe("replay, search and stats", { timeout: 180_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let echoId: string;
  let relayId: string;
  let otherId: string;
  let ids: string[];
  const cli = (args: string[]) => runCli([...flags(server.baseUrl, user.key), ...args]);
  const listened = async (id: string) => (await user.client.listSourceEvents(id, { limit: 100, expand: "event" })).data.reverse();

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    echoId = (await user.client.createSource({ component_code: echo, name: "echoes", configured_props: { greeting: "hi" } })).id;
    relayId = (await user.client.createSource({ component_code: relay, name: "relay" })).id;
    otherId = (await user.client.createSource({ component_code: relay.replace("cli-relay", "cli-other"), name: "bystander" })).id;
    await user.client.createSubscription({ emitter_id: echoId, listener_id: relayId });
    const endpoint = `${server.origin}/e/${echoId}`;
    await post(endpoint, { n: 1, note: "the Needle is here" });
    for (let n = 2; n <= 15; n++) await post(endpoint, { n });
    await post(endpoint, { n: 16, fail: true });
    const stored = await eventually(async () => {
      const page = await user.client.listSourceEvents(echoId, { limit: 100 });
      return page.data.length >= 15 ? page.data : undefined;
    }, 30_000, "15 events stored");
    ids = stored.map((e) => e.id).reverse();
    await eventually(async () => ((await listened(relayId)).length >= 15 ? true : undefined), 30_000, "the relay to get them");
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("replay --from --to delivers that range again, same ids and data, and says how many", async () => {
    const r = await cli(["replay", "echoes", "--from", ids[1]!, "--to", ids[3]!]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`queued 3 events of echoes (${echoId}) (${ids[1]} to ${ids[3]}) for every listener: 3 deliveries\n`);
    const got = await eventually(async () => {
      const all = await listened(relayId);
      return all.length >= 18 ? all : undefined;
    }, 30_000, "the replayed events at the relay");
    const replayed = got.slice(15).map((e) => (e.event as { relayed: EventSummary["event"] & { n: number } }).relayed);
    expect(replayed.map((e) => (e as { n: number }).n)).toEqual([2, 3, 4]);
    expect(replayed[0]).toEqual({ label: "i", greeting: "hi", times: null, n: 2, note: null });
  });

  it("replay --listener NAME --json: only that listener; one that does not listen is a 404 in one line", async () => {
    const r = await cli(["replay", "echoes", "--from", ids[0]!, "--to", ids[0]!, "--listener", "relay", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: echoId, from: ids[0], to: ids[0], event_name: "", listener_id: relayId, events: 1, deliveries: 1 });

    const bad = await cli(["replay", "echoes", "--listener", "bystander"]);
    expect(bad.code).toBe(1);
    expect(oneLine(bad.stderr)).toMatch(/404|not_found|listen/i);
    expect((await listened(otherId)).length).toBe(0);

    const usage = await cli(["replay", "echoes", "--from", "yesterday"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/not an event id/);
  });

  it("events --search finds an event beyond the last N, case-insensitively", async () => {
    const plain = await cli(["events", "echoes", "--json"]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(ndjson(plain.stdout).map((e) => (e as EventSummary).id)).not.toContain(ids[0]);

    const r = await cli(["events", "echoes", "--search", "needle", "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const found = ndjson(r.stdout) as EventSummary[];
    expect(found.map((e) => e.id)).toEqual([ids[0]]);
    expect(found[0]!.event).toMatchObject({ n: 1 });

    const none = await cli(["events", "echoes", "--search", "no such words"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
    expect(none.stderr).toMatch(/no events matching "no such words"/);
  });

  it("stats prints the last hour as a small table with a total, and --json the minute buckets", async () => {
    const r = await cli(["stats", "echoes"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe(`echoes (${echoId}), the last hour`);
    expect(lines[1]).toMatch(/^FROM\s+EVENTS\s+ERRORS\s+LOGS\s+RUNS\s+COMPUTE$/);
    expect(lines.length).toBeLessThanOrEqual(16);
    const total = lines.at(-1)!.split(/\s+/);
    // 15 emitted, 1 thrown ($errors), 16 runs and 16 log lines.
    expect(total.slice(0, 5)).toEqual(["total", "15", "1", "16", "16"]);

    const j = await cli(["stats", "echoes", "--json"]);
    expect(j.code, j.stderr).toBe(0);
    const points = ndjson(j.stdout) as Array<{ t: number; events: number; errors: number; time: string }>;
    expect(points.length).toBeGreaterThanOrEqual(60);
    expect(points.reduce((s, p) => s + p.events, 0)).toBe(15);
    expect(points.reduce((s, p) => s + p.errors, 0)).toBe(1);
    expect(new Date(points[0]!.time).getTime()).toBe(points[0]!.t);
  });
});
