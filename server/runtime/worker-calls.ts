/**
 * Requests to a sandbox worker for a source, and what each run streamed back: a hook (one
 * `invoke`), or a batch of runs (one `runs` request: the worker goes from one run to the next
 * without a round trip to the server, carrying `this.db`). The host holds the per-run limits
 * (emits, log lines) whatever a worker sends. Turning this into events is invoke.ts's part.
 */
import { randomUUID } from "node:crypto";
import type { RunEnv, RunnableSource } from "../services.js";
import type { BundleCache } from "./bundles.js";
import { envField } from "./run-env.js";
import type { SandboxPool } from "./sandbox/pool.js";
import type { SandboxProcess, WorkerError, WorkerStream } from "./sandbox/process.js";

/** Per run, as in sandbox/context.cjs and worker.cjs. */
const MAX_EMITS = 10_000;
const MAX_LOG_LINES = 1000;

export type Ready = Awaited<ReturnType<BundleCache["ready"]>>;

export interface HttpResponse {
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}

export interface Emitted {
  data: unknown;
  meta: { id?: string | number; name?: string; summary?: string; ts?: number; delivery_ts?: number };
}

/** What one run streamed back. A run that was stopped keeps what it emitted and logged before. */
export interface RunOutput {
  emits: Emitted[];
  /** Console output, with when it came (ms). */
  logs: Array<{ level: string; message: string; ts: number }>;
  /** `this.db` changes (JSON text, null to delete); absent for a stopped run. */
  dbChanges?: Record<string, string | null>;
  /** What the component threw. */
  error?: WorkerError;
  computeMs: number;
}

/** How a request stopped early: the run after the finished ones overran, ran out of memory, or the worker died. */
export interface Stop {
  kind: "timeout" | "oom" | "crash";
  detail: string;
  run: RunOutput;
}

export interface RunsOutput {
  /** The runs that finished, in order. */
  done: RunOutput[];
  stop?: Stop;
  /** The jobs whose runs wrote to a data store (with call keys, forgotten once they are stored). */
  wrote: string[];
}

const wroteJobs = (items: RunRequestItem[], writes: Map<number, number>): string[] =>
  [...writes.keys()].flatMap((i) => (items[i]?.jobId ? [items[i].jobId] : []));

export interface RunRequestItem {
  trigger: string;
  event: unknown;
  /** The queued job this run is: its data store writes are made once (data-stores/once.ts). */
  jobId?: string | undefined;
  onRespond?: (response: HttpResponse) => void;
}

export interface WorkerCallDeps {
  pool: SandboxPool;
  endpointUrl: (sourceId: string) => string;
}

const emptyRun = (): RunOutput => ({ emits: [], logs: [], computeMs: 0 });

/**
 * What every request about a source carries: its code (sent once per worker), props, db,
 * endpoint, and its owner's environment variables (sent once per worker: run-env.ts).
 */
function sourceInput(
  deps: WorkerCallDeps,
  proc: SandboxProcess,
  source: RunnableSource,
  ready: Ready,
  db: Record<string, string>,
  env: RunEnv,
) {
  return {
    id: randomUUID(),
    ...envField(proc, env),
    bundleKey: ready.key,
    bundle: proc.loaded.has(ready.key) ? undefined : ready.bundle,
    packageDirs: ready.packageDirs,
    props: source.configuredProps,
    // `process.env.PD_COMPONENT` inside the run.
    sourceId: source.id,
    db,
    endpoint: deps.endpointUrl(source.id),
  };
}

/** Adds a streamed emit, log or respond to its run. */
function collect(run: RunOutput, m: WorkerStream, onRespond?: (r: HttpResponse) => void): void {
  if (m.t === "emit") {
    if (run.emits.length < MAX_EMITS)
      run.emits.push({ data: m.data, meta: (m.meta ?? {}) as Emitted["meta"] });
  } else if (m.t === "log") {
    if (run.logs.length <= MAX_LOG_LINES)
      run.logs.push({ level: String(m.level), message: String(m.message).slice(0, 65_536), ts: Date.now() });
  } else if (m.t === "respond") {
    onRespond?.(m.response as HttpResponse);
  }
}

/**
 * Runs `items` of the source in one request. Throws only when no worker could be had; a worker
 * that dies mid-way is a `stop` of kind crash, after the runs that finished.
 */
export async function requestRuns(
  deps: WorkerCallDeps,
  source: RunnableSource,
  ready: Ready,
  db: Record<string, string>,
  items: RunRequestItem[],
  timeoutMs: number,
  env: RunEnv,
): Promise<RunsOutput> {
  const lease = await deps.pool.acquire(source.userId);
  const done: RunOutput[] = [];
  // The runs (by index) that wrote to a data store: their call keys are forgotten after the commit.
  const writes = new Map<number, number>();
  let current = emptyRun();
  let mark = Date.now();
  try {
    const outcome = await lease.proc.request(
      {
        t: "runs",
        ...sourceInput(deps, lease.proc, source, ready, db, env),
        items: items.map((i) => ({ trigger: i.trigger, event: i.event ?? null })),
      },
      timeoutMs,
      (m) => {
        // Messages of a run other than the current one cannot come (runs are sequential); a
        // worker that says otherwise is ignored.
        if (m.item !== done.length) return;
        if (m.t !== "itemDone") return collect(current, m, items[done.length]?.onRespond);
        const now = Date.now();
        current.computeMs = now - mark;
        mark = now;
        current.dbChanges = (m.dbChanges ?? {}) as Record<string, string | null>;
        if (m.error) current.error = m.error as WorkerError;
        done.push(current);
        current = emptyRun();
      },
      // A source's run that a crash cut short runs again as its job: its writes are made once.
      // (Its place in a batch may differ then: the step is 0.) It has no retry policy: attempt 1.
      {
        origin: (item) => {
          const jobId = items[item]?.jobId;
          return jobId ? { runId: jobId, attempt: 1, step: 0 } : undefined;
        },
        writes,
      },
    );
    if (outcome.kind === "done") {
      if (done.some((r) => !r.error)) lease.proc.loaded.add(ready.key);
      return { done, wrote: wroteJobs(items, writes) };
    }
    current.computeMs = Date.now() - mark;
    const detail = outcome.kind === "crash" ? outcome.detail : outcome.kind;
    return { done, stop: { kind: outcome.kind, detail, run: current }, wrote: wroteJobs(items, writes) };
  } finally {
    lease.release();
  }
}

/** Runs a hook (deploy, activate, deactivate) of the source. */
export async function requestHook(
  deps: WorkerCallDeps,
  source: RunnableSource,
  ready: Ready,
  db: Record<string, string>,
  action: string,
  timeoutMs: number,
  env: RunEnv,
): Promise<{ run: RunOutput; stop?: Stop }> {
  const lease = await deps.pool.acquire(source.userId);
  const run = emptyRun();
  const t0 = Date.now();
  try {
    const outcome = await lease.proc.request(
      {
        t: "invoke",
        ...sourceInput(deps, lease.proc, source, ready, db, env),
        action,
        trigger: "hook",
        event: null,
      },
      timeoutMs,
      (m) => collect(run, m),
    );
    run.computeMs = Date.now() - t0;
    if (outcome.kind !== "done") {
      return {
        run,
        stop: { kind: outcome.kind, detail: outcome.kind === "crash" ? outcome.detail : outcome.kind, run },
      };
    }
    if (!outcome.message.error) lease.proc.loaded.add(ready.key);
    run.dbChanges = outcome.message.dbChanges;
    if (outcome.message.error) run.error = outcome.message.error;
    return { run };
  } finally {
    lease.release();
  }
}
