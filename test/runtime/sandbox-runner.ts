/** Runs a component in a SandboxProcess directly (no server): for tests of the sandbox itself. */
import { randomUUID } from "node:crypto";
import { compileBundle } from "../../server/runtime/compile.js";
import type { Outcome, SandboxProcess, WorkerStream } from "../../server/runtime/sandbox/process.js";

export interface Run {
  outcome: Outcome;
  emits: unknown[];
}

/** One `run(event)` of `code` in `proc`; `timeoutMs` is the host's limit. */
export async function runComponent(
  proc: SandboxProcess,
  code: string,
  event: unknown,
  timeoutMs = 60_000,
): Promise<Run> {
  const bundle = compileBundle(code);
  const emits: unknown[] = [];
  const outcome = await proc.request(
    {
      t: "invoke",
      id: randomUUID(),
      bundleKey: randomUUID(),
      bundle: { main: bundle.main, files: bundle.files },
      packageDirs: {},
      props: {},
      db: {},
      endpoint: "http://127.0.0.1/e/test",
      action: "run",
      trigger: "http",
      event,
    },
    timeoutMs,
    (m: WorkerStream) => {
      if (m.t === "emit") emits.push(m.data);
    },
  );
  return { outcome, emits };
}
