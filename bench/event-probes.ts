/**
 * What the event benchmarks share: an HTTP client for the endpoints, the two baselines (a bare
 * node:http handler, and a relay that forwards each POST to its SSE clients and stores nothing,
 * as smee.io does), Headwater's own server set up for them, wrk for ingest when it is installed,
 * SSE readers in a worker thread, and a paced sender.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { ensureBuilt } from "../scripts/build.mjs";
import { SANDBOX_NICE } from "../server/runtime/sandbox/launch.js";
import { createClient, type Client } from "../shared/client/index.js";
import { relaySource } from "../test/delivery/helpers.js";
import { uniqueKey } from "../test/support/fixtures.js";
import { randomKey, spawnServer, tempDataDir, type SpawnedServer } from "../test/support/server.js";

export const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

export function postJson(url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", reject);
    // An unanswered request fails the bench with a reason instead of hanging it.
    req.setTimeout(30_000, () => req.destroy(new Error(`no answer from ${url} within 30 s`)));
    req.end(body);
  });
}

/** `total` POSTs with `concurrency` in flight; resolves with how many were answered 200. */
export async function load(url: string, total: number, concurrency: number): Promise<number> {
  let next = 0;
  let ok = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      if ((await postJson(url, JSON.stringify({ i, pad: "x".repeat(64) }))) === 200) ok++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ok;
}

function spawnNode(code: string): Promise<{ origin: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise((resolve, reject) => {
    child.once("exit", (c) => reject(new Error(`baseline server exited (${c})`)));
    child.stdout!.on("data", (d: Buffer) => {
      const m = /port (\d+)/.exec(d.toString());
      if (m) resolve({ origin: `http://127.0.0.1:${m[1]}`, child });
    });
  });
}

/** A bare node:http server answering 200 {"success":true} after reading and parsing the body. */
export function spawnBare(): Promise<{ origin: string; child: ChildProcess }> {
  return spawnNode(`
    const http = require("node:http");
    const s = http.createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => { JSON.parse(Buffer.concat(chunks).toString() || "null");
        res.writeHead(200, { "content-type": "application/json" }); res.end('{"success":true}'); });
    });
    s.keepAliveTimeout = 60000;
    s.listen(0, "127.0.0.1", () => console.log("port " + s.address().port));`);
}

/**
 * A bare node:http server answering GET <path> with the bytes of a file, read once at start, as
 * application/json: the floor of sending those bytes to the client, with no routing, auth or store.
 */
export function spawnStatic(files: Record<string, string>): Promise<{ origin: string; child: ChildProcess }> {
  return spawnNode(`
    const fs = require("node:fs");
    const http = require("node:http");
    const bodies = new Map(Object.entries(${JSON.stringify(files)}).map(([p, f]) => [p, fs.readFileSync(f)]));
    const s = http.createServer((req, res) => {
      const body = bodies.get(req.url);
      if (!body) { res.writeHead(404).end(); return; }
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", "content-length": body.length });
      res.end(body);
    });
    s.keepAliveTimeout = 60000;
    s.listen(0, "127.0.0.1", () => console.log("port " + s.address().port));`);
}

/**
 * A relay that stores nothing and runs no code, like smee.io: a POST to /e is answered 200 and
 * forwarded to every client of GET /sse as {headers..., body, query, timestamp} (smee's shape).
 *
 * `throughProcess`: the same relay, but each message goes to a child process over Node's IPC and
 * comes back from it before it is written to the streams, as an event of Headwater's comes back
 * from the sandbox worker that ran the source (a child at nice 10, as the workers are). Still
 * nothing stored and no code run: what any design that runs the source's code in a process of its
 * own pays on top of the relay, two more wake-ups of a sleeping process per event.
 */
