/**
 * Workflow runs, run by `npm run bench runs`: what recording every run costs, `$.respond`, and
 * reading a run whole, each against its baseline measured in the same run, interleaved, on the
 * built server in a process of its own (SQLite):
 * 1. runs per second, sustained: HTTP → a two-step workflow (step a exports and returns, step b
 *    returns), 1,000 requests a window, 32 in flight, until the backlog has run; one event of a
 *    source fanned out to 100 workflows subscribed to it (that same workflow, 100 times), 12
 *    events a window (1,200 runs). Each window also gives the CPU per run of the server and of
 *    its sandbox workers (from /proc). Against the build before runs were recorded, given as
 *    HEADWATER_BENCH_BASELINE (skipped without it): the two builds take turns window by window,
 *    each window after a rest, and the ratio is the median of the windows' pairs. Target ≥ 0.85.
 *       git worktree add /tmp/hw-baseline 0ebea1d
 *       ln -s "$PWD/node_modules" /tmp/hw-baseline/node_modules
 *       (cd /tmp/hw-baseline && node scripts/build.mjs)
 *       HEADWATER_BENCH_BASELINE=/tmp/hw-baseline npm run bench runs
 * 2. endpoint request → the caller's answer for a workflow with `http_response: "workflow"` whose
 *    one step does `$.respond({status: 200, body: {ok: true}})`, against a source with
 *    `customResponse` whose run does `this.http.respond(...)`. Target p50 ≤ 1.3 ×.
 * 3. `GET /workflows/{id}/runs/{run_id}` of a run of 50 steps, each at the limits of its logs
 *    (64 KB; 19 lines, as the sandbox keeps 1,000 lines of a run) and values of 256 KB in all,
 *    against `GET /users/me`: each request's answer read whole (not parsed). Target ≤ 5 × at the
 *    median. Beside them, the floor: a bare node:http server (its own process) sending the same
 *    two answers' bytes from memory, so the ratio can be read against what moving 3.5 MB through
 *    `fetch` costs on the machine at that moment (the client's copies of the bytes dominate).
 * Knobs: HEADWATER_BENCH_WINDOWS (windows per build and case in 1, default 7),
 * HEADWATER_BENCH_ROUNDS (2 and 3 run 5 × and 2 × that many rounds, default 60),
 * HEADWATER_BENCH_CPU_PROF=<dir> (CPU profiles of the servers, one directory per build).
 * Every ratio is printed once, named with its statistic.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { SQLite, type SqliteStatement } from "../shared/sqlite-native.js";
import { step } from "../test/delivery/helpers.js";
import { uniqueKey } from "../test/support/fixtures.js";
import { defineBench, type BenchCase } from "./harness.js";
import { cpuOfTree, TWO_STEPS, workflowRuns } from "./workflow-probes.js";
import {
  agent,
  load,
  median,
  pct,
  postJson,
  spawnBenchServer,
  spawnStatic,
  type BenchServer,
} from "./event-probes.js";

const WINDOWS = Number(process.env.HEADWATER_BENCH_WINDOWS ?? 7);
const ROUNDS = Number(process.env.HEADWATER_BENCH_ROUNDS ?? 60);
const PROF = process.env.HEADWATER_BENCH_CPU_PROF;
/** Runs per window: HTTP → one workflow, and events fanned out to 100 (× 100 runs each). */
const SINGLE_RUNS = 1000;
const FAN_EVENTS = 12;
const FAN_WORKFLOWS = 100;
const IN_FLIGHT = 32;
const REST_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);

/**
 * Bare JSON calls with the admin key: the typed client checks answers with this checkout's
 * schemas, which the baseline's answers (from before runs) need not meet.
 */
