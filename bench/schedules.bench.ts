/**
 * Workflow schedules, run by `npm run bench schedules`: what 1,000 workflows on a one-minute
 * schedule cost. Two built servers (each its own process, SQLite) started together: one has 1,000
 * workflows of one step, each on `* * * * *` (UTC); the other has none. Over TICKS minute ticks:
 * - start lag: for each tick's runs, the run's start (`started_ms`) less the tick's due time
 *   (`event.scheduled_at_ms`), read from the server's database; p50, p99 and the last run, per
 *   tick and over all (goal: p99 under a second). All 1,000 runs of a tick are due at once, so
 *   the later ones wait for the earlier: the lag is the claim and the queue's.
 * - idle CPU between ticks: CPU seconds (server + sandbox workers, /proc) of each server over the
 *   same window, from 20 s after a tick to 5 s before the next (the runs of the tick done), as a
 *   ratio of the scheduled server to the idle one (goal: within 1.1).
 * Knobs: HEADWATER_BENCH_TICKS (default 2), HEADWATER_BENCH_WORKFLOWS (default 1000),
 * HEADWATER_BENCH_CPU_PROF (a directory: the scheduled server runs under --cpu-prof there),
 * HEADWATER_BENCH_BASELINE (another checkout, built: a third server of that build with the same
 * 1,000 workflows; this build's workflows then tick on even minutes and the baseline's on odd
 * ones, so the two take turns minute by minute under the same load of the machine, each measured
 * for TICKS ticks; the idle CPU is then this build's only).
 */
import fs from "node:fs";
import { createClient } from "../shared/client/index.js";
import { SQLite } from "../shared/sqlite-native.js";
import { defineBench } from "./harness.js";
import { agent, spawnBenchServer, type BenchServer } from "./event-probes.js";
import { cpuOfTree } from "./workflow-probes.js";

const TICKS = Number(process.env.HEADWATER_BENCH_TICKS ?? 2);
const WORKFLOWS = Number(process.env.HEADWATER_BENCH_WORKFLOWS ?? 1000);
const PROF = process.env.HEADWATER_BENCH_CPU_PROF;
const BASELINE = process.env.HEADWATER_BENCH_BASELINE;
const STEP = [
  {
    name: "tick",
    code: "export default defineComponent({ async run({ steps }) { return steps.trigger.event.scheduled_at_ms; } });",
  },
];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
const cpu = (hw: BenchServer) => {
  const c = cpuOfTree(hw.server.child.pid);
  return c.server + c.sandbox;
};

interface Lags {
  /** Due time → the run queued (its job inserted by the claim: `created_ms`, from the job's id). */
  queued: number[];
  /** Due time → the run started. */
  started: number[];
}

/** Each run's lags (ms), by the tick it ran for. */
function lagsByTick(hw: BenchServer): Map<number, Lags> {
  const db = new SQLite(`${hw.dataDir}/headwater.db`, { readonly: true });
  try {
    const rows = db
      .prepare("select created_ms, started_ms, event_json from runs where started_ms is not null")
      .all() as Array<{ created_ms: number; started_ms: number; event_json: string }>;
    const out = new Map<number, Lags>();
    for (const r of rows) {
      const due = (JSON.parse(r.event_json) as { scheduled_at_ms?: number }).scheduled_at_ms;
      if (due === undefined) continue;
      const lags = out.get(due) ?? { queued: [], started: [] };
      lags.queued.push(Number(r.created_ms) - due);
      lags.started.push(Number(r.started_ms) - due);
      out.set(due, lags);
    }
    return out;
  } finally {
    db.close();
  }
}

/** Resolves `ms` after the next minute starts. */
async function untilMinutePlus(ms: number): Promise<number> {
  const next = Math.ceil((Date.now() + 1) / 60_000) * 60_000;
  await sleep(next + ms - Date.now());
  return next;
}

/** Makes the workflows, each on `cron`, as a new user of the server. */
async function scheduleWorkflows(hw: BenchServer, cron: string): Promise<void> {
  const user = await hw.client.createUser({ username: "bench-schedules", email: "schedules@bench.test" });
  const client = createClient({ baseUrl: hw.server.baseUrl, apiKey: user.api_key! });
  for (let i = 0; i < WORKFLOWS; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, WORKFLOWS - i) }, (_, j) =>
        client.createWorkflow({ name: `every minute ${i + j}`, steps: STEP, schedules: [{ cron }] }),
      ),
    );
  }
}