export function spawnRelay(opts: { throughProcess?: boolean } = {}): Promise<{ origin: string; child: ChildProcess }> {
  return spawnNode(`
    const http = require("node:http");
    const clients = new Set();
    let n = 0;
    const toStreams = (msg) => { for (const c of clients) c.write(msg); };
    let forward = toStreams;
    if (${opts.throughProcess ? "true" : "false"}) {
      const { spawn } = require("node:child_process");
      const os = require("node:os");
      const child = spawn(process.execPath, ["-e", "process.on('message', (m) => process.send(m))"],
        { stdio: ["ignore", "inherit", "inherit", "ipc"] });
      os.setPriority(child.pid, ${SANDBOX_NICE});
      child.on("message", toStreams);
      process.on("exit", () => child.kill());
      process.on("SIGTERM", () => process.exit(0));
      forward = (msg) => child.send(msg);
    }
    const s = http.createServer((req, res) => {
      if (req.method === "GET" && req.url === "/sse") {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(":ok\\n\\n");
        clients.add(res);
        req.on("close", () => clients.delete(res));
        return;
      }
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        const body = JSON.parse(Buffer.concat(chunks).toString() || "null");
        res.writeHead(200, { "content-type": "application/json" }); res.end('{"success":true}');
        forward("id: " + (++n) + "\\ndata: " + JSON.stringify({ ...req.headers, body, query: {}, timestamp: Date.now() }) + "\\n\\n");
      });
    });
    s.keepAliveTimeout = 60000;
    s.listen(0, "127.0.0.1", () => console.log("port " + s.address().port));`);
}

/** Whether wrk is on the PATH (the ingest figures are wrk's). */
export const hasWrk = (() => {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (dir && fs.existsSync(path.join(dir, "wrk"))) return true;
  }
  return false;
})();

/**
 * Requests per second answered 2xx: wrk -t2 -c32 for `seconds`, POSTing a small JSON body (or,
 * without wrk, the bench's own client for as long).
 */
export async function ingestRate(url: string, seconds: number): Promise<{ perSecond: number; failed: number }> {
  if (!hasWrk) {
    const t0 = performance.now();
    let ok = 0;
    let sent = 0;
    while (performance.now() - t0 < seconds * 1000) {
      ok += await load(url, 2000, 32);
      sent += 2000;
    }
    return { perSecond: (ok * 1000) / (performance.now() - t0), failed: sent - ok };
  }
  const script = path.join(os.tmpdir(), `hw-bench-post-${process.pid}.lua`);
  fs.writeFileSync(
    script,
    `wrk.method = "POST"\nwrk.body = '{"i":-1,"pad":"${"x".repeat(64)}"}'\nwrk.headers["Content-Type"] = "application/json"\n`,
  );
  const out = await new Promise<string>((resolve, reject) =>
    execFile("wrk", ["-t2", "-c32", `-d${seconds}s`, "-s", script, url], (err, stdout) => (err ? reject(err) : resolve(stdout))),
  );
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  const failed = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  const perSecond = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  return { perSecond: total > 0 ? (perSecond * (total - failed)) / total : NaN, failed };
}

/**
 * SSE readers in a worker thread, so that reading streams does not compete with the sender
 * (or, for the in-process server, with the server) for this thread. Arrival times are absolute
 * (timeOrigin + now), comparable across threads. Each message's `"i":N` is what is counted.
 */
