/**
 * Kernel limits on a worker (rlimits through prlimit), in both modes: CPU time and memory are
 * enforced by the kernel, not only by the host's timer and RSS watchdog. Skipped, saying why,
 * without prlimit (util-linux) or, for namespaces mode, without a working bwrap.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { bwrapWorks } from "../../server/runtime/sandbox/isolation.js";
import { kernelLimitsHere, TOOLS } from "../../server/runtime/sandbox/launch.js";
import { startupDataBytes } from "../../server/runtime/sandbox/node-runtime.js";
import { SandboxPool } from "../../server/runtime/sandbox/pool.js";
import { SandboxProcess } from "../../server/runtime/sandbox/process.js";
import { tempDataDir } from "./helpers.js";
import { runComponent } from "./sandbox-runner.js";

const bwrap = bwrapWorks();
if (!TOOLS.prlimit) console.log("isolation-limits: skipped: prlimit (util-linux) is not installed");
else if (!bwrap.works) console.log(`isolation-limits: namespaces mode skipped: ${bwrap.why}`);

describe.each(["process", "namespaces"] as const)("kernel limits, %s mode", (isolation) => {
  // Kernel limits need util-linux prlimit, and namespaces mode a working bwrap (.ci/run installs both).
  const skip = !TOOLS.prlimit || (isolation === "namespaces" && !bwrap.works);
  const dataDir = tempDataDir();
  const procs: SandboxProcess[] = [];
  const spawn = async (cpuSeconds: number) => {
    const proc = await SandboxProcess.spawn({
      memoryMb: 64,
      npmDir: path.join(dataDir, "npm"),
      tmpRoot: path.join(dataDir, "sandbox"),
      isolation,
      kernelLimitsForTests: { cpuSeconds },
    });
    procs.push(proc);
    return proc;
  };
  afterAll(() => {
    for (const p of procs) p.kill();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it.skipIf(skip)(
    "stops a busy loop at its CPU time, long before the host's own limit",
    async () => {
      const proc = await spawn(2);
      // The host would wait 10 minutes: only the kernel can end this run within the test's time.
      const run = await runComponent(proc, `export default { async run() { for (;;) {} } }`, {}, 600_000);
      expect(run.outcome).toEqual({ kind: "timeout" });
      expect(proc.alive).toBe(false);
    },
    90_000,
  );

  it.skipIf(skip)(
    "refuses an allocation beyond its data limit, which the RSS watchdog cannot see",
    async () => {
      const proc = await spawn(60);
      // 1.5 GiB reserved at once and never touched: resident memory stays small, the kernel says no.
      const code = `export default { async run() {
      try { const b = Buffer.alloc(1536 * 1024 * 1024); this.$emit({ allocated: b.length }); }
      catch (e) { this.$emit({ refused: e.message }); }
      this.$emit({ small: Buffer.alloc(1024 * 1024).length });
    } }`;
      const run = await runComponent(proc, code, {});
      expect(run.outcome.kind).toBe("done");
      expect(run.emits).toEqual([
        { refused: expect.stringMatching(/allocation failed/i) },
        { small: 1024 * 1024 },
      ]);
    },
    60_000,
  );
  it.skipIf(skip)(
    "refuses to start under a data limit below what this Node reserves to start, naming the limit",
    async () => {
      const started = Date.now();
      const spawning = SandboxProcess.spawn({
        memoryMb: 64,
        npmDir: path.join(dataDir, "npm"),
        tmpRoot: path.join(dataDir, "sandbox"),
        isolation,
        kernelLimitsForTests: { dataBytes: 5 * 1024 * 1024 },
      });
      await expect(spawning).rejects.toThrow(
        /cannot start: its kernel data limit \(RLIMIT_DATA, 5 MiB\) is below what Node v\d+\.\d+\.\d+ reserves to start a worker \(\d+ MiB, measured\)/,
      );
      // An error at once, not a worker left starting.
      expect(Date.now() - started).toBeLessThan(20_000);
    },
    60_000,
  );
  it.skipIf(skip)(
    "starts a worker under the limits computed for this Node, which still refuse 1.5 GiB",
    async () => {
      const limits = await kernelLimitsHere(64, 300_000);
      // The measure is this Node's own: a bare worker of it needs that much and no fixed figure.
      expect(limits.dataBytes).toBeGreaterThan((await startupDataBytes()) + 128 * 1024 * 1024);
      expect(limits.dataBytes).toBeLessThan(1536 * 1024 * 1024);
      const proc = await spawn(60);
      const run = await runComponent(proc, `export default { async run() { this.$emit({ v: process.version }); } }`, {});
      expect(run.emits).toEqual([{ v: process.version }]);
    },
    60_000,
  );
  it.skipIf(skip)(
    "makes an allocation the kernel refused, left uncaught, OUT_OF_MEMORY",
    async () => {
      const proc = await spawn(60);
      const run = await runComponent(
        proc,
        `export default { async run() { Buffer.alloc(1536 * 1024 * 1024); } }`,
        {},
      );
      expect(run.outcome).toEqual({ kind: "oom" });
    },
    60_000,
  );
});

describe("the pool and the CPU time limit", () => {
  const dataDir = tempDataDir();
  const pool = new SandboxPool({
    isolation: "process",
    maxProcesses: 2,
    memoryMb: 64,
    npmDir: path.join(dataDir, "npm"),
    tmpRoot: path.join(dataDir, "sandbox"),
    kernelLimitsForTests: { cpuSeconds: 120, retireAfterCpuSeconds: 1 },
  });
  afterAll(async () => {
    await pool.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("replaces a worker that used its CPU time, before the kernel's limit could stop it mid-run", async () => {
    const first = await pool.acquire("u_cpu");
    // 1.5 s of CPU time (not of wall time: on a loaded machine that would be less).
    const busy = `export default { async run() {
      const start = process.cpuUsage();
      for (;;) { const u = process.cpuUsage(start); if (u.user + u.system > 1500000) break; }
      this.$emit({ done: true });
    } }`;
    const run = await runComponent(first.proc, busy, {});
    expect(run.emits).toEqual([{ done: true }]);
    first.release();
    const second = await pool.acquire("u_cpu");
    // A fresh worker: the spent one was stopped on release.
    expect(second.proc).not.toBe(first.proc);
    for (let i = 0; i < 200 && first.proc.alive; i++) await new Promise((r) => setTimeout(r, 50));
    expect(first.proc.alive).toBe(false);
    second.release();
    const third = await pool.acquire("u_cpu");
    expect(third.proc).toBe(second.proc);
    third.release();
  }, 60_000);
});
