/**
 * Execution controls (decisions.md "Execution controls"), run by `npm run bench controls`: each
 * figure beside its baseline measured in the same run, on the built server in a process of its
 * own (SQLite), every server started with HEADWATER_SANDBOX_MAX_PROCESSES=12 (runs at once on one
 * server are bounded by its sandbox processes too: 4 by default on 2 cores, fewer than the 10
 * measured in 1):
 * 1. `concurrency`: 100 events to a workflow whose one step waits 700 ms, at `concurrency: 10`,
 *    from the first request to the last run's end, against the ideal 100 × 700 ms / 10 = 7 s
 *    (target ≤ 1.3 ×); beside it, in the same rounds, 20 events at `concurrency: 1` (the whole
 *    100 would take 70 s), reported per run against 700 ms. Rounds alternate which goes first;
 *    the most runs seen running at once is printed too.
 * 2. Waiting runs cost nothing while they wait: a server holding HEADWATER_BENCH_HELD (10,000)
 *    runs `delayed` for an hour (a step's `return $.flow.delay(3_600_000)`, one POST each) beside
 *    one that ran as many runs of the same workflow without the delay (the same history, nothing
 *    waiting): the server process's CPU time over the same idle windows and its RSS (ratios at the
 *    median of the windows); then the runs/s of a two-step workflow on each, windows interleaved
 *    (the ratio at the median of the window pairs);
 *    then resumption: 1,000 runs delayed to due times 20 ms apart, on both servers at once, and
 *    1,000 due at the same moment, on one after the other: how long after its due time each
 *    run's second step started (`steps[1].started_at_ms` − `steps[0].return_value.resume_at_ms`,
 *    from the runs API), p50 / p99. Target: within a second of due.
 * 3. Throughput at `concurrency: 1` without retries: HTTP → a two-step workflow, runs/s, against
 *    each checkout listed in HEADWATER_BENCH_BASELINE (comma-separated; skipped without it), the
 *    builds taking turns window by window, each window after a rest. Target ≥ 0.9 at the median
 *    of the window pairs (each window's ratio, the two measured one after the other).
 *       git worktree add --detach /tmp/hw-baseline 0ebea1d          # before workflow runs
 *       git worktree add --detach /tmp/hw-before-controls d9643b2   # 4aad471^: runs, no controls
 *       for d in /tmp/hw-baseline /tmp/hw-before-controls; do
 *         ln -s "$PWD/node_modules" $d/node_modules; (cd $d && node scripts/build.mjs); done
 *       HEADWATER_BENCH_BASELINE=/tmp/hw-baseline,/tmp/hw-before-controls npm run bench controls
 * Knobs: HEADWATER_BENCH_THIS=<checkout> (the build measured as this one, e.g. a clean worktree of
 * HEAD while the working tree has changes not committed; default this checkout, built if stale),
 * HEADWATER_BENCH_PARTS (which of 1,2,3 to run, default all), HEADWATER_BENCH_ROUNDS
 * (rounds of 1, default 3), HEADWATER_BENCH_WINDOWS (windows of 3 and of 2's idle and runs/s,
 * default 5 and 3), HEADWATER_BENCH_HELD (runs held in 2, default 10000),
 * HEADWATER_BENCH_CPU_PROF=<dir> (CPU profiles of the servers, one directory per server).
 * Every ratio is printed once, named with its statistic.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { SQLite, type SqliteStatement } from "../shared/sqlite-native.js";
import { step } from "../test/delivery/helpers.js";
import { randomKey, spawnServer, tempDataDir, type SpawnedServer } from "../test/support/server.js";
import { defineBench, type BenchCase } from "./harness.js";
import { TWO_STEPS, workflowRuns } from "./workflow-probes.js";
import { agent, ensureBenchBuild, median, pct, postJson, processCpuSeconds } from "./event-probes.js";

const PARTS = new Set((process.env.HEADWATER_BENCH_PARTS ?? "1,2,3").split(",").map((s) => s.trim()));
const ROUNDS = Number(process.env.HEADWATER_BENCH_ROUNDS ?? 3);
const WINDOWS = process.env.HEADWATER_BENCH_WINDOWS ? Number(process.env.HEADWATER_BENCH_WINDOWS) : undefined;
const HELD = Number(process.env.HEADWATER_BENCH_HELD ?? 10_000);
const PROF = process.env.HEADWATER_BENCH_CPU_PROF;
/** The checkout measured as "this build" (default this one, built first if stale). */
const THIS = process.env.HEADWATER_BENCH_THIS ? path.resolve(process.env.HEADWATER_BENCH_THIS) : undefined;
const MAX_PROCESSES = "12";