const TAP_WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const http = require("node:http");
const arrivals = [];
let open = 0;
for (const url of workerData.urls) {
  http.get(url, { headers: { authorization: "Bearer " + workerData.key, accept: "text/event-stream" } }, (res) => {
    let buf = "";
    res.setEncoding("utf8");
    if (++open === workerData.urls.length) parentPort.postMessage({ ready: true });
    res.on("data", (chunk) => {
      const at = performance.timeOrigin + performance.now();
      buf += chunk;
      let end;
      while ((end = buf.indexOf("\\n\\n")) >= 0) {
        const m = /"i":(\\d+)/.exec(buf.slice(0, end));
        buf = buf.slice(end + 2);
        if (m) arrivals.push(Number(m[1]), at);
      }
    });
  });
}
parentPort.on("message", () => parentPort.postMessage({ arrivals }));
`;

export interface WorkerTaps {
  /** [i, arrivedAt, i, arrivedAt, ...] so far. */
  collect(): Promise<number[]>;
  close(): Promise<void>;
}

export async function workerTaps(urls: string[], key: string): Promise<WorkerTaps> {
  const worker = new Worker(TAP_WORKER, { eval: true, workerData: { urls, key } });
  await new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("error", reject);
  });
  return {
    collect: () =>
      new Promise((resolve) => {
        worker.once("message", (m: { arrivals: number[] }) => resolve(m.arrivals));
        worker.postMessage("collect");
      }),
    close: async () => {
      await worker.terminate();
    },
  };
}

/**
 * Sends at `perSecond` for `seconds` through `send(i)`; returns each i's absolute send time.
 * Each tick is aimed at the next request's own time. (A `setInterval` here drifted by its
 * lateness at every tick and made up for it by sending two requests at once: 4 to 8 % of a
 * 200 ev/s stream went in pairs, a burst the stream was not meant to be.)
 */
export async function paced(perSecond: number, seconds: number, send: (i: number) => Promise<unknown>): Promise<number[]> {
  const sentAt: number[] = [];
  const pending: Array<Promise<unknown>> = [];
  const total = Math.floor(perSecond * seconds);
  const gapMs = 1000 / perSecond;
  const started = performance.now();
  await new Promise<void>((done) => {
    const tick = () => {
      // One reading of the clock per tick: the last tick sends all that is left. (Reading it
      // again after sending, as this once did, could end the run one request short: "199 of 200
      // events" in the fan-out bench's warm-up, a request never sent rather than an event lost.)
      const elapsed = performance.now() - started;
      const last = elapsed >= seconds * 1000;
      // Whatever is due (more than one only after a tick later than a whole gap), so that a
      // late tick does not lower the rate.
      const due = (last ? total : Math.min(total, Math.floor(elapsed / gapMs) + 1)) - sentAt.length;
      for (let k = 0; k < due; k++) {
        const i = sentAt.length;
        sentAt.push(performance.timeOrigin + performance.now());
        pending.push(send(i));
      }
      if (last || sentAt.length >= total) return done();
      // Aimed at the next request's time. Node's timers count whole milliseconds: a tick a little
      // early sends nothing and waits again; a late one sends what is due.
      setTimeout(tick, Math.max(0, started + sentAt.length * gapMs - performance.now()));
    };
    tick();
  });
  await Promise.all(pending);
  return sentAt;
}

export const pct = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

/**
 * Waits until the `expected` arrivals of events `first`.. (or 60 s), then returns the sorted
 * latencies (arrival - send). `sentAt[k]` is when event `first + k` was sent.
 */
export async function latencies(taps: WorkerTaps, sentAt: number[], expected: number, first = 0): Promise<number[]> {
  const deadline = performance.now() + 60_000;
  const out: number[] = [];
  const measure = (arrivals: number[]) => {
    out.length = 0;
    for (let k = 0; k < arrivals.length; k += 2) {
      const i = arrivals[k]! - first;
      if (i >= 0 && i < sentAt.length) out.push(arrivals[k + 1]! - sentAt[i]!);
    }
  };
  measure(await taps.collect());
  while (out.length < expected && performance.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    measure(await taps.collect());
  }
  return out.sort((a, b) => a - b);
}

/**
 * One stream's round: `{"i": first + n}` POSTed to `url` at `perSecond` for `seconds` (the
 * pacer's numbering), then each request's latency to its SSE message on `taps`, sorted; `sent`
 * says how many were sent (fewer latencies: some never arrived).
 */
export async function streamRound(
  url: string,
  taps: WorkerTaps,
  o: { perSecond: number; seconds: number; first: number },
): Promise<{ sent: number; latencies: number[] }> {
  const sentAt = await paced(o.perSecond, o.seconds, (i) => postJson(url, JSON.stringify({ i: o.first + i })));
  return { sent: sentAt.length, latencies: await latencies(taps, sentAt, sentAt.length, o.first) };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * CPU seconds a process used so far (user + system, from /proc; NaN where there is none). Per
 * acknowledged request it depends far less on what else runs on the machine than a rate does.
 */
export function processCpuSeconds(pid: number | undefined): number {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** A built Headwater server as the event benches run it, with an admin client. */
export interface BenchServer {
  server: SpawnedServer;
  dataDir: string;
  apiKey: string;
  client: Client;
}

let built: Promise<void> | undefined;
/**
 * This checkout's build, made first if it is missing or older than the sources: the server runs
 * from dist/js, and a stale build would measure the code before the change being measured.
 */
export function ensureBenchBuild(): Promise<void> {
  return (built ??= ensureBuilt({ log: (line: string) => console.log(`  · ${line}`) }));
}

/**
 * Spawns the built server of this checkout (or of `root`, another checkout) with the daily quota
 * and the retention out of the way of what is measured; with `profDir`, its CPU profile goes to
 * `<profDir>/<name>`.
 */
export async function spawnBenchServer(name: string, opts: { root?: string; profDir?: string } = {}): Promise<BenchServer> {
  if (!opts.root) await ensureBenchBuild();
  const dataDir = tempDataDir();
  const apiKey = randomKey();
  const server = await spawnServer({
    dataDir,
    apiKey,
    ...(opts.root ? { root: opts.root } : {}),
    ...(opts.profDir ? { nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${opts.profDir}/${name}`] } : {}),
    env: {
      HEADWATER_LOG_LEVEL: "error",
      HEADWATER_EVENT_RETENTION: "1000000",
      HEADWATER_DAILY_INVOCATIONS_QUOTA: "1000000000",
    },
  });
  return { server, dataDir, apiKey, client: createClient({ baseUrl: server.baseUrl, apiKey }) };
}

