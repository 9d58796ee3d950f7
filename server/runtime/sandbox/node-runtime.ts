/**
 * What the Node.js running the server (and so the workers: they run `process.execPath`) offers
 * and needs, found out from that Node itself rather than guessed from its version number:
 * - Its command-line flags, from `process.allowedNodeEnvironmentFlags`: the permission model is
 *   `--permission` since Node 22.13 / 23.5 and only `--experimental-permission` before (Node 24
 *   no longer accepts the old name); require(esm) is on by default since 20.19 / 22.12 and only
 *   needs `--experimental-require-module` on a Node where `process.features.require_module` is
 *   not set.
 * - The data size (RLIMIT_DATA's measure, VmData) a bare worker reserves just to start: about
 *   50 MiB on Node 20 and 22, about 560 MiB on Node 24 (V8's code range). Measured once per
 *   process by starting one; kernel limits (launch.ts) add the heap budget on top.
 */
import { spawn } from "node:child_process";

const allowed = process.allowedNodeEnvironmentFlags;

/** The flag that turns the permission model on, or undefined on a Node without it. */
export function permissionFlag(): string | undefined {
  if (allowed.has("--permission")) return "--permission";
  if (allowed.has("--experimental-permission")) return "--experimental-permission";
  return undefined;
}

/** The flags that let a CommonJS `require` load an ES module (none where that is the default). */
export function requireModuleFlags(): string[] {
  const features = process.features as { require_module?: boolean };
  if (features.require_module) return [];
  return allowed.has("--experimental-require-module") ? ["--experimental-require-module"] : [];
}

/** Used when the measurement cannot be made (not Linux, no /proc): Node 24's figure, rounded up. */
export const FALLBACK_STARTUP_DATA_BYTES = 640 * 1024 * 1024;

let startupData: Promise<number> | undefined;

/**
 * VmData of a bare worker of this Node once it has started (its flags, no code of ours): what
 * RLIMIT_DATA must allow before a single byte of the heap budget. Measured once per process.
 */
export function startupDataBytes(): Promise<number> {
  startupData ??= measureStartupData().catch(() => FALLBACK_STARTUP_DATA_BYTES);
  return startupData;
}

function measureStartupData(): Promise<number> {
  if (process.platform !== "linux") return Promise.resolve(FALLBACK_STARTUP_DATA_BYTES);
  // Read at the end of start-up, as the worker's code would begin (VmData is in kB).
  const script =
    "const m=/VmData:\\s+(\\d+)\\s+kB/.exec(require('fs').readFileSync('/proc/self/status','utf8'));" +
    "process.stdout.write(m?m[1]:'')";
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...requireModuleFlags(), "-e", script], {
      env: {},
      stdio: ["ignore", "pipe", "ignore"],
    });
    let out = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (c: string) => (out += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      const kb = Number(out);
      if (code === 0 && Number.isInteger(kb) && kb > 0) resolve(kb * 1024);
      else reject(new Error(`could not measure a bare worker (exit ${code})`));
    });
  });
}
