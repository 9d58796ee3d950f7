/**
 * `events -f` / `logs -f`: prints what is posted after it started, survives a server restart
 * (same data dir, same port) with no gap and no duplicate, and ends cleanly on SIGINT / SIGTERM.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventSummary } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { eventually, flags, ndjson, post, startCli } from "./helpers.js";

const code = fs
  .readFileSync(path.join(import.meta.dirname, "fixtures", "http-echo.mjs"), "utf8")
  .replace('import { label } from "./label.mjs";', 'const label = "f";');

describe("following events", { timeout: 180_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let sourceId: string;
  let endpoint: string;

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    const source = await user.client.createSource({ component_code: code, name: "followed", configured_props: { greeting: "hi" } });
    sourceId = source.id;
    endpoint = `${server.origin}/e/${sourceId}`;
  });
  afterAll(async () => {
    await server?.stop();
  });

  const count = async (channel = "") => (await user.client.listSourceEvents(sourceId, { limit: 100, event_name: channel })).page_info.total_count;
  const postAndWait = async (n: number) => {
    const before = await count();
    await post(endpoint, { n });
    await eventually(async () => ((await count()) > before ? true : undefined), 30_000, `event ${n} stored`);
  };

  it("events -f prints the last events, then one posted after it started; SIGINT exits 0", async () => {
    await postAndWait(1);
    const cli = startCli([...flags(server.baseUrl, user.key), "events", "followed", "-f", "-n", "1"]);
    await cli.waitFor(/#1/);
    // The stream is open once the handshake is in; post until the CLI shows the new one.
    await post(endpoint, { n: 2 });
    await cli.waitFor(/#2/);
    cli.kill("SIGINT");
    const r = await cli.done(20_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.match(/#\d/g)).toEqual(["#1", "#2"]);
  });

  it("-f --json resumes after a server restart with no gap and no duplicate; SIGTERM exits 0", async () => {
    const cli = startCli([...flags(server.baseUrl, user.key), "events", sourceId, "-f", "-n", "0", "--json"]);
    const seen = () => (ndjson(cli.stdout()) as EventSummary[]).map((e) => (e.event as { n: number }).n);
    // Wait until the CLI has seen a live event, so the stream is surely open before the restart.
    await eventually(async () => {
      await post(endpoint, { n: 100 });
      return seen().includes(100) ? true : undefined;
    }, 30_000, "the follower to be live");

    await postAndWait(101);
    await server.restart();
    // Stored while the CLI is disconnected: must arrive by resume.
    await postAndWait(102);
    await postAndWait(103);
    await cli.waitFor(/reconnected/, "stderr", 60_000);
    await postAndWait(104);
    await eventually(() => (seen().includes(104) ? true : undefined), 30_000, "event 104 on stdout");
    cli.kill("SIGTERM");
    const r = await cli.done(20_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/connection lost/);
    // (The warm-up may have posted 100 more than once: what matters is everything after it.)
    expect(seen().filter((n) => n > 100)).toEqual([101, 102, 103, 104]);
    // Every line is one JSON event summary.
    for (const e of ndjson(r.stdout) as EventSummary[]) expect(e).toMatchObject({ id: expect.any(String), metadata: { emitter_id: sourceId } });
  });

  it("-f --channel NAME follows a named channel (polled: it has no stream)", async () => {
    const channelled = await user.client.createSource({
      component_code: code.replace("{ summary: `${label} #${event.body?.n}` }", "{ summary: `${label} #${event.body?.n}`, name: event.body?.channel }"),
      name: "channelled",
      configured_props: { greeting: "c" },
    });
    const url = `${server.origin}/e/${channelled.id}`;
    const cli = startCli([...flags(server.baseUrl, user.key), "events", "channelled", "--channel", "alerts", "-f", "-n", "0"]);
    await eventually(async () => {
      await post(url, { n: 1, channel: "alerts" });
      return /alerts f #1/.test(cli.stdout()) ? true : undefined;
    }, 30_000, "an event on alerts");
    await post(url, { n: 2 });
    await post(url, { n: 3, channel: "alerts" });
    await cli.waitFor(/alerts f #3/);
    cli.kill("SIGINT");
    const r = await cli.done(20_000);
    expect(r.code, r.stderr).toBe(0);
    // Only the alerts channel, each event (each id) once; the warm-up may have posted #1 several times.
    expect(r.stdout).not.toMatch(/#2/);
    const ids = r.stdout.trim().split("\n").map((l) => l.split(" ")[1]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(2);
  });

  it("a reader that goes away (| head -1) ends -f with exit 0, no stack trace", async () => {
    const cli = startCli([...flags(server.baseUrl, user.key), "events", "followed", "-f", "-n", "1"]);
    await cli.waitFor(/#\d/);
    cli.child.stdout!.destroy();
    // The next event written finds the pipe closed.
    const r = await eventually(async () => {
      await post(endpoint, { n: 8 });
      return cli.child.exitCode !== null ? cli.done(20_000) : undefined;
    }, 30_000, "headwater to exit");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
  });

  it("logs -f follows $logs", async () => {
    const cli = startCli([...flags(server.baseUrl, user.key), "logs", "followed", "-f", "-n", "0"]);
    await eventually(async () => {
      await post(endpoint, { n: 7 });
      return /log request 7/.test(cli.stdout()) ? true : undefined;
    }, 30_000, "a log line");
    cli.kill("SIGINT");
    const r = await cli.done(20_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/"n":7/);
  });
});