/** A server with one source whose stream is tapped, for the request → SSE A/B scripts. */
export interface StreamSystem {
  name: string;
  hw: BenchServer;
  source: string;
  /** The source's endpoint. */
  url: string;
  taps: WorkerTaps;
}

/**
 * This checkout's build ("this build") and, with HEADWATER_BENCH_BASELINE, that checkout's
 * ("baseline"): each a warmed-up server with one relay source and a tap on its stream.
 */
export async function streamSystems(): Promise<StreamSystem[]> {
  const builds: Array<[string, string | undefined]> = [["this build", undefined]];
  if (process.env.HEADWATER_BENCH_BASELINE) builds.push(["baseline", process.env.HEADWATER_BENCH_BASELINE]);
  const systems: StreamSystem[] = [];
  for (const [name, root] of builds) {
    const hw = await spawnBenchServer(name.replace(/ /g, "-"), root ? { root } : {});
    const source = await relaySourceOn(hw.client, "latency");
    await warmUp(hw.client, hw.server.origin, await relaySourceOn(hw.client, "warm-up"));
    const taps = await workerTaps([`${hw.server.origin}/sources/${source}/sse`], hw.apiKey);
    systems.push({ name, hw, source, url: `${hw.server.origin}/e/${source}`, taps });
  }
  return systems;
}

/** Ends what streamSystems started. */
export async function stopStreamSystems(systems: StreamSystem[]): Promise<void> {
  for (const s of systems) {
    await s.taps.close();
    await s.hw.server.stop();
    fs.rmSync(s.hw.dataDir, { recursive: true, force: true });
  }
  agent.destroy();
}

/** A source that emits each request's body (the events path's common case), by name. */
export async function relaySourceOn(client: Client, name: string): Promise<string> {
  return (await client.createSource({ component_code: relaySource(uniqueKey(name)), name })).id;
}

/**
 * Polls a source's stored-event count until it reaches `count` and returns it; fails after
 * `withinMs` saying how far it got (a stuck or lost event must stop a bench with a reason, not
 * hang it).
 */
export async function untilStored(client: Client, sourceId: string, count: number, withinMs = 120_000): Promise<number> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const total = (await client.listSourceEvents(sourceId, { limit: 1 })).page_info.total_count;
    if (total >= count) return total;
    if (performance.now() > deadline) throw new Error(`${sourceId} has ${total} of ${count} events after ${withinMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Polls the server's `/metrics` until no invocation job is queued or running
 * (`headwater_queue_jobs` 0): a backlog's last runs, which `untilStored` may leave behind, would
 * otherwise be measured as part of the next case. Fails after `withinMs` saying how many remain.
 */
export async function untilQueueEmpty(origin: string, apiKey: string, withinMs = 120_000): Promise<void> {
  const deadline = performance.now() + withinMs;
  for (;;) {
    const text = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${apiKey}` } })).text();
    const jobs = Number(/^headwater_queue_jobs (\S+)$/m.exec(text)?.[1] ?? NaN);
    if (jobs === 0) return;
    if (performance.now() > deadline) throw new Error(`${jobs} jobs still queued after ${withinMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * Warms a server up on `sourceId` (the JIT keeps improving over its first ~8,000 requests: four
 * bursts of 2,000), each burst's acknowledged requests stored before the next. A refused request
 * is counted and reported, not awaited as an event: a lost event (acknowledged, never stored)
 * still stops the bench with a reason.
 */
export async function warmUp(client: Client, origin: string, sourceId: string): Promise<void> {
  let acknowledged = 0;
  for (let burst = 1; burst <= 4; burst++) {
    const ok = await load(`${origin}/e/${sourceId}`, 2000, 32);
    if (ok < 2000) console.log(`  · warm-up: ${2000 - ok} of 2,000 requests refused (not 200) in burst ${burst}`);
    acknowledged += ok;
    await untilStored(client, sourceId, acknowledged);
  }
}
