/** Leftovers of servers that died without cleaning up (kill -9), removed when a server starts. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Removes temp dirs left by servers that died without cleaning up (kill -9): those whose
 * server pid is no longer running, in `tmpRoot` and the egress directories in the system's temp
 * dir. Live servers' dirs (same data dir) are kept.
 */
export function removeStaleTmpDirs(tmpRoot: string): void {
  removeDeadServersDirs(tmpRoot, /^(\d+)-/);
  removeDeadServersDirs(os.tmpdir(), /^hw-eg-(\d+)-/);
}

function removeDeadServersDirs(root: string, pattern: RegExp): void {
  let entries: string[];
  try {
    entries = fs.readdirSync(root);
  } catch {
    return;
  }
  for (const entry of entries) {
    const m = pattern.exec(entry);
    if (!m) continue;
    const pid = Number(m[1]);
    if (pid === process.pid) continue;
    let alive = false;
    if (Number.isInteger(pid) && pid > 0) {
      try {
        process.kill(pid, 0);
        alive = true;
      } catch (e) {
        alive = (e as NodeJS.ErrnoException).code === "EPERM";
      }
    }
    if (!alive) fs.rmSync(path.join(root, entry), { recursive: true, force: true });
  }
}
