/**
 * ActionRunner: one action run (POST /actions/run) in the sandbox pool, as an invocation of its
 * owner. The pool rather than a one-shot process: an action run is an invocation like a source's
 * or a workflow's (same owner-keyed processes, limits, network policy and quota count), and a
 * warm worker saves the 90-150 ms a fresh process costs (`npm run bench actions` measures what
 * is left). The worker side is sandbox/action.cjs.
 */
import { randomUUID } from "node:crypto";
import { QuotaExceededError } from "../errors.js";
import type { Quotas } from "../quotas/quotas.js";
import { combineRedactors, type Redactor } from "../secrets/redact.js";
import { ComponentLoadError, type ComponentFiles, type EnvOpener } from "../services.js";
import type { BundleCache } from "./bundles.js";
import { CompileError } from "./compile.js";
import { invocationsTotal } from "./invoke.js";
import { PackageError } from "./npm/cache.js";
import { envField, envForRun } from "./run-env.js";
import { componentStack, scrubServerPaths } from "./stacks.js";
import type { SandboxPool } from "./sandbox/pool.js";

export interface ActionRunInput {
  ownerId: string;
  code: string;
  files: ComponentFiles | undefined;
  /** Validated props, app props as `{$auth}` (accounts already opened). */
  props: Record<string, unknown>;
  /** Where the component came from: a vendor package's runs use its installed dependencies (npm/cache.ts). */
  url?: string | null | undefined;
  /** Hides the opened credentials' values in what the run gives back. */
  redactor: Redactor | undefined;
}

// A type, not an interface: the API's schema is a loose object (an index signature).
export type ActionRunResult = {
  ret: unknown;
  exports: Record<string, unknown>;
  summary: string | null;
  logs: Array<{ level: string; message: string }>;
  error: { name: string; message: string } | null;
  /** `$.flow.exit(reason)` ended the run (not an error). */
  exit?: string | null;
  duration_ms: number;
};

export type RunAction = (input: ActionRunInput) => Promise<ActionRunResult>;

interface WorkerResult {
  ret?: unknown;
  exports?: Record<string, unknown>;
  exit?: string | null;
  error?: { name: string; message: string };
}

export function createActionRunner(deps: {
  pool: SandboxPool;
  bundles: BundleCache;
  quotas: Quotas;
  timeoutMs: number;
  packagesFrom?: (url: string | null | undefined) => string | undefined;
  /** The owner's environment variables (`process.env` in the action); absent: none. */
  env?: EnvOpener;
}): RunAction {
  return async (input) => {
    const quota = await deps.quotas.check(input.ownerId);
    if (!quota.ok) {
      invocationsTotal.inc({ kind: "action", outcome: "quota_exceeded" });
      throw new QuotaExceededError(quota.message);
    }
    let ready;
    try {
      ready = await deps.bundles.ready(input.code, input.files, undefined, deps.packagesFrom?.(input.url));
    } catch (e) {
      if (e instanceof CompileError || e instanceof PackageError) throw new ComponentLoadError("invalid_component", e.message);
      throw e;
    }
    const env = await envForRun(deps.env, input.ownerId);
    const logs: ActionRunResult["logs"] = [];
    const lease = await deps.pool.acquire(input.ownerId);
    const t0 = Date.now();
    let outcome;
    try {
      outcome = await lease.proc.request(
        {
          t: "action",
          id: randomUUID(),
          ...envField(lease.proc, env),
          bundleKey: ready.key,
          bundle: ready.bundle,
          packageDirs: ready.packageDirs,
          props: input.props,
        },
        deps.timeoutMs,
        (m) => {
          if (m.t === "log") logs.push({ level: String(m.level), message: String(m.message) });
        },
      );
    } finally {
      lease.release();
    }
    const ms = Date.now() - t0;
    // Counted whatever the outcome: the run used the sandbox (as a source run is).
    await deps.quotas.record(input.ownerId, ms);
    let worker: WorkerResult;
    switch (outcome.kind) {
      case "timeout":
        worker = { error: { name: "TIMEOUT", message: `the action ran longer than ${deps.timeoutMs} ms and was stopped` } };
        break;
      case "oom":
        worker = { error: { name: "OUT_OF_MEMORY", message: "the action ran out of memory and was stopped" } };
        break;
      case "crash":
        worker = { error: { name: "SANDBOX_EXITED", message: `the action's sandbox process ended: ${outcome.detail}` } };
        break;
      case "done":
        worker = outcome.message.error
          ? { error: { name: String(outcome.message.error.name), message: String(outcome.message.error.message) } }
          : (outcome.message.result as WorkerResult);
    }
    invocationsTotal.inc({ kind: "action", outcome: worker.error ? "error" : "ok" });
    return present(worker, logs, ms, combineRedactors([input.redactor, env.redactor]));
  };
}

/** The API's shape: `$summary` taken out of the exports; credentials and secret variables hidden. */
function present(w: WorkerResult, workerLogs: ActionRunResult["logs"], ms: number, redactor: Redactor | undefined): ActionRunResult {
  // The error and logged errors as a user may see them (decisions.md, Stacks): no path of the
  // server's files (the result's error has no stack; a log line of `console.error(err)` does).
  const logs = workerLogs.map((l) => ({ level: l.level, message: componentStack(l.message) }));
  const error = w.error ? { name: scrubServerPaths(w.error.name), message: scrubServerPaths(w.error.message) } : null;
  const exports = { ...(w.exports ?? {}) };
  const summary = exports.$summary === undefined ? null : String(typeof exports.$summary === "string" ? exports.$summary : JSON.stringify(exports.$summary));
  delete exports.$summary;
  const out: ActionRunResult = {
    ret: w.ret ?? null,
    exports,
    summary,
    logs,
    error,
    ...(w.exit !== undefined ? { exit: w.exit } : {}),
    duration_ms: ms,
  };
  if (!redactor) return out;
  return {
    ...out,
    ret: redactor.emitted(out.ret),
    exports: redactor.emitted(out.exports),
    summary: out.summary === null ? null : redactor.text(out.summary),
    logs: logs.map((l) => ({ level: l.level, message: redactor.text(l.message) })),
    error: out.error ? { name: redactor.text(out.error.name), message: redactor.text(out.error.message) } : null,
    ...(typeof out.exit === "string" ? { exit: redactor.text(out.exit) } : {}),
  };
}
