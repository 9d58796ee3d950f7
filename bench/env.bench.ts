/**
 * Environment variables, run by `npm run bench env`: what a user's 200 variables cost their runs.
 * One built server (its own process, SQLite), two users with the same two-step workflow
 * (bench/workflow-probes.ts TWO_STEPS): one with no variables, one with 200 (half secret, so
 * each run's output also goes through a redactor of 100 values, and every worker is sent the
 * 200 once). HTTP → workflow runs per second, 1,000 requests a window, 32 in flight, until the
 * backlog has run; the two users take turns window by window (who goes first alternates), each
 * window after a rest. The ratio is the median of the windows' pairs (200 variables / none).
 * Goal ≥ 0.95.
 * Knobs: HEADWATER_BENCH_WINDOWS (windows per user, default 8: even, so each user goes first as often).
 */
import fs from "node:fs";
import { SQLite, type SqliteStatement } from "../shared/sqlite-native.js";
import { createClient } from "../shared/client/index.js";
import { defineBench } from "./harness.js";
import { agent, load, median, spawnBenchServer, type BenchServer } from "./event-probes.js";
import { cpuOfTree, TWO_STEPS, workflowRuns } from "./workflow-probes.js";

const WINDOWS = Number(process.env.HEADWATER_BENCH_WINDOWS ?? 8);
const RUNS = 1000;
const IN_FLIGHT = 32;
const REST_MS = 1000;
const VARIABLES = 200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Side {
  label: string;
  url: string;
  rates: number[];
  /** CPU per run (µs), the server's and its sandbox workers' together. */
  cpu: number[];
}

/**
 * One window: runs per second, from the first request until no invocation job is left, and the
 * CPU per run of the server and its workers (from /proc: far less at the mercy of what else runs
 * on the machine than a rate is).
 */
async function window(
  hw: BenchServer,
  jobs: SqliteStatement,
  side: Side,
): Promise<{ rate: number; cpuUs: number }> {
  const before = await workflowRuns(hw);
  const cpu0 = cpuOfTree(hw.server.child.pid);
  const t0 = performance.now();
  const acknowledged = await load(side.url, RUNS, IN_FLIGHT);
  if (acknowledged < RUNS)
    throw new Error(`${side.label}: ${RUNS - acknowledged} of ${RUNS} requests refused`);
  const deadline = performance.now() + 120_000;
  while ((jobs.get() as { n: number }).n > 0) {
    if (performance.now() > deadline) throw new Error(`${side.label}: jobs left after 120 s`);
    await sleep(2);
  }
  const elapsed = performance.now() - t0;
  const cpu1 = cpuOfTree(hw.server.child.pid);
  const after = await workflowRuns(hw);
  if (after.failed > before.failed)
    throw new Error(`${side.label}: ${after.failed - before.failed} runs failed`);
  if (after.ok - before.ok !== RUNS)
    throw new Error(`${side.label}: ${after.ok - before.ok} runs of ${RUNS}`);
  const cpu = cpu1.server + cpu1.sandbox - (cpu0.server + cpu0.sandbox);
  return { rate: (RUNS * 1000) / elapsed, cpuUs: (cpu * 1e6) / RUNS };
}

/** A user of the server with the two-step workflow and `variables` variables; its endpoint. */
async function sideOf(hw: BenchServer, label: string, variables: number): Promise<Side> {
  const user = await hw.client.createUser({
    username: `bench-${label.replace(/\W+/g, "-")}`,
    email: `${label.replace(/\W+/g, "")}@bench.test`,
  });
  const client = createClient({ baseUrl: hw.server.baseUrl, apiKey: user.api_key! });
  for (let i = 0; i < variables; i++) {
    await client.setEnvVar(`VAR_${String(i).padStart(3, "0")}`, {
      value: `value-${i}-${"v".repeat(32)}`,
      secret: i % 2 === 0,
    });
  }
  const wf = await client.createWorkflow({ name: "two steps", steps: TWO_STEPS });
  return { label, url: wf.endpoint_url, rates: [], cpu: [] };
}

export default defineBench("env", async () => {
  const hw = await spawnBenchServer("env");
  const db = new SQLite(`${hw.dataDir}/headwater.db`, { readonly: true });
  const close = async () => {
    db.close();
    await hw.server.stop();
    fs.rmSync(hw.dataDir, { recursive: true, force: true });
  };
  let sides: Side[];
  try {
    sides = [await sideOf(hw, "none", 0), await sideOf(hw, `${VARIABLES} variables`, VARIABLES)];
  } catch (err) {
    await close();
    throw err;
  }
  const jobs = db.prepare("select count(*) as n from jobs");
  const [none, many] = sides as [Side, Side];
  return {
    cases: [
      {
        name: `runs/s: HTTP → two-step workflow, ${VARIABLES} variables vs none, ${WINDOWS} windows`,
        iterations: 1,
        warmup: 0,
        run: async () => {
          // Unmeasured: the JIT's first thousands of requests, runs and commits, for both.
          for (const side of sides) await window(hw, jobs, side);
          for (let w = 0; w < WINDOWS; w++) {
            for (const side of w % 2 ? [...sides].reverse() : sides) {
              await sleep(REST_MS);
              const { rate, cpuUs } = await window(hw, jobs, side);
              side.rates.push(rate);
              side.cpu.push(cpuUs);
            }
            const shown = sides.map(
              (s) => `${s.label} ${s.rates[w]!.toFixed(0)} (${s.cpu[w]!.toFixed(0)} µs CPU a run)`,
            );
            console.log(`  · window ${w + 1}, runs/s: ${shown.join(", ")}`);
          }
          for (const s of sides) {
            const rate = median(s.rates).toFixed(0);
            console.log(
              `  · ${s.label.padEnd(14)} median of ${WINDOWS} windows: ${rate} runs/s, ${median(s.cpu).toFixed(0)} µs CPU a run`,
            );
          }
          const pairs = many.rates.map((r, i) => r / none.rates[i]!);
          console.log(
            `  · ratio ${VARIABLES} variables / none, runs/s, median of ${WINDOWS} window pairs: ${median(pairs).toFixed(2)} (goal ≥ 0.95)`,
          );
          // The same question asked of the CPU a run costs (none / 200: 1 is no cost, below 1 a cost).
          const cpuPairs = none.cpu.map((c, i) => c / many.cpu[i]!);
          console.log(
            `  · ratio none / ${VARIABLES} variables, CPU a run (server + sandbox), median of ${WINDOWS} window pairs: ${median(cpuPairs).toFixed(2)}`,
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