function api(hw: BenchServer) {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${hw.server.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${hw.apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 500)}`);
    return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
  };
}

const RELAY = (key: string) => `
export default {
  key: "${key}",
  name: "Relay",
  version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) { this.$emit(event.body); },
};`;

interface RateSystem {
  name: string;
  hw: BenchServer;
  single: string;
  fan: string;
  /** `select count(*) as n from jobs` on the server's database, read-only. */
  jobs: SqliteStatement;
  close: () => Promise<void>;
  /** Per window: runs/s, and the server's and its sandbox workers' CPU per run (µs). */
  windows: { single: Window[]; fan: Window[] };
}

interface Window {
  perSecond: number;
  serverUs: number;
  sandboxUs: number;
}

async function rateSystem(name: string, root: string | undefined): Promise<RateSystem> {
  const label = name.replace(/ /g, "-");
  const hw = await spawnBenchServer(label, { ...(root ? { root } : {}), ...(PROF ? { profDir: PROF } : {}) });
  try {
    return await setUpRates(name, hw);
  } catch (err) {
    await hw.server.stop();
    fs.rmSync(hw.dataDir, { recursive: true, force: true });
    throw err;
  }
}

async function setUpRates(name: string, hw: BenchServer): Promise<RateSystem> {
  const call = api(hw);
  const single = await call<{ id: string; endpoint_url: string }>("POST", "/workflows", {
    name: "two steps",
    steps: TWO_STEPS,
  });
  const source = await call<{ id: string; configured_props: { http: { endpoint_url: string } } }>(
    "POST",
    "/sources",
    {
      component_code: RELAY(uniqueKey("fan")),
      name: "fan",
    },
  );
  for (let i = 0; i < FAN_WORKFLOWS; i++) {
    const wf = await call<{ id: string }>("POST", "/workflows", { name: `listener ${i}`, steps: TWO_STEPS });
    await call("POST", `/subscriptions?emitter_id=${source.id}&listener_id=${wf.id}`);
  }
  const db = new SQLite(`${hw.dataDir}/headwater.db`, { readonly: true });
  return {
    name,
    hw,
    single: single.endpoint_url,
    fan: source.configured_props.http.endpoint_url,
    jobs: db.prepare("select count(*) as n from jobs"),
    close: async () => {
      db.close();
      await hw.server.stop();
      fs.rmSync(hw.dataDir, { recursive: true, force: true });
    },
    windows: { single: [], fan: [] },
  };
}

/**
 * Runs per second of one window: `requests` POSTs to `url`, IN_FLIGHT at once, from the first
 * request until no invocation job is left (each acknowledged request is a stored job, deleted in
 * the transaction that stores its run's results; a fanned-out event's 100 jobs are inserted in
 * its source's). The jobs are counted on the server's database from this process, read-only,
 * every 2 ms: polling `/metrics` as often cost the server 10 % of its CPU, the more the slower
 * it ran. The runs counted on `/metrics` after the window must match.
 */
async function runsPerSecond(
  s: RateSystem,
  url: string,
  requests: number,
  runsEach: number,
): Promise<Window> {
  const before = await workflowRuns(s.hw);
  const cpu0 = cpuOfTree(s.hw.server.child.pid);
  const t0 = performance.now();
  const acknowledged = await load(url, requests, IN_FLIGHT);
  if (acknowledged < requests)
    throw new Error(`${s.name}: ${requests - acknowledged} of ${requests} requests refused`);
  const deadline = performance.now() + 120_000;
  for (;;) {
    const left = (s.jobs.get() as { n: number }).n;
    if (left === 0) break;
    if (performance.now() > deadline) throw new Error(`${s.name}: ${left} jobs left after 120 s`);
    await sleep(2);
  }
  const elapsed = performance.now() - t0;
  const cpu1 = cpuOfTree(s.hw.server.child.pid);
  const after = await workflowRuns(s.hw);
  const expected = requests * runsEach;
  if (after.failed > before.failed) throw new Error(`${s.name}: ${after.failed - before.failed} runs failed`);
  if (after.ok - before.ok !== expected)
    throw new Error(`${s.name}: ${after.ok - before.ok} runs of ${expected}`);
  return {
    perSecond: (expected * 1000) / elapsed,
    serverUs: ((cpu1.server - cpu0.server) * 1e6) / expected,
    sandboxUs: ((cpu1.sandbox - cpu0.sandbox) * 1e6) / expected,
  };
}

interface Reads {
  respondUrl: string;
  customUrl: string;
  runPath: string;
  bareGet: (path: string) => () => Promise<number>;
  /** The bytes this server answers to GET `path`. */
  bytesOf: (path: string) => Promise<Buffer>;
}

/** What 2 and 3 measure, on this build's server. */
async function setUpReads(hw: BenchServer): Promise<Reads> {
  const call = api(hw);
  // 2: the caller answered by the workflow's step, and by a source's run.
  const responding = await call<{ endpoint_url: string }>("POST", "/workflows", {
    name: "responds",
    http_response: "workflow",
    steps: [{ name: "respond", code: step(`await $.respond({ status: 200, body: { ok: true } });`) }],
  });
  const customSource = await call<{ configured_props: { http: { endpoint_url: string } } }>(
    "POST",
    "/sources",
    {
      name: "custom response",
      component_code: `
