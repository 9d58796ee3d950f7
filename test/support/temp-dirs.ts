/**
 * Temp dirs removed when the test file that made them ends. The files of vitest.config.ts's
 * `servers` project share worker processes and so load this module once per worker: the
 * removal is registered for each file by test/support/each-file.ts, not here.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

const made: string[] = [];

/** A temp dir, removed when the test file ends. */
export function tempDir(prefix = "hw-test-"): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes the temp dirs made since the last call. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