/** 1: the step's wait, the events at each concurrency. */
const STEP_MS = 700;
const C10_EVENTS = 100;
const C1_EVENTS = 20;
/** 2: idle windows, resumption's runs and their spacing. */
const IDLE_SECONDS = 10;
const RESUMED = 1000;
const STAGGER_MS = 20;
/** 2 and 3: runs per window of runs/s, requests in flight, the rest before each window. */
const RATE_RUNS = 600;
const IN_FLIGHT = 32;
const REST_MS = 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const f = (n: number, digits = 2) => n.toFixed(digits);

interface Hw {
  name: string;
  server: SpawnedServer;
  dataDir: string;
  apiKey: string;
  /** A bare JSON call with the admin key (a baseline's answers need not meet this checkout's schemas). */
  call: <T>(method: string, path: string, body?: unknown) => Promise<T>;
  /** Jobs of one target, counted on the server's database from this process, read-only. */
  jobsOf: (target: string) => number;
  /** The queue as the database has it (jobs by target, how soon the first is due, leases): for a stuck bench's error. */
  queueState: () => string;
  stop: () => Promise<void>;
}

const live = new Set<Hw>();

/** The built server of this build (or of `root`), with the daily quota out of the way. */
async function startHw(name: string, root = THIS): Promise<Hw> {
  if (!root) await ensureBenchBuild();
  const dataDir = tempDataDir();
  const apiKey = randomKey();
  const label = name.replace(/[^\w.-]+/g, "-");
  const server = await spawnServer({
    dataDir,
    apiKey,
    ...(root ? { root } : {}),
    ...(PROF ? { nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${path.join(PROF, label)}`] } : {}),
    env: {
      HEADWATER_LOG_LEVEL: "error",
      HEADWATER_EVENT_RETENTION: "1000000",
      HEADWATER_DAILY_INVOCATIONS_QUOTA: "1000000000",
      HEADWATER_SANDBOX_MAX_PROCESSES: MAX_PROCESSES,
    },
  });
  const db = new SQLite(`${dataDir}/headwater.db`, { readonly: true });
  const count: SqliteStatement = db.prepare("select count(*) as n from jobs where target_id = ?");
  const hw: Hw = {
    name,
    server,
    dataDir,
    apiKey,
    call: async <T>(method: string, p: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${server.baseUrl}${p}`, {
        method,
        headers: {
          authorization: `Bearer ${apiKey}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${name}: ${method} ${p}: ${res.status} ${text.slice(0, 500)}`);
      return (text ? (JSON.parse(text) as { data: T }).data : undefined) as T;
    },
    jobsOf: (target) => (count.get(target) as { n: number }).n,
    queueState: () =>
      JSON.stringify(
        db
          .prepare(
            "select j.target_id, count(*) as jobs, min(j.run_after) - ? as first_due_in_ms, t.lease_owner, t.lease_until - ? as lease_left_ms from jobs j left join job_targets t on t.target_id = j.target_id group by j.target_id",
          )
          .all(Date.now(), Date.now()),
      ),
    stop: async () => {
      live.delete(hw);
      db.close();
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  live.add(hw);
  return hw;
}

interface Workflow {
  id: string;
  endpoint_url: string;
}

interface RunRecord {
  id: string;
  status: string;
  started_at_ms: number | null;
  ended_at_ms: number | null;
  steps: Array<{ started_at_ms: number | null; return_value: unknown; exports: Record<string, unknown> }>;
  error: { code: string; message: string } | null;
}

interface RunPage {
  data: RunRecord[];
  page_info: { total_count: number; end_cursor: string | null };
}

/** The page itself (`call` unwraps `data`). */
async function runPage(hw: Hw, wf: string, query: string): Promise<RunPage> {
  const res = await fetch(`${hw.server.baseUrl}/workflows/${wf}/runs?${query}`, {
    headers: { authorization: `Bearer ${hw.apiKey}` },
  });
  if (!res.ok) throw new Error(`${hw.name}: runs of ${wf}: ${res.status} ${await res.text()}`);
  return (await res.json()) as RunPage;
}

const runsWith = async (hw: Hw, wf: string, status: string) =>
  (await runPage(hw, wf, `status=${status}&limit=1`)).page_info.total_count;

/** The workflow's `n` newest runs (newest first). */
async function newestRuns(hw: Hw, wf: string, n: number): Promise<RunRecord[]> {
  const out: RunRecord[] = [];
  let after: string | null = null;
  while (out.length < n) {
    const page: RunPage = await runPage(
      hw,
      wf,
      `limit=${Math.min(100, n - out.length)}${after ? `&after=${encodeURIComponent(after)}` : ""}`,
    );
    out.push(...page.data);
    after = page.page_info.end_cursor;
    if (!after || page.data.length === 0) break;
  }
  return out;
}

/** Polls `done` until it holds; fails after `withinMs` saying what it waited for. */
async function until(
  what: string,
  done: () => Promise<boolean> | boolean,
  withinMs: number,
  everyMs = 100,
): Promise<void> {
  const deadline = performance.now() + withinMs;
  while (!(await done())) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${withinMs / 1000} s`);
    await sleep(everyMs);
  }
}

/** `n` POSTs of `body(i)` to `url`, IN_FLIGHT at once; fails if any is not answered 200. */
async function send(
  url: string,
  n: number,
  body: (i: number) => unknown,
  inFlight = IN_FLIGHT,
): Promise<void> {
  let next = 0;
  const refused: number[] = [];
  const worker = async () => {
    while (next < n) {
      const i = next++;
      const status = await postJson(url, JSON.stringify(body(i)));
      if (status !== 200) refused.push(status);
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, n) }, worker));
  if (refused.length > 0)
    throw new Error(
      `${url}: ${refused.length} of ${n} requests refused (${[...new Set(refused)].join(", ")})`,
    );
}

/**
 * Runs per second of one window: `requests` POSTs to the workflow's endpoint, IN_FLIGHT at once,
 * from the first request until its target has no job left (a run's job is deleted in the
 * transaction that stores its results), counted every 2 ms on the database, read-only (polling
 * `/metrics` as often costs the server CPU). The runs counted on `/metrics` must match.
 */
async function runsPerSecond(hw: Hw, wf: Workflow, requests: number): Promise<number> {
  const before = await workflowRuns(hw);
  const t0 = performance.now();
  await send(wf.endpoint_url, requests, (i) => ({ i, pad: "x".repeat(64) }));
  const deadline = performance.now() + 180_000;
  for (;;) {
    const left = hw.jobsOf(wf.id);
    if (left === 0) break;
    if (performance.now() > deadline) throw new Error(`${hw.name}: ${left} jobs left after 180 s`);
    await sleep(2);
  }
  const elapsed = performance.now() - t0;
  const after = await workflowRuns(hw);
  if (after.failed > before.failed)
    throw new Error(`${hw.name}: ${after.failed - before.failed} runs failed`);
  if (after.ok - before.ok !== requests)
    throw new Error(`${hw.name}: ${after.ok - before.ok} runs of ${requests}`);
  return (requests * 1000) / elapsed;
}

/** A build's short commit (for the report), or its path when it is not a git checkout. */
function buildOf(root: string): string {
  try {
    return execFileSync("git", ["-C", root, "log", "-1", "--format=%h"], { encoding: "utf8" }).trim();
  } catch {
    return root;
  }
}

// ---------------------------------------------------------------------------------------------
// 1. concurrency

interface Batch {
  /** First request → last run's end. */
  elapsedMs: number;
  /** The most runs running at once. */
  peak: number;
}

/** `n` events to the workflow, until its `n` newest runs have all ended well. */
async function batch(hw: Hw, wf: Workflow, n: number): Promise<Batch> {
  const before = await runsWith(hw, wf.id, "success");
  const t0 = Date.now();
  await send(wf.endpoint_url, n, (i) => ({ i }));
  await until(
    `${n} runs of ${wf.id}`,
    async () => (await runsWith(hw, wf.id, "success")) >= before + n,
    300_000,
    50,
  );
  const runs = await newestRuns(hw, wf.id, n);
  if (
    runs.length !== n ||
    runs.some((r) => r.status !== "success" || r.started_at_ms === null || r.ended_at_ms === null)
  )
    throw new Error(`${hw.name}: of the ${n} newest runs of ${wf.id}, not all ended well`);
  const edges = runs
    .flatMap((r): Array<[number, number]> => [
      [r.started_at_ms!, 1],
      [r.ended_at_ms!, -1],
    ])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let peak = 0;
  for (const [, d] of edges) peak = Math.max(peak, (now += d));
  return { elapsedMs: Math.max(...runs.map((r) => r.ended_at_ms!)) - t0, peak };
}

async function concurrencyPart(): Promise<void> {
  const hw = await startHw("concurrency");
  try {
    const waits = [
      { name: "wait", code: step(`await new Promise((r) => setTimeout(r, ${STEP_MS})); return Date.now();`) },
    ];
    const c10 = await hw.call<Workflow>("POST", "/workflows", { name: "c10", concurrency: 10, steps: waits });
    const c1 = await hw.call<Workflow>("POST", "/workflows", { name: "c1", concurrency: 1, steps: waits });
    // Unmeasured: the sandbox processes started, the JIT's first runs.
    await batch(hw, c10, 20);
    await batch(hw, c1, 2);
    const tens: Batch[] = [];
    const ones: Batch[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const sides: Array<() => Promise<void>> = [
        async () => void tens.push(await batch(hw, c10, C10_EVENTS)),
        async () => void ones.push(await batch(hw, c1, C1_EVENTS)),
      ];
      for (const side of r % 2 ? [...sides].reverse() : sides) {
        await sleep(REST_MS);
        await side();
      }
      console.log(
        `  · round ${r + 1}: concurrency 10, ${C10_EVENTS} runs in ${f(tens.at(-1)!.elapsedMs / 1000)} s (at most ${tens.at(-1)!.peak} at once); concurrency 1, ${C1_EVENTS} runs in ${f(ones.at(-1)!.elapsedMs / 1000)} s, ${f(ones.at(-1)!.elapsedMs / C1_EVENTS, 0)} ms a run (at most ${ones.at(-1)!.peak} at once)`,
      );
    }
    const ideal10 = (C10_EVENTS * STEP_MS) / 10;
    const t10 = median(tens.map((b) => b.elapsedMs));
    const per1 = median(ones.map((b) => b.elapsedMs / C1_EVENTS));
    console.log(
      `  · concurrency 10: ${C10_EVENTS} runs of a ${STEP_MS} ms step in ${f(t10 / 1000)} s, median of ${ROUNDS} rounds (ideal ${f(ideal10 / 1000)} s)`,
    );
    console.log(
      `  · concurrency 1: ${f(per1, 0)} ms a run, median of ${ROUNDS} rounds of ${C1_EVENTS} (${f((per1 * C10_EVENTS) / 1000, 1)} s for ${C10_EVENTS}; ideal ${STEP_MS} ms)`,
    );
    console.log(
      `  · ratio concurrency 10 time for ${C10_EVENTS} runs / ideal ${f(ideal10 / 1000)} s, median of rounds: ${f(t10 / ideal10)}`,
    );
    console.log(
      `  · ratio concurrency 1 time per run / ${STEP_MS} ms, median of rounds: ${f(per1 / STEP_MS)}`,
    );
    console.log(
      `  · ratio concurrency 1 / concurrency 10 time per run (ideal 10), median of rounds: ${f(per1 / (t10 / C10_EVENTS))}`,
    );
  } finally {
    await hw.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 2. waiting runs

/** Resident memory of a process, MB (from /proc; NaN where there is none). */
function rssMb(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** The process and all its descendants (the sandbox workers). */
function tree(pid: number): number[] {
  const out = [pid];
  try {
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      const kids = fs.readFileSync(`/proc/${pid}/task/${task}/children`, "utf8").trim();
      for (const k of kids ? kids.split(" ") : []) out.push(...tree(Number(k)));
    }
  } catch {
    // gone meanwhile
  }
  return out;
}

/**
 * One step that waits `body.ms` when given (`$.flow.delay`), then a second: the same workflow
 * holds runs on one server and runs them through on the other.
 */
const HOLDING = [
  {
    name: "hold",
    code: step(`const ms = steps.trigger.event.body.ms; if (ms) return $.flow.delay(ms); return null;`),
  },
  { name: "then", code: step(`return Date.now();`) },
];

/** Waits until `body.due` (epoch ms), then a second step: resumption's lateness. */
const DUE = [
  {
    name: "hold",
    code: step(
      `const due = steps.trigger.event.body.due; $.export("due", due); return $.flow.delay(Math.max(1, due - Date.now()));`,
    ),
  },
  { name: "then", code: step(`return Date.now();`) },
];

interface Lateness {
  /** ms after due that each run's second step started. */
  lags: number[];
  /** Runs whose first step ran after their due time already (not counted). */
  late: number;
  /** The first due time → the last second step's start. */
  spanMs: number;
}

/** Sends the runs their due times; resolves once they have all ended, with how late each went on. */
async function resumption(hw: Hw, wf: Workflow, dues: number[]): Promise<Lateness> {
  const before = await runsWith(hw, wf.id, "success");
  await send(wf.endpoint_url, dues.length, (i) => ({ due: dues[i] }));
  await until(
    `${dues.length} resumed runs on ${hw.name}`,
    async () => (await runsWith(hw, wf.id, "success")) >= before + dues.length,
    Math.max(...dues) - Date.now() + 180_000,
    250,
  ).catch(async (err: unknown) => {
    const page = await runPage(hw, wf.id, "limit=100");
    const statuses: Record<string, number> = {};
    for (const r of page.data) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    const failed = page.data.find((r) => r.error)?.error;
    throw new Error(
      `${String(err)}; the newest 100 runs: ${JSON.stringify(statuses)}${failed ? ` (${failed.code}: ${failed.message})` : ""}; the queue: ${hw.queueState()}`,
    );
  });
  const runs = await newestRuns(hw, wf.id, dues.length);
  const lags: number[] = [];
  let late = 0;
  let last = 0;
  for (const r of runs) {
    const resumeAt = (r.steps[0]!.return_value as { resume_at_ms: number }).resume_at_ms;
    const started = r.steps[1]!.started_at_ms!;
    last = Math.max(last, started);
    if (resumeAt - Number(r.steps[0]!.exports.due) > 20) late += 1;
    else lags.push(started - resumeAt);
  }
  return { lags: sorted(lags), late, spanMs: last - Math.min(...dues) };
}

const lateness = (l: Lateness) =>
  `p50 ${f(pct(l.lags, 0.5), 0)} ms, p99 ${f(pct(l.lags, 0.99), 0)} ms, max ${f(l.lags.at(-1) ?? NaN, 0)} ms (${l.lags.length} runs${l.late ? `; ${l.late} created after their due time, not counted` : ""})`;

async function waitingPart(): Promise<void> {
  const held = await startHw("holding");
  const none = await startHw("none waiting");
  try {
    const servers = [held, none];
    const holding = new Map<Hw, Workflow>();
    for (const hw of servers)
      holding.set(hw, await hw.call<Workflow>("POST", "/workflows", { name: "holding", steps: HOLDING }));
    // The same history on both, in turns of 1,000: HELD runs delayed for an hour on one, as many
    // run through on the other.
    const took = new Map<Hw, number>(servers.map((hw) => [hw, 0]));
    const heldChunks: number[] = [];
    for (let sent = 0; sent < HELD; sent += 1000) {
      const n = Math.min(1000, HELD - sent);
      for (const hw of servers) {
        const t0 = performance.now();
        const wf = holding.get(hw)!;
        await send(wf.endpoint_url, n, () => ({ ms: hw === held ? 3_600_000 : 0 }));
        // Counted on the database (the runs API polled as often costs the server CPU; and of the
        // runs run through, the workflow keeps its newest 1,000): none left to run, and on the
        // holding server as many waiting under wl_.
        await until(
          `${sent + n} runs ${hw === held ? "delayed" : "through"} on ${hw.name}`,
          () => hw.jobsOf(wf.id) === 0 && (hw !== held || hw.jobsOf(`wl_${wf.id}`) >= sent + n),
          300_000,
          20,
        );
        took.set(hw, took.get(hw)! + performance.now() - t0);
        if (hw === held) heldChunks.push((n * 1000) / (performance.now() - t0));
      }
    }
    const heldRate = (HELD * 1000) / took.get(held)!;
    console.log(
      `  · ${HELD} runs made delayed in ${f(took.get(held)! / 1000, 1)} s (${f(heldRate, 0)} runs/s; the first 1,000 at ${f(heldChunks[0]!, 0)}, the last at ${f(heldChunks.at(-1)!, 0)} runs/s); as many run through on the other server in ${f(took.get(none)! / 1000, 1)} s`,
    );
    const heldNow = await runsWith(held, holding.get(held)!.id, "delayed");
    const jobsHeld = held.jobsOf(`wl_${holding.get(held)!.id}`);
    console.log(`  · holding: ${heldNow} runs delayed, ${jobsHeld} jobs under wl_${holding.get(held)!.id}`);

    // Idle: both servers over the same windows.
    const windows = WINDOWS ?? 3;
    const cpu = new Map<Hw, number[]>(servers.map((hw) => [hw, []]));
    const rss = new Map<Hw, number[]>(servers.map((hw) => [hw, []]));
    await sleep(3000);
    for (let w = 0; w < windows; w++) {
      const c0 = servers.map((hw) => processCpuSeconds(hw.server.child.pid));
      await sleep(IDLE_SECONDS * 1000);
      servers.forEach((hw, i) => {
        cpu.get(hw)!.push(processCpuSeconds(hw.server.child.pid) - c0[i]!);
        rss.get(hw)!.push(rssMb(hw.server.child.pid));
      });
      console.log(
        `  · idle window ${w + 1} (${IDLE_SECONDS} s): ${servers.map((hw) => `${hw.name} ${f(cpu.get(hw)!.at(-1)! * 1000, 0)} ms CPU, ${f(rss.get(hw)!.at(-1)!, 0)} MB RSS`).join("; ")}`,
      );
    }
    for (const hw of servers) {
      const pids = tree(hw.server.child.pid!);
      const all = pids.reduce((n, p) => n + rssMb(p), 0);
      console.log(
        `  · ${hw.name}: server and its ${pids.length - 1} sandbox processes ${f(all, 0)} MB RSS in all`,
      );
    }
    const cpuMed = (hw: Hw) => median(cpu.get(hw)!);
    console.log(
      `  · idle CPU, median of ${windows} windows of ${IDLE_SECONDS} s: holding ${f((cpuMed(held) * 100) / IDLE_SECONDS)} %, none waiting ${f((cpuMed(none) * 100) / IDLE_SECONDS)} % of a core`,
    );
    console.log(
      `  · ratio idle CPU holding ${HELD} delayed runs / none waiting, median of windows: ${f(cpuMed(held) / cpuMed(none))}`,
    );
    console.log(
      `  · ratio RSS holding ${HELD} delayed runs / none waiting, median of windows: ${f(median(rss.get(held)!) / median(rss.get(none)!))}`,
    );

    // Working while they wait: a two-step workflow's runs/s on each.
    const two = new Map<Hw, Workflow>();
    for (const hw of servers)
      two.set(hw, await hw.call<Workflow>("POST", "/workflows", { name: "two steps", steps: TWO_STEPS }));
    for (const hw of servers) await runsPerSecond(hw, two.get(hw)!, RATE_RUNS);
    const rates = new Map<Hw, number[]>(servers.map((hw) => [hw, []]));
    for (let w = 0; w < windows; w++) {
      for (const hw of w % 2 ? [...servers].reverse() : servers) {
        await sleep(REST_MS);
        rates.get(hw)!.push(await runsPerSecond(hw, two.get(hw)!, RATE_RUNS));
      }
      console.log(
        `  · runs/s window ${w + 1}: ${servers.map((hw) => `${hw.name} ${f(rates.get(hw)!.at(-1)!, 0)}`).join(", ")}`,
      );
    }
    console.log(
      `  · ratio runs/s of a two-step workflow, holding ${HELD} delayed runs / none waiting, median of ${windows} window pairs: ${f(median(rates.get(held)!.map((r, i) => r / rates.get(none)![i]!)))}`,
    );

    // Resumption: staggered on both at once (a light load), then a burst due together on each in turn.
    // A workflow per set of runs: each keeps its newest 1,000 runs (HEADWATER_RUN_RETENTION).
    const dueWorkflow = (hw: Hw, name: string) =>
      hw.call<Workflow>("POST", "/workflows", { name, steps: DUE });
    const lead = () => Math.round(Date.now() + 5000 + (2 * RESUMED * 1000) / Math.min(heldRate, 1000 / 3));
    const base = lead();
    const staggered = await Promise.all(
      servers.map(async (hw) =>
        resumption(
          hw,
          await dueWorkflow(hw, "due in turn"),
          Array.from({ length: RESUMED }, (_, i) => base + i * STAGGER_MS),
        ),
      ),
    );
    servers.forEach((hw, i) =>
      console.log(
        `  · ${hw.name}: ${RESUMED} runs due ${STAGGER_MS} ms apart, second step started after due: ${lateness(staggered[i]!)}`,
      ),
    );
    const bursts: Lateness[] = [];
    for (const hw of servers) {
      await sleep(REST_MS);
      const at = lead();
      bursts.push(
        await resumption(
          hw,
          await dueWorkflow(hw, "due at once"),
          Array.from({ length: RESUMED }, () => at),
        ),
      );
      console.log(
        `  · ${hw.name}: ${RESUMED} runs due at once, second step started after due: ${lateness(bursts.at(-1)!)}; the last went on ${f(bursts.at(-1)!.spanMs / 1000)} s after due`,
      );
    }
    console.log(
      `  · resumption ${STAGGER_MS} ms apart, holding ${HELD} delayed runs: p50 ${f(pct(staggered[0]!.lags, 0.5), 0)} ms, p99 ${f(pct(staggered[0]!.lags, 0.99), 0)} ms after due (target ≤ 1000 ms)`,
    );
    console.log(
      `  · ratio resumption lateness holding / none waiting, ${STAGGER_MS} ms apart, p99: ${f(pct(staggered[0]!.lags, 0.99) / pct(staggered[1]!.lags, 0.99))}`,
    );
  } finally {
    await held.stop();
    await none.stop();
  }
}

// ---------------------------------------------------------------------------------------------
// 3. throughput against the builds before

async function throughputPart(): Promise<void> {
  const roots = (process.env.HEADWATER_BENCH_BASELINE ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (roots.length === 0) {
    console.log("  · HEADWATER_BENCH_BASELINE not set: the throughput pairs are skipped");
    return;
  }
  const systems: Array<{ hw: Hw; wf: Workflow; rates: number[] }> = [];
  try {
    const own = await startHw(`this build ${buildOf(THIS ?? process.cwd())}`);
    systems.push({
      hw: own,
      wf: await own.call<Workflow>("POST", "/workflows", {
        name: "two steps",
        concurrency: 1,
        steps: TWO_STEPS,
      }),
      rates: [],
    });
    for (const root of roots) {
      const hw = await startHw(`baseline ${buildOf(root)}`, path.resolve(root));
      // A build before the controls takes no `concurrency`: its one way is concurrency 1.
      systems.push({
        hw,
        wf: await hw.call<Workflow>("POST", "/workflows", { name: "two steps", steps: TWO_STEPS }),
        rates: [],
      });
    }
    // Unmeasured: the JIT's first thousands of requests, runs and commits.
    for (const s of systems) await runsPerSecond(s.hw, s.wf, RATE_RUNS * 2);
    const windows = WINDOWS ?? 5;
    for (let w = 0; w < windows; w++) {
      // Each build goes first in turn.
      const order = systems.map((_, i) => systems[(i + w) % systems.length]!);
      for (const s of order) {
        await sleep(REST_MS);
        s.rates.push(await runsPerSecond(s.hw, s.wf, RATE_RUNS));
      }
      console.log(
        `  · window ${w + 1}, runs/s: ${systems.map((s) => `${s.hw.name} ${f(s.rates.at(-1)!, 0)}`).join(", ")}`,
      );
    }
    for (const s of systems)
      console.log(
        `  · ${s.hw.name}: HTTP → two-step workflow at concurrency 1, ${f(median(s.rates), 0)} runs/s, median of ${windows} windows`,
      );
    const own0 = systems[0]!;
    for (const s of systems.slice(1))
      console.log(
        `  · ratio runs/s ${own0.hw.name} / ${s.hw.name}, HTTP → two-step workflow at concurrency 1, median of ${windows} window pairs: ${f(median(own0.rates.map((r, i) => r / s.rates[i]!)))}`,
      );
  } finally {
    for (const s of systems) await s.hw.stop();
  }
}

export default defineBench("controls", async () => {
  console.log(
    `  · Node ${process.version}; this build: ${THIS ? `${THIS} at ${buildOf(THIS)}` : `this checkout at ${buildOf(process.cwd())} (and what is not committed)`}; every server with HEADWATER_SANDBOX_MAX_PROCESSES=${MAX_PROCESSES}`,
  );
  const parts: Array<[string, string, () => Promise<void>]> = [
    [
      "1",
      `concurrency 10 vs 1: ${C10_EVENTS} and ${C1_EVENTS} runs of a ${STEP_MS} ms step, ${ROUNDS} rounds`,
      concurrencyPart,
    ],
    ["2", `${HELD} delayed runs: idle CPU, RSS, runs/s, resumption`, waitingPart],
    ["3", "runs/s at concurrency 1 vs the builds before", throughputPart],
  ];
  const cases: BenchCase[] = parts
    .filter(([id]) => PARTS.has(id))
    .map(([, name, run]) => ({ name, run, iterations: 1, warmup: 0 }));
  return {
    cases,
    teardown: async () => {
      for (const hw of [...live]) await hw.stop();
      agent.destroy();
    },
  };
});
