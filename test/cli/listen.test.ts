/**
 * `listen --forward-to`: the real binary follows a real server's source and forwards to a real
 * local HTTP server, which records what reached it and can be told to fail or be down.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { eventually, flags, oneLine, post, runCli, startCli, type RunningCli } from "./helpers.js";

interface Received {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A local app: records each request; `failures` answers 503 that many times first. */
async function startTarget(port = 0) {
  const received: Received[] = [];
  const state = { failures: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      if (state.failures > 0) {
        state.failures--;
        res.writeHead(503).end("busy");
      } else {
        res.writeHead(req.url?.includes("teapot") ? 418 : 200).end("ok");
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const addr = server.address() as AddressInfo;
  return {
    received,
    state,
    url: `http://127.0.0.1:${addr.port}`,
    port: addr.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
type Target = Awaited<ReturnType<typeof startTarget>>;

async function freePort(): Promise<number> {
  const t = await startTarget();
  await t.close();
  return t.port;
}

const echo = fs
  .readFileSync(path.join(import.meta.dirname, "fixtures", "http-echo.mjs"), "utf8")
  .replace('import { label } from "./label.mjs";', 'const label = "l";');

describe("listen --forward-to", { timeout: 180_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let httpSource: { id: string; endpoint: string };
  let echoSource: { id: string; endpoint: string };
  const running: RunningCli[] = [];
  const targets: Target[] = [];

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    const h = await user.client.createSource({ key: "http-new-requests", name: "hooks" });
    httpSource = { id: h.id, endpoint: `${server.origin}/e/${h.id}` };
    const e = await user.client.createSource({ component_code: echo, name: "echoes", configured_props: { greeting: "hi" } });
    echoSource = { id: e.id, endpoint: `${server.origin}/e/${e.id}` };
  });
  afterEach(async () => {
    for (const c of running.splice(0)) if (c.child.exitCode === null) c.kill("SIGKILL");
    for (const t of targets.splice(0)) await t.close();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const target = async (port?: number) => {
    const t = await startTarget(port);
    targets.push(t);
    return t;
  };
  /** Starts `listen` and waits until it follows (events posted from then on are forwarded). */
  const listen = async (args: string[]) => {
    const cli = startCli([...flags(server.baseUrl, user.key), "listen", ...args]);
    running.push(cli);
    await cli.waitFor(/forwarding .*Ctrl-C stops/, "stderr");
    return cli;
  };
  const stop = async (cli: RunningCli) => {
    cli.kill("SIGINT");
    const r = await cli.done(20_000);
    expect(r.code, r.stderr).toBe(0);
    return r;
  };
  const stored = async (sourceId: string, n: number) =>
    eventually(async () => ((await user.client.listSourceEvents(sourceId, { limit: 1 })).page_info.total_count >= n ? true : undefined), 30_000, `${n} events stored`);

  it("re-creates an HTTP source's request: method, path and query, headers, raw body", async () => {
    const app = await target();
    const cli = await listen(["hooks", "--forward-to", `${app.url}/local`]);
    const raw = '{"type": "invoice.paid",   "data": {"amount": 1200}}\n';
    const sent = await fetch(`${httpSource.endpoint}/stripe/hook?a=1&a=2&b=x%20y`, {
      method: "POST",
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=abc", "x-custom": "kept" },
      body: raw,
    });
    expect(sent.status).toBe(200);
    await fetch(`${httpSource.endpoint}`, { method: "PUT", headers: { "content-type": "text/plain" }, body: "plain words" });
    await eventually(() => (app.received.length >= 2 ? true : undefined), 30_000, "two requests at the target");

    const [first, second] = app.received;
    expect(first).toMatchObject({ method: "POST", url: "/local/stripe/hook?a=1&a=2&b=x+y", body: raw });
    expect(first!.headers).toMatchObject({ "content-type": "application/json", "stripe-signature": "t=1,v1=abc", "x-custom": "kept" });
    // host and content-length describe the new request, not the original one.
    expect(first!.headers.host).toBe(`127.0.0.1:${app.port}`);
    expect(first!.headers["content-length"]).toBe(String(Buffer.byteLength(raw)));
    expect(first!.headers["x-headwater-event-id"]).toBeUndefined();
    expect(second).toMatchObject({ method: "PUT", url: "/local", body: "plain words" });
    expect(second!.headers["content-type"]).toBe("text/plain");

    await cli.waitFor(/PUT \/local -> 200/);
    const r = await stop(cli);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\d\d:\d\d:\d\d \d+-\d+ POST \/local\/stripe\/hook\?a=1&a=2&b=x\+y -> 200 \d+ ms$/);
    expect(lines[1]).toMatch(/^\d\d:\d\d:\d\d \d+-\d+ PUT \/local -> 200 \d+ ms$/);
  });

  it("POSTs any other event as JSON with its event and source ids; --json prints one object per attempt", async () => {
    const app = await target();
    const cli = await listen(["echoes", "--forward-to", `${app.url}/teapot`, "--json"]);
    await post(echoSource.endpoint, { n: 41 });
    await eventually(() => (app.received.length >= 1 ? true : undefined), 30_000, "a request at the target");
    const got = app.received[0]!;
    expect(got).toMatchObject({ method: "POST", url: "/teapot" });
    expect(JSON.parse(got.body)).toEqual({ label: "l", greeting: "hi", times: null, n: 41 });
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["x-headwater-source-id"]).toBe(echoSource.id);
    const newest = (await user.client.listSourceEvents(echoSource.id, { limit: 1 })).data[0]!;
    expect(got.headers["x-headwater-event-id"]).toBe(newest.id);

    await cli.waitFor(/"outcome"/);
    const r = await stop(cli);
    // A 4xx is an answer: delivered, not retried.
    expect(JSON.parse(r.stdout.trim())).toMatchObject({ id: newest.id, method: "POST", status: 418, attempt: 1, outcome: "delivered" });
    expect(app.received).toHaveLength(1);
  });

  it("retries a 5xx with backoff and keeps the order: the next event waits", async () => {
    const app = await target();
    app.state.failures = 2;
    const cli = await listen(["echoes", "--forward-to", app.url]);
    await post(echoSource.endpoint, { n: 1 });
    await post(echoSource.endpoint, { n: 2 });
    await eventually(() => (app.received.length >= 4 ? true : undefined), 30_000, "four requests at the target");
    expect(app.received.map((r) => (JSON.parse(r.body) as { n: number }).n)).toEqual([1, 1, 1, 2]);
    await cli.waitFor(/after 2 retries/);
    const r = await stop(cli);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/POST \/ -> 503 \d+ ms, retrying in 0\.5 s \(retry 1 of 5\)$/);
    expect(lines[1]).toMatch(/POST \/ -> 503 \d+ ms, retrying in 1 s \(retry 2 of 5\)$/);
    expect(lines[2]).toMatch(/POST \/ -> 200 \d+ ms \(after 2 retries\)$/);
    expect(lines[3]).toMatch(/POST \/ -> 200 \d+ ms$/);
    expect(lines).toHaveLength(4);
  });

  it("a target that is down: retried until it comes up; with retries exhausted, the line says not delivered", async () => {
    const port = await freePort();
    const cli = await listen(["echoes", "--forward-to", `http://127.0.0.1:${port}/in`, "--retries", "8"]);
    await post(echoSource.endpoint, { n: 10 });
    await cli.waitFor(/connection refused .*retrying/);
    const app = await target(port);
    await eventually(() => (app.received.length >= 1 ? true : undefined), 30_000, "the request once the app is up");
    expect(JSON.parse(app.received[0]!.body)).toMatchObject({ n: 10 });
    await cli.waitFor(/-> 200 \d+ ms \(after \d+ retr/);
    await stop(cli);

    const downPort = await freePort();
    const gives = await listen(["echoes", "--forward-to", `http://127.0.0.1:${downPort}`, "--retries", "1"]);
    await post(echoSource.endpoint, { n: 11 });
    await gives.waitFor(/not delivered/);
    const r = await stop(gives);
    expect(r.stdout).toMatch(/POST \/ -> connection refused \d+ ms, retrying in 0\.5 s \(retry 1 of 1\)\n.*POST \/ -> connection refused \d+ ms, gave up after 1 retry: not delivered\n$/);
    expect(r.stderr).toMatch(/stopped: 0 forwarded, 1 not delivered/);
  });

  it("--replay N forwards the last N retained events first, then new ones", async () => {
    const before = (await user.client.listSourceEvents(echoSource.id, { limit: 1 })).page_info.total_count;
    for (const n of [21, 22, 23]) await post(echoSource.endpoint, { n });
    await stored(echoSource.id, before + 3);
    const app = await target();
    const cli = await listen(["echoes", "--forward-to", app.url, "--replay", "2"]);
    await eventually(() => (app.received.length >= 2 ? true : undefined), 30_000, "the replayed events");
    await post(echoSource.endpoint, { n: 24 });
    await eventually(() => (app.received.length >= 3 ? true : undefined), 30_000, "the new event");
    await stop(cli);
    expect(app.received.map((r) => (JSON.parse(r.body) as { n: number }).n)).toEqual([22, 23, 24]);
  });

  it("a --forward-to that is not an http(s) URL is a usage error", async () => {
    const r = await runCli([...flags(server.baseUrl, user.key), "listen", "echoes", "--forward-to", "ftp://example.test/x"]);
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toMatch(/--forward-to: not an http\(s\) URL/);
  });
});
