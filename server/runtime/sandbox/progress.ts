/**
 * Which step of a workflow run a sandbox worker is in: the worker writes `<request id> <index>`
 * to PROGRESS_FILE in its temp dir as each step starts (worker.cjs `markProgress`; one pwrite,
 * where a message per step cost the host more than recording the run), and the host reads it
 * only when it stopped the worker mid-run (process.ts), to name the step in the run's error.
 */
import fs from "node:fs";
import path from "node:path";

/** Where a worker notes which step of a workflow run it is in (worker.cjs `markProgress`), in its temp dir. */
export const PROGRESS_FILE = ".headwater-progress";

/**
 * The worker's progress note, read once it has exited. The file is in a directory the sandboxed
 * code can write to: a link is not followed, a FIFO does not block, and only 64 bytes are read;
 * the caller trusts nothing of it but a step index of its own request.
 */
export function readProgress(tmpDir: string): string | undefined {
  let fd: number | undefined;
  try {
    fd = fs.openSync(
      path.join(tmpDir, PROGRESS_FILE),
      fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK,
    );
    if (!fs.fstatSync(fd).isFile()) return undefined;
    const buf = Buffer.alloc(64);
    return buf.toString("utf8", 0, fs.readSync(fd, buf, 0, 64, 0));
  } catch {
    return undefined; // none written: the worker stopped before any step, or was not running one
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/**
 * The step a stopped worker was running, from its progress note (`<request id> <index>`, process.ts
 * PROGRESS_FILE): only an index of this request's steps counts, as the sandboxed code could have
 * written the file too.
 */
export function stepInProgress(note: string | undefined, requestId: string, steps: number): number | undefined {
  const m = note && /^(\S+) (\d{1,6})\n/.exec(note);
  if (!m || m[1] !== requestId) return undefined;
  const i = Number(m[2]);
  return i < steps ? i : undefined;
}
