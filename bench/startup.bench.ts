/**
 * Start-up (issue 20): what every CLI call and every restart pays, next to bare `node -e 0`, the
 * floor of any Node program, measured in the same rounds (alternating, one run):
 * - `headwater whoami` against a server already up: wall time from spawn to exit;
 * - the server: wall time from spawn to a 200 from GET /healthz (SQLite, a data dir reused, as
 *   a restart finds it);
 * - peak memory: max RSS of 3 runs of each command (/usr/bin/time, where installed); the
 *   server's peak RSS when it first answers healthy (/proc, Linux).
 * Ratios to `node -e 0` are what to compare across machines; the milliseconds depend on the
 * machine and its load.
 *
 * HEADWATER_BENCH_BASELINE=/path/to/another/checkout adds that checkout's bin and server to the
 * same rounds (an A/B against the previous build; a checkout from before the build step runs its
 * TypeScript through tsx, as it did). HEADWATER_BENCH_ROUNDS sets the rounds (default 15).
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { randomKey, REPO_ROOT, spawnServer, tempDataDir } from "../test/support/server.js";
import { defineBench } from "./harness.js";

const ROUNDS = Number(process.env.HEADWATER_BENCH_ROUNDS ?? 15);
const BASELINE = process.env.HEADWATER_BENCH_BASELINE;
const TIME = fs.existsSync("/usr/bin/time") ? "/usr/bin/time" : undefined;

interface Subject {
  name: string;
  /** argv after the node binary */
  args: string[];
  /** true: the server (timed to a healthy /healthz); false: a command timed to its exit. */
  server: boolean;
  env?: NodeJS.ProcessEnv;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? NaN;
};

function runToExit(s: Subject, env: NodeJS.ProcessEnv): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, s.args, { env, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) =>
    child.once("exit", (code) => (code === 0 ? resolve(performance.now() - t0) : reject(new Error(`${s.name} exited ${code}: ${err}`)))),
  );
}

const serverPeaks = new Map<string, number>();

async function runToHealthy(s: Subject, env: NodeJS.ProcessEnv, port: number): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, s.args, { env: { ...env, HEADWATER_PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  let exited = false;
  child.once("exit", () => (exited = true));
  try {
    for (;;) {
      if (exited) throw new Error(`${s.name} exited before it was healthy: ${err}`);
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
      if (ok) {
        const ms = performance.now() - t0;
        const mb = peakSoFarMb(child.pid);
        if (mb !== undefined) serverPeaks.set(s.name, Math.max(serverPeaks.get(s.name) ?? 0, mb));
        return ms;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill("SIGTERM");
    if (!exited) await new Promise((r) => child.once("exit", r));
  }
}

/** Max RSS in MB of a command run to its exit, by /usr/bin/time. */
function peakMb(s: Subject, env: NodeJS.ProcessEnv): number | undefined {
  if (!TIME) return undefined;
  const r = spawnSync(TIME, ["-f", "%M", process.execPath, ...s.args], { env, encoding: "utf8" });
  const kb = Number(/(\d+)\s*$/.exec(r.stderr)?.[1]);
  return Number.isFinite(kb) ? kb / 1024 : undefined;
}

/** A running process's peak RSS so far in MB (Linux), for the server once healthy. */
function peakSoFarMb(pid: number | undefined): number | undefined {
  try {
    const kb = Number(/VmHWM:\s*(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
    return Number.isFinite(kb) ? kb / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export default defineBench("startup", async () => {
  const apiKey = randomKey();
  const running = await spawnServer({ dataDir: tempDataDir(), apiKey });
  const serverDir = tempDataDir();
  const base: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" };
  for (const k of Object.keys(base)) if (k.startsWith("HEADWATER_")) delete base[k];
  const cliEnv = { ...base, HEADWATER_API_URL: running.baseUrl, HEADWATER_API_KEY: apiKey, HEADWATER_APP_DATA_DIR: tempDataDir() };
  const serverEnv = { ...base, HEADWATER_HOST: "127.0.0.1", HEADWATER_DATA_DIR: serverDir, HEADWATER_API_KEY: apiKey, HEADWATER_LOG_LEVEL: "warn" };

  const subjects: Subject[] = [
    { name: "node -e 0", args: ["-e", "0"], server: false },
    { name: "headwater whoami", args: [path.join(REPO_ROOT, "cli/bin.mjs"), "whoami"], server: false },
    { name: "server: start to healthy", args: [path.join(REPO_ROOT, "scripts/run-built.mjs"), "server"], server: true },
  ];
  if (BASELINE) {
    const built = fs.existsSync(path.join(BASELINE, "scripts/run-built.mjs"));
    subjects.push(
      { name: "baseline: headwater whoami", args: [path.join(BASELINE, "cli/bin.mjs"), "whoami"], server: false },
      {
        name: "baseline: server",
        args: built ? [path.join(BASELINE, "scripts/run-built.mjs"), "server"] : ["--import", "tsx", path.join(BASELINE, "server/main.ts")],
        server: true,
      },
    );
  }

  // A first run of each, untimed: the server's data dir migrated, the build checked.
  let port = 0;
  const freePort = () => 17_000 + (port++ % 500);
  for (const s of subjects) {
    if (s.server) await runToHealthy(s, { ...serverEnv, ...s.env }, freePort());
    else await runToExit(s, { ...cliEnv, ...s.env });
  }
  const times = new Map<string, number[]>(subjects.map((s) => [s.name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    for (const s of subjects) {
      const ms = s.server ? await runToHealthy(s, { ...serverEnv, ...s.env }, freePort()) : await runToExit(s, { ...cliEnv, ...s.env });
      times.get(s.name)!.push(ms);
    }
  }
  const peaks = new Map(serverPeaks);
  for (let i = 0; i < 3; i++) {
    for (const s of subjects.filter((x) => !x.server)) {
      const mb = peakMb(s, { ...cliEnv, ...s.env });
      if (mb !== undefined) peaks.set(s.name, Math.max(peaks.get(s.name) ?? 0, mb));
    }
  }

  const floor = median(times.get("node -e 0")!);
  console.log(`  · ${ROUNDS} rounds, alternating; wall time median (min); peak RSS${TIME ? "" : " (commands: /usr/bin/time is not installed)"}`);
  for (const s of subjects) {
    const xs = times.get(s.name)!;
    const m = median(xs);
    const peak = peaks.get(s.name);
    console.log(
      `  · ${s.name.padEnd(30)} ${m.toFixed(0).padStart(6)} ms (${Math.min(...xs).toFixed(0)})  ${(m / floor).toFixed(2).padStart(6)} x node -e 0${peak === undefined ? "" : `   peak ${peak.toFixed(0)} MB`}`,
    );
  }
  return {
    cases: [],
    teardown: async () => {
      await running.stop();
      fs.rmSync(serverDir, { recursive: true, force: true });
    },
  };
});
