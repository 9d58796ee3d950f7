import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PROGRESS_FILE, readProgress, stepInProgress } from "./progress.js";

describe("a worker's progress note", () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-progress-"));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("names the step of this request, and nothing else", () => {
    fs.writeFileSync(path.join(dir, PROGRESS_FILE), "req-1 2\n".padEnd(64));
    const note = readProgress(dir);
    expect(stepInProgress(note, "req-1", 4)).toBe(2);
    // Another request's note, an index past the steps, or garbage the code wrote: no step.
    expect(stepInProgress(note, "req-2", 4)).toBeUndefined();
    expect(stepInProgress(note, "req-1", 2)).toBeUndefined();
    expect(stepInProgress("req-1 x\n", "req-1", 4)).toBeUndefined();
    expect(stepInProgress(undefined, "req-1", 4)).toBeUndefined();
  });

  it("reads no file it was pointed to by a link, and does not wait on a FIFO", () => {
    const secret = path.join(dir, "secret");
    fs.writeFileSync(secret, "req-1 1\n");
    fs.symlinkSync(secret, path.join(dir, PROGRESS_FILE));
    expect(readProgress(dir)).toBeUndefined();
    fs.rmSync(path.join(dir, PROGRESS_FILE));
    execFileSync("mkfifo", [path.join(dir, PROGRESS_FILE)]);
    expect(readProgress(dir)).toBeUndefined();
    fs.rmSync(path.join(dir, PROGRESS_FILE));
    expect(readProgress(dir)).toBeUndefined();
  });
});
