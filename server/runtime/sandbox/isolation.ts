/**
 * Which isolation the sandbox workers run under (`HEADWATER_SANDBOX_ISOLATION`):
 * - `namespaces`: bubblewrap (Linux) puts each worker in new user, mount, network, PID, IPC,
 *   UTS and cgroup namespaces (launch.ts). The server refuses to start if bwrap does not work.
 * - `process`: a plain child process under Node's permission model and the JavaScript guards
 *   (the only choice on macOS and Windows).
 * - `auto` (default): `namespaces` when bwrap works here, else `process`.
 * "Works" is decided by running a real, minimal worker command through bwrap once: installed is
 * not enough (containers often forbid user namespaces).
 */
import { spawnSync } from "node:child_process";
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

let probed: { works: boolean; why: string } | undefined;

/** Whether bwrap can start node in the namespaces the workers use (probed once per process). */
export function bwrapWorks(): { works: boolean; why: string } {
  if (probed) return probed;
  if (process.platform !== "linux")
    return (probed = { works: false, why: `${process.platform} has no bubblewrap` });
  if (!TOOLS.bwrap)
    return (probed = { works: false, why: "bwrap is not installed (Debian: apt-get install bubblewrap)" });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-probe-"));
  try {
    const args = bwrapArgs({ readOnly: [], tmpDir: dir, egressDir: dir });
    const r = spawnSync(
      args[0]!,
      [...args.slice(1), "--", process.execPath, "-e", "process.stdout.write('ok')"],
      {
        encoding: "utf8",
        timeout: 20_000,
        env: {},
      },
    );
    if (r.status === 0 && r.stdout === "ok") return (probed = { works: true, why: "bwrap works here" });
    const detail = (r.stderr || r.error?.message || `exit ${r.status}`).trim().split("\n")[0];
    return (probed = { works: false, why: `bwrap does not work here: ${detail}` });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** The mode for a setting; `namespaces` where bwrap does not work is an error. */
export function resolveIsolation(setting: IsolationSetting): Isolation {
  if (setting === "process") return { mode: "process", reason: "HEADWATER_SANDBOX_ISOLATION=process" };
  const probe = bwrapWorks();
  if (setting === "namespaces") {
    if (!probe.works) throw new Error(`HEADWATER_SANDBOX_ISOLATION=namespaces, but ${probe.why}`);
    return { mode: "namespaces", reason: "HEADWATER_SANDBOX_ISOLATION=namespaces" };
  }
  return probe.works
    ? { mode: "namespaces", reason: `auto: ${probe.why}` }
    : { mode: "process", reason: `auto: ${probe.why}` };
}
