/**
 * Which isolation the sandbox workers run under (`HEADWATER_SANDBOX_ISOLATION`):
 * - `namespaces`: bubblewrap (Linux) puts each worker in new user, mount, network, PID, IPC,
 *   UTS and cgroup namespaces (launch.ts). The server refuses to start if bwrap does not work.
 * - `process`: a plain child process under Node's permission model and the JavaScript guards
 *   (the only choice on macOS and Windows).
 * - `auto` (default): `namespaces` when bwrap works here, else `process`.
 * "Works" is decided by running a real, minimal worker command through bwrap once: installed is
 * not enough (containers often forbid user namespaces). The server runs that probe in the
 * background while it opens its database (resolveIsolationAsync): it starts a process, which
 * would otherwise be a tenth of the server's start.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { bwrapArgs, TOOLS } from "./launch.js";

export type IsolationSetting = "namespaces" | "process" | "auto";
export type IsolationMode = "namespaces" | "process";

export interface Isolation {
  mode: IsolationMode;
  /** Why this mode: said once at start. */
  reason: string;
}

type Probe = { works: boolean; why: string };
let probed: Probe | undefined;
let probing: Promise<Probe> | undefined;

/** The answer without running anything, where there is nothing to run. */
function knownWithoutProbe(): Probe | undefined {
  if (process.platform !== "linux") return { works: false, why: `${process.platform} has no bubblewrap` };
  if (!TOOLS.bwrap) return { works: false, why: "bwrap is not installed (Debian: apt-get install bubblewrap)" };
  return undefined;
}

/** The probe's command: node printing `ok` inside bwrap, in a temp dir removed by `done`. */
function probeCommand(): { file: string; args: string[]; done: () => void } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-probe-"));
  const args = bwrapArgs({ readOnly: [], tmpDir: dir, egressDir: dir });
  return {
    file: args[0]!,
    args: [...args.slice(1), "--", process.execPath, "-e", "process.stdout.write('ok')"],
    done: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

function verdict(status: number | null, stdout: string, stderr: string, error: Error | undefined): Probe {
  if (status === 0 && stdout === "ok") return { works: true, why: "bwrap works here" };
  const detail = (stderr || error?.message || `exit ${status}`).trim().split("\n")[0];
  return { works: false, why: `bwrap does not work here: ${detail}` };
}

const PROBE_TIMEOUT_MS = 20_000;

/** Whether bwrap can start node in the namespaces the workers use (probed once per process). */
export function bwrapWorks(): Probe {
  if (probed) return probed;
  const known = knownWithoutProbe();
  if (known) return (probed = known);
  const cmd = probeCommand();
  try {
    const r = spawnSync(cmd.file, cmd.args, { encoding: "utf8", timeout: PROBE_TIMEOUT_MS, env: {} });
    return (probed = verdict(r.status, r.stdout, r.stderr, r.error));
  } finally {
    cmd.done();
  }
}

/** bwrapWorks() without blocking: the same probe as a child process the event loop waits for. */
export function bwrapWorksAsync(): Promise<Probe> {
  if (probed) return Promise.resolve(probed);
  const known = knownWithoutProbe();
  if (known) return Promise.resolve((probed = known));
  return (probing ??= new Promise<Probe>((resolve) => {
    const cmd = probeCommand();
    const child = spawn(cmd.file, cmd.args, { env: {}, stdio: ["ignore", "pipe", "pipe"], timeout: PROBE_TIMEOUT_MS });
    let stdout = "";
    let stderr = "";
    let error: Error | undefined;
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
    let finished = false;
    const finish = (status: number | null) => {
      if (finished) return;
      finished = true;
      cmd.done();
      resolve((probed = verdict(status, stdout, stderr, error)));
    };
    child.on("error", (err) => {
      error = err;
      // A process that never started emits no "close" on every Node version.
      if (child.pid === undefined) finish(null);
    });
    child.on("close", (status) => finish(status));
  }));
}

/** The mode for a setting; `namespaces` where bwrap does not work is an error. */
export function resolveIsolation(setting: IsolationSetting): Isolation {
  if (setting === "process") return { mode: "process", reason: "HEADWATER_SANDBOX_ISOLATION=process" };
  return isolationFor(setting, bwrapWorks());
}

/** resolveIsolation() with the probe run in the background (see above). */
export async function resolveIsolationAsync(setting: IsolationSetting): Promise<Isolation> {
  if (setting === "process") return { mode: "process", reason: "HEADWATER_SANDBOX_ISOLATION=process" };
  return isolationFor(setting, await bwrapWorksAsync());
}

function isolationFor(setting: "namespaces" | "auto", probe: Probe): Isolation {
  if (setting === "namespaces") {
    if (!probe.works) throw new Error(`HEADWATER_SANDBOX_ISOLATION=namespaces, but ${probe.why}`);
    return { mode: "namespaces", reason: "HEADWATER_SANDBOX_ISOLATION=namespaces" };
  }
  return probe.works
    ? { mode: "namespaces", reason: `auto: ${probe.why}` }
    : { mode: "process", reason: `auto: ${probe.why}` };
}