export default {
  key: "${uniqueKey("respond")}",
  name: "Custom response",
  version: "0.0.1",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run(event) { this.http.respond({ status: 200, body: { ok: true } }); },
};`,
    },
  );
  // 3: a run of 50 steps at the limits of logs and values.
  const detailWf = await call<{ id: string; endpoint_url: string }>("POST", "/workflows", {
    name: "fifty steps",
    steps: Array.from({ length: 50 }, (_, i) => ({
      name: `s${i}`,
      // 19 lines of ~3,440 bytes: 65,400 of the 65,536 bytes a step's logs keep; 50 × 5,002 bytes of values.
      code: step(
        `for (let k = 0; k < 19; k++) console.log(String(k).padStart(3) + " " + "x".repeat(3436)); return "v".repeat(5000);`,
      ),
    })),
  });
  const triggered = await fetch(detailWf.endpoint_url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"n":1}',
  });
  await triggered.text();
  const runId = triggered.headers.get("x-headwater-run-id")!;
  const runPath = `/workflows/${detailWf.id}/runs/${runId}`;
  interface RunSteps {
    status: string;
    steps: Array<{ status: string; logs: Array<{ message: string }>; truncated?: boolean }>;
  }
  for (let waited = 0; ; waited += 50) {
    // Not found until its job starts (a run is recorded from its start).
    const run = await call<RunSteps>("GET", runPath).catch(() => undefined);
    if (run && run.status !== "running" && run.status !== "queued") {
      const logBytes = run.steps.reduce((n, s) => n + s.logs.reduce((m, l) => m + l.message.length, 0), 0);
      const lines = run.steps.reduce((n, s) => n + s.logs.length, 0);
      const cut = run.steps.filter((s) => s.truncated).length;
      if (run.status !== "success" || run.steps.some((s) => s.status !== "success"))
        throw new Error(`the 50-step run ended ${run.status}`);
      console.log(
        `  · the 50-step run: ${lines} log lines, ${(logBytes / 1024).toFixed(0)} KB of logs, ${cut} steps cut at the limits`,
      );
      break;
    }
    if (waited > 60_000) throw new Error(`the 50-step run did not end: ${run?.status ?? "not recorded"}`);
    await sleep(50);
  }
  const bareGet = (path: string) => async () => {
    const res = await fetch(`${hw.server.baseUrl}${path}`, {
      headers: { authorization: `Bearer ${hw.apiKey}` },
    });
    const body = await res.arrayBuffer();
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return body.byteLength;
  };
  return {
    respondUrl: responding.endpoint_url,
    customUrl: customSource.configured_props.http.endpoint_url,
    runPath,
    bareGet,
    bytesOf: async (path: string) => {
      const res = await fetch(`${hw.server.baseUrl}${path}`, { headers: { authorization: `Bearer ${hw.apiKey}` } });
      if (!res.ok) throw new Error(`${path}: ${res.status}`);
      return Buffer.from(await res.arrayBuffer());
    },
  };
}

const answered = async (url: string) => {
  const status = await postJson(url, '{"n":1}');
  if (status !== 200) throw new Error(`${url} answered ${status}`);
};

const ms = (xs: number[], mid = "p50") =>
  `${mid} ${pct(sorted(xs), 0.5).toFixed(2).padStart(7)} ms   p95 ${pct(sorted(xs), 0.95).toFixed(2).padStart(7)} ms`;

export default defineBench("runs", async () => {
  const baselineRoot = process.env.HEADWATER_BENCH_BASELINE;
  if (!baselineRoot)
    console.log(
      "  · HEADWATER_BENCH_BASELINE not set: the baseline pairs (HTTP → workflow and fan-out, runs/s) are skipped",
    );
  const systems: RateSystem[] = [];
  let reads: Reads;
  try {
    systems.push(await rateSystem("this build", undefined));
    if (baselineRoot) systems.push(await rateSystem("baseline", baselineRoot));
    reads = await setUpReads(systems[0]!.hw);
  } catch (err) {
    for (const s of systems) await s.close();
    throw err;
  }
  const own = systems[0]!;
  const { respondUrl, customUrl, runPath, bareGet, bytesOf } = reads;

  const cases: BenchCase[] = [
    {
      name: `runs/s: HTTP → workflow, fan-out ×${FAN_WORKFLOWS}, ${WINDOWS} windows`,
      iterations: 1,
      warmup: 0,
      run: async () => {
        // Unmeasured: the JIT's first thousands of requests, runs and commits.
        for (const s of systems) {
          await runsPerSecond(s, s.single, SINGLE_RUNS * 2, 1);
          await runsPerSecond(s, s.fan, FAN_EVENTS * 2, FAN_WORKFLOWS);
        }
        const kinds = [
          ["HTTP → two-step workflow", "single"],
          [`one event → ${FAN_WORKFLOWS} workflows`, "fan"],
        ] as const;
        for (let w = 0; w < WINDOWS; w++) {
          const line: string[] = [];
          // Who goes first alternates; each window after a rest.
          for (const s of w % 2 ? [...systems].reverse() : systems) {
            await sleep(REST_MS);
            const single = await runsPerSecond(s, s.single, SINGLE_RUNS, 1);
            await sleep(REST_MS);
            const fan = await runsPerSecond(s, s.fan, FAN_EVENTS, FAN_WORKFLOWS);
            s.windows.single.push(single);
            s.windows.fan.push(fan);
            line.push(`${s.name} ${single.perSecond.toFixed(0)} / ${fan.perSecond.toFixed(0)}`);
          }
          console.log(`  · window ${w + 1}, runs/s HTTP → workflow / fan-out: ${line.join(", ")}`);
        }
        for (const s of systems) {
          for (const [label, key] of kinds) {
            const ws = s.windows[key];
            const rate = median(ws.map((x) => x.perSecond)).toFixed(0);
            const server = median(ws.map((x) => x.serverUs)).toFixed(0);
            const sandbox = median(ws.map((x) => x.sandboxUs)).toFixed(0);
            console.log(
              `  · ${s.name.padEnd(10)} ${label.padEnd(30)} median of ${WINDOWS} windows: ${rate.padStart(5)} runs/s, CPU per run: server ${server} µs, sandbox ${sandbox} µs`,
            );
          }
        }
        const base = systems[1];
        if (base) {
          // Each window's pair was measured back to back: the ratio of each pair, then their median.
          for (const [label, key] of kinds) {
            const pairs = own.windows[key].map((x, i) => x.perSecond / base.windows[key][i]!.perSecond);
            console.log(
              `  · ratio this build / baseline, runs/s, median of ${WINDOWS} window pairs, ${label}: ${median(pairs).toFixed(2)}`,
            );
          }
          await base.close();
          systems.pop();
        }
      },
    },
    {
      name: `request → answer: $.respond vs source, ${ROUNDS * 5} rounds`,
      iterations: 1,
      warmup: 0,
      run: async () => {
        const sides: Array<[string, string, number[]]> = [
          ["workflow step's $.respond", respondUrl, []],
          ["source's this.http.respond", customUrl, []],
        ];
        for (let r = 0; r < ROUNDS * 5 + 200; r++) {
          for (const [, url, times] of r % 2 ? [...sides].reverse() : sides) {
            const t0 = performance.now();
            await answered(url);
            if (r >= 200) times.push(performance.now() - t0);
          }
        }
        for (const [name, , times] of sides)
          console.log(`  · ${`endpoint request → ${name}`.padEnd(50)}${ms(times)}`);
        console.log(
          `  · ratio $.respond / this.http.respond, p50: ${(pct(sorted(sides[0]![2]), 0.5) / pct(sorted(sides[1]![2]), 0.5)).toFixed(2)}`,
        );
      },
    },
    {
      name: `GET a 50-step run vs /users/me, ${ROUNDS * 2} rounds`,
      iterations: 1,
      warmup: 0,
      run: async () => {
        // The floor: a bare node:http server of its own process sending the same bytes from memory.
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-bench-floor-"));
        const files = { "/run": path.join(dir, "run.json"), "/me": path.join(dir, "me.json") };
        fs.writeFileSync(files["/run"], await bytesOf(runPath));
        fs.writeFileSync(files["/me"], await bytesOf("/users/me"));
        const floor = await spawnStatic(files);
        const floorGet = (p: string) => async () => (await (await fetch(floor.origin + p)).arrayBuffer()).byteLength;
        const sides: Array<[string, () => Promise<number>, number[]]> = [
          [`GET /workflows/{id}/runs/{run_id}`, bareGet(runPath), []],
          ["GET /users/me", bareGet("/users/me"), []],
          ["floor: bare node:http, the run's bytes", floorGet("/run"), []],
          ["floor: bare node:http, /users/me's bytes", floorGet("/me"), []],
        ];
        let bytes = 0;
        try {
          for (let r = 0; r < ROUNDS * 2 + 20; r++) {
            for (const [name, get, times] of r % 2 ? [...sides].reverse() : sides) {
              const t0 = performance.now();
              const n = await get();
              if (r >= 20) times.push(performance.now() - t0);
              if (name === sides[0]![0]) bytes = n;
            }
          }
        } finally {
          floor.child.kill();
          fs.rmSync(dir, { recursive: true, force: true });
        }
        const ratio = (a: number, b: number) => (median(sides[a]![2]) / median(sides[b]![2])).toFixed(2);
        console.log(`  · the run's answer: ${(bytes / 1024).toFixed(0)} KB`);
        for (const [name, , times] of sides) console.log(`  · ${name.padEnd(50)}${ms(times, "median")}`);
        console.log(`  · ratio run detail / GET /users/me, median: ${ratio(0, 1)}`);
        // What the same bytes cost with nothing else in the way: the lowest ratio any server gets here.
        console.log(`  · ratio floor, the run's bytes / /users/me's bytes (bare server), median: ${ratio(2, 3)}`);
        console.log(`  · ratio run detail / floor for the same bytes, median: ${ratio(0, 2)}`);
      },
    },
  ];

  return {
    cases,
    teardown: async () => {
      for (const s of systems) await s.close();
      agent.destroy();
    },
  };
});
