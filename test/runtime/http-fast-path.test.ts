/**
 * The endpoints' ingest case answered in front of Fastify (server/runtime/triggers/http-fast.ts):
 * which requests it takes, that it answers only once the job is queued, and that the event and
 * the answer are the route's own (a server where the first request takes the route and the
 * next ones the fast path stores the same events).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { endpointFastPath } from "../../server/runtime/triggers/http-fast.js";
import type { httpEventOf} from "../../server/runtime/triggers/http.js";
import { runnableHttpEvent } from "../../server/runtime/http-body.js";
import { type HttpTarget } from "../../server/runtime/triggers/http.js";
import type { EnqueueJob } from "../../server/runtime/queue-jobs.js";
import { startServer, type TestServer } from "../support/server.js";
import { waitForEvents } from "./helpers.js";

interface Sent {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function send(origin: string, path: string, opts: { method?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${origin}${path}`, { method: opts.method ?? "POST", headers: opts.headers }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end(opts.body);
  });
}

describe("the endpoints' fast path, alone", () => {
  const targets = new Map<string, HttpTarget>([
    ["dc_live", { ownerId: "u1", active: true, customResponse: false }],
    ["dc_off", { ownerId: "u1", active: false, customResponse: false }],
    ["dc_custom", { ownerId: "u1", active: true, customResponse: true }],
    ["dc_disabled", { ownerId: "u1", active: true, customResponse: false, ownerDisabled: true }],
    ["dc_poor", { ownerId: "u2", active: true, customResponse: false }],
    ["p_flow", { ownerId: "u1", active: true, customResponse: false, workflow: { responseTimeoutMs: 1000 } }],
    ["p_waits", { ownerId: "u1", active: true, customResponse: true, workflow: { responseTimeoutMs: 1000 } }],
  ]);
  const queued: EnqueueJob[] = [];
  let release: (() => void) | undefined;
  let failNext = false;
  const fast = endpointFastPath({
    target: (id) => targets.get(id),
    admits: (owner) => (owner === "u1" ? true : undefined),
    enqueue: (jobs) =>
      new Promise((resolve, reject) => {
        if (failNext) {
          failNext = false;
          return reject(new Error("disk full"));
        }
        release = () => {
          queued.push(...jobs);
          resolve(jobs.map((_, i) => `${String(Date.now()).padStart(15, "0")}-job-${queued.length + i}`));
        };
      }),
    bodyLimit: 1000,
    log: () => undefined,
  });
  let server: http.Server;
  let origin = "";
  beforeAll(async () => {
    // What the fast path does not take is answered 299 here (standing for Fastify's route).
    server = http.createServer((req, res) => {
      if (!fast(req, res)) {
        req.resume();
        res.writeHead(299).end("route");
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const json = { "content-type": "application/json" };

  it("answers 200 only once the job is queued, with the route's answer and event", async () => {
    const body = '{"a":[1,2],"b":"x"}';
    const answer = send(origin, "/e/dc_live?x=1&x=2", { body, headers: { ...json, "x-hook": "yes" } });
    let answered = false;
    void answer.then(() => (answered = true));
    while (!release) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 50));
    expect(answered).toBe(false);
    release();
    release = undefined;
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body).toBe('{"success":true}');
    expect(r.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(r.headers["content-length"]).toBe("16");
    const job = queued.at(-1)!;
    expect(job).toMatchObject({ targetId: "dc_live", ownerId: "u1", trigger: "http" });
    const event = job.event as ReturnType<typeof httpEventOf>;
    // Queued with its body once, as received; the run gets it parsed (http-body.ts).
    expect(event).toMatchObject({ method: "POST", path: "/", query: { x: ["1", "2"] }, bodyRaw: body });
    expect(event).not.toHaveProperty("body");
    expect(runnableHttpEvent(event)).toMatchObject({ bodyRaw: body, body: { a: [1, 2], b: "x" } });
    expect(event.headers["x-hook"]).toBe("yes");
  });

  it("answers a workflow's endpoint that answers at once, naming the run its job is", async () => {
    const answer = send(origin, "/e/p_flow", { body: '{"n":1}', headers: json });
    while (!release) await new Promise((r) => setTimeout(r, 5));
    release();
    release = undefined;
    const r = await answer;
    expect(r.status).toBe(200);
    expect(r.body).toBe('{"success":true}');
    expect(r.headers["x-headwater-run-id"]).toMatch(/^r_[A-Za-z0-9]+$/);
    expect(queued.at(-1)).toMatchObject({ targetId: "p_flow", ownerId: "u1", trigger: "http" });
    // One that waits for its run's answer takes the route.
    expect((await send(origin, "/e/p_waits", { body: "{}", headers: json })).status).toBe(299);
  });

  it("leaves to the route what it does not take, before reading anything", async () => {
    const cases: Array<[string, Parameters<typeof send>[2]]> = [
      ["/e/dc_live", { method: "GET" }],
      ["/e/dc_live/sub/path", { body: "{}", headers: json }],
      ["/e/dc_live", { body: "plain", headers: { "content-type": "text/plain" } }],
      ["/e/dc_live", { body: "{}", headers: { ...json, "transfer-encoding": "chunked" } }],
      ["/e/dc_live", { body: `{"pad":"${"x".repeat(2000)}"}`, headers: json }],
      ["/e/dc_unknown", { body: "{}", headers: json }],
      ["/e/dc_off", { body: "{}", headers: json }],
      ["/e/dc_custom", { body: "{}", headers: json }],
      ["/e/dc_disabled", { body: "{}", headers: json }],
      ["/e/dc_poor", { body: "{}", headers: json }],
      ["/e/DC_live", { body: "{}", headers: json }],
    ];
    for (const [path, opts] of cases) {
      const r = await send(origin, path, opts);
      expect([path, r.status, r.body]).toEqual([path, 299, "route"]);
    }
  });

  it("answers 500 in the error shape when the job could not be queued", async () => {
    failNext = true;
    const r = await send(origin, "/e/dc_live", { body: "{}", headers: json });
    expect(r.status).toBe(500);
    expect(JSON.parse(r.body)).toEqual({ error: "internal server error", code: "internal_error" });
  });
});

describe("the endpoints' fast path in a server", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("stores the same events whether the route or the fast path took the request", async () => {
    const alice = await s.newUser();
    const src = await alice.client.createSource({
      component_code: `export default { key: "whole-event", name: "Whole", version: "0.0.1", props: { http: "$.interface.http" },
        async run(event) { this.$emit(event); } };`,
    });
    const headers = { "content-type": "application/json", "x-n": "same" };
    const answers: Sent[] = [];
    // The first request fills the target and quota caches (the route); the next ones find them.
    for (const path of [`/e/${src.id}?q=1`, `/e/${src.id}?q=1`, `/e/${src.id}/?q=1`]) {
      answers.push(await send(s.origin, path, { body: '{"k":"v"}', headers }));
    }
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.body).toBe('{"success":true}');
      expect(a.headers["content-type"]).toBe("application/json; charset=utf-8");
    }
    const events = (await waitForEvents(alice.client, src.id, "", 3)).map((e) => e.event as ReturnType<typeof httpEventOf>);
    expect(events[1]).toEqual(events[0]);
    expect(events[2]).toEqual(events[0]);
    expect(events[0]).toMatchObject({ method: "POST", path: "/", query: { q: "1" }, body: { k: "v" }, bodyRaw: '{"k":"v"}' });
  });
});