const show = (l: number[]) =>
  `first ${(l[0] ?? NaN).toFixed(0)}, p50 ${quantile(l, 0.5).toFixed(0)}, p99 ${quantile(l, 0.99).toFixed(0)}, last ${(l.at(-1) ?? NaN).toFixed(0)} ms`;

/** Prints each measured tick's lags of a server, and their p99 over all. */
function reportLags(label: string, hw: BenchServer, measured: number[]): void {
  const lags = lagsByTick(hw);
  const all: Lags = { queued: [], started: [] };
  for (const [t, tick] of measured.entries()) {
    const l = lags.get(tick) ?? { queued: [], started: [] };
    const queued = l.queued.sort((a, b) => a - b);
    const started = l.started.sort((a, b) => a - b);
    all.queued.push(...queued);
    all.started.push(...started);
    console.log(
      `  · ${label} tick ${t + 1}: ${started.length} runs; queued ${show(queued)}; started ${show(started)}`,
    );
  }
  all.queued.sort((a, b) => a - b);
  all.started.sort((a, b) => a - b);
  console.log(
    `  · ${label} over ${measured.length} ticks: tick → run queued p99 ${quantile(all.queued, 0.99).toFixed(0)} ms; tick → run started p99 ${quantile(all.started, 0.99).toFixed(0)} ms (goal < 1000 ms)`,
  );
}

export default defineBench("schedules", async () => {
  const [busy, idle, base] = await Promise.all([
    spawnBenchServer("schedules", PROF ? { profDir: PROF } : {}),
    spawnBenchServer("schedules-idle"),
    BASELINE ? spawnBenchServer("schedules-baseline", { root: BASELINE }) : undefined,
  ]);
  const servers = base ? [busy, idle, base] : [busy, idle];
  const close = async () => {
    for (const hw of servers) {
      await hw.server.stop();
      fs.rmSync(hw.dataDir, { recursive: true, force: true });
    }
  };
  try {
    await scheduleWorkflows(busy, base ? "*/2 * * * *" : "* * * * *");
    if (base) await scheduleWorkflows(base, "1-59/2 * * * *");
  } catch (err) {
    await close();
    throw err;
  }
  return {
    cases: [
      {
        name: `${WORKFLOWS} workflows on a 1-minute schedule, ${TICKS} ticks`,
        iterations: 1,
        warmup: 0,
        run: async () => {
          // The first tick of each server after the setup is not measured (the JIT, the workers' first start).
          await untilMinutePlus(20_000);
          if (base) await untilMinutePlus(20_000);
          const cpuRatios: number[] = [];
          const measured: number[] = [];
          const measuredBase: number[] = [];
          while (measured.length < TICKS || (base && measuredBase.length < TICKS)) {
            const tick = await untilMinutePlus(20_000);
            if (base && (tick / 60_000) % 2 === 1) {
              measuredBase.push(tick);
              continue;
            }
            if (measured.length >= TICKS) continue;
            measured.push(tick);
            const b0 = cpu(busy);
            const i0 = cpu(idle);
            await sleep(tick + 55_000 - Date.now());
            const b = cpu(busy) - b0;
            const i = cpu(idle) - i0;
            cpuRatios.push(b / i);
            console.log(
              `  · idle window after tick ${measured.length} (35 s): CPU ${b.toFixed(3)} s with schedules, ${i.toFixed(3)} s without`,
            );
          }
          reportLags("this build", busy, measured);
          if (base) reportLags("baseline", base, measuredBase);
          const ratio = cpuRatios.reduce((a, b) => a + b, 0) / cpuRatios.length;
          console.log(
            `  · ratio idle CPU between ticks, ${WORKFLOWS} schedules / none, mean of ${cpuRatios.length} windows: ${ratio.toFixed(2)} (goal ≤ 1.10)`,
          );
        },
      },
    ],
    teardown: async () => {
      await close();
      agent.destroy();
    },
  };
});
