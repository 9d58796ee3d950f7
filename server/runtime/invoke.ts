/**
 * Invocations of a source's `run` or hooks, trigger-agnostic: quota check, db snapshot in, the
 * sandbox request (emits, logs and the HTTP response streamed back), db changes out, dedupe,
 * then every event (emits, `$logs`, `$errors`) appended to the EventStore in one call.
 *
 * Runs come in batches: the queued jobs of one source, run one after the other in order. Each
 * run sees the `this.db` the previous one left and is counted against the quota as it goes;
 * what they produce is stored together after the last one (one quota update, one db write, one
 * append), which is what lets a busy source keep up with its endpoint.
 *
 * A runaway (TIMEOUT, OUT_OF_MEMORY) or a thrown error is the component's fault: recorded on
 * `$errors`, that run is over and the batch goes on. A worker that died for another reason is a
 * platform fault: the runs before it are stored, and the batch reports the failure so that the
 * queue retries that job.
 */
import { randomUUID } from "node:crypto";
import type { EmitInput, EventStore, RunnableSource } from "../services.js";
import type { Quotas } from "../quotas/quotas.js";
import type { SourceStateRepo } from "../store/repos/source-state.js";
import type { BundleCache } from "./bundles.js";
import type { RuntimeComponent } from "./catalog.js";
import { CompileError } from "./compile.js";
import { applyDedupe, type DedupeState } from "./dedupe.js";
import type { QuotaUsageToday } from "../quotas/quotas.js";
import { PackageError } from "./npm/cache.js";
import type { SandboxPool } from "./sandbox/pool.js";
import type { WorkerError, WorkerStream } from "./sandbox/process.js";

export class PlatformFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PlatformFailure";
  }
}

/** Per invocation, as in sandbox/context.cjs and worker.cjs. */
const MAX_EMITS = 10_000;
const MAX_LOG_LINES = 1000;

export type Action = "run" | "deploy" | "activate" | "deactivate";

export interface HttpResponse {
  status: number;
  headers: Record<string, unknown>;
  body: unknown;
}

export interface InvocationRequest {
  source: RunnableSource;
  component: RuntimeComponent;
  action: Action;
  trigger: string;
  event: unknown;
  /** Called with the first `this.http.respond`. */
  onRespond?: (response: HttpResponse) => void;
  /** Delivery hops of the triggering event (cycle bound). */
  hops?: number;
}

export type ErrorCode = "TIMEOUT" | "OUT_OF_MEMORY" | "QUOTA_EXCEEDED" | "COMPONENT_ERROR" | "LOAD_ERROR";

/** One run of a batch: what triggered it. */
export interface RunItem {
  trigger: string;
  event: unknown;
  /** Called with the first `this.http.respond` of this run. */
  onRespond?: (response: HttpResponse) => void;
  /** Delivery hops of the triggering event (cycle bound). */
  hops?: number;
}

/** How far a batch got: the first `ran` items ran; if `failure` is set, the next one hit it. */
export interface BatchResult {
  ran: number;
  failure?: PlatformFailure;
  results: InvocationResult[];
}

export interface InvocationResult {
  ok: boolean;
  error?: { code: ErrorCode; message: string };
  emitted: number;
  computeMs: number;
}

export interface InvokerDeps {
  pool: SandboxPool;
  bundles: BundleCache;
  events: EventStore;
  state: SourceStateRepo;
  quotas: Quotas;
  timeoutMs: number;
  endpointUrl: (sourceId: string) => string;
}

interface Emitted {
  data: unknown;
  meta: { id?: string | number; name?: string; summary?: string; ts?: number };
}

export class Invoker {
  constructor(private readonly deps: InvokerDeps) {}

  /** A hook (deploy, activate, deactivate): not counted; a failure changes nothing. */
  async invoke(req: InvocationRequest): Promise<InvocationResult> {
    if (req.action === "run") {
      const batch = await this.runBatch(req.source, req.component, [req]);
      if (batch.failure) throw batch.failure;
      return batch.results[0]!;
    }
    let ready;
    try {
      ready = await this.deps.bundles.ready(req.component.code, req.component.files);
    } catch (e) {
      if (e instanceof CompileError || e instanceof PackageError) {
        return { ok: false, error: { code: "LOAD_ERROR", message: e.message }, emitted: 0, computeMs: 0 };
      }
      throw e;
    }
    const db = await this.deps.state.snapshot(req.source.id);
    const run = await this.callWorker(req, ready, db, Math.min(this.deps.timeoutMs, 60_000));
    if (run.outcome.kind === "crash") throw new PlatformFailure(run.outcome.detail);
    const error = run.errors[0] && errorOf(run.errors[0]);
    // A failing hook fails the API request, which then changes nothing: nothing is recorded.
    if (error) return { ok: false, error, emitted: 0, computeMs: run.computeMs };
    if (run.dbChanges) await this.deps.state.apply(req.source.id, run.dbChanges);
    const { kept, state } = await this.dedupe(req.component, req.source.id, undefined, run.emits);
    const inputs = [...this.emitInputs(req.source, kept, 0), ...run.logs];
    if (inputs.length) await this.deps.events.append(inputs);
    if (state) await this.deps.state.saveDedupeState(req.source.id, JSON.stringify(state));
    return { ok: true, emitted: kept.length, computeMs: run.computeMs };
  }

  /** Runs `items` in order (one source's queued jobs); see the file comment. */
  async runBatch(source: RunnableSource, component: RuntimeComponent, items: RunItem[]): Promise<BatchResult> {
    const results: InvocationResult[] = [];
    const inputs: EmitInput[] = [];
    const used: QuotaUsageToday = await this.deps.quotas.usedToday(source.userId);
    const counted = { invocations: 0, computeMs: 0 };
    const refuse = (item: RunItem, code: ErrorCode, message: string) => {
      inputs.push(this.errorEvent({ source, action: "run", ...item }, code, message));
      results.push({ ok: false, error: { code, message }, emitted: 0, computeMs: 0 });
    };

    let ready: Awaited<ReturnType<BundleCache["ready"]>> | undefined;
    let loadError: string | undefined;
    try {
      ready = await this.deps.bundles.ready(component.code, component.files);
    } catch (e) {
      if (!(e instanceof CompileError || e instanceof PackageError)) throw e;
      loadError = e.message;
    }
    const db = ready ? await this.deps.state.snapshot(source.id) : {};
    const dbChanges: Record<string, string | null> = {};
    let dedupe: DedupeState | undefined;
    let failure: PlatformFailure | undefined;

    for (const item of items) {
      const quota = this.deps.quotas.verdict({ invocations: used.invocations + counted.invocations, computeMs: used.computeMs + counted.computeMs });
      if (!quota.ok) {
        refuse(item, "QUOTA_EXCEEDED", quota.message);
        continue;
      }
      if (!ready) {
        refuse(item, "LOAD_ERROR", loadError!);
        continue;
      }
      const req: InvocationRequest = { source, component, action: "run", ...item };
      let run;
      try {
        run = await this.callWorker(req, ready, db, this.deps.timeoutMs);
      } catch (e) {
        failure = e instanceof PlatformFailure ? e : new PlatformFailure(String(e));
        break;
      }
      counted.invocations += 1;
      counted.computeMs += run.computeMs;
      if (run.outcome.kind === "crash") {
        failure = new PlatformFailure(run.outcome.detail);
        break;
      }
      // db.set takes effect as it is called (as on the hosted service), even if run throws later;
      // the next run of the batch sees it.
      for (const [key, value] of Object.entries(run.dbChanges ?? {})) {
        dbChanges[key] = value;
        if (value === null) delete db[key];
        else db[key] = value;
      }
      const deduped = await this.dedupe(component, source.id, dedupe, run.emits);
      dedupe = deduped.state ?? dedupe;
      inputs.push(...this.emitInputs(source, deduped.kept, item.hops ?? 0), ...run.logs, ...run.errors);
      const error = run.errors[0] && errorOf(run.errors[0]);
      results.push({ ok: !error, ...(error ? { error } : {}), emitted: deduped.kept.length, computeMs: run.computeMs });
    }

    if (counted.invocations) await this.deps.quotas.record(source.userId, counted.computeMs, counted.invocations);
    if (Object.keys(dbChanges).length) await this.deps.state.apply(source.id, dbChanges);
    if (inputs.length) await this.deps.events.append(inputs);
    // After the append: a crash in between may repeat an event, never lose one.
    if (dedupe) await this.deps.state.saveDedupeState(source.id, JSON.stringify(dedupe));
    return { ran: results.length, ...(failure ? { failure } : {}), results };
  }

  /** One request to a sandbox worker of the source's owner, and what it streamed back. */
  private async callWorker(req: InvocationRequest, ready: Awaited<ReturnType<BundleCache["ready"]>>, db: Record<string, string>, timeoutMs: number) {
    const { source } = req;
    const emits: Emitted[] = [];
    const logs: EmitInput[] = [];
    // The worker enforces these limits; the host holds them too, whatever a worker sends.
    const onStream = (m: WorkerStream) => {
      if (m.t === "emit") {
        if (emits.length < MAX_EMITS) emits.push({ data: m.data, meta: (m.meta ?? {}) as Emitted["meta"] });
      } else if (m.t === "log") {
        if (logs.length <= MAX_LOG_LINES) logs.push(this.logEvent(source, String(m.level), String(m.message).slice(0, 65_536)));
      } else if (m.t === "respond") {
        req.onRespond?.(m.response as HttpResponse);
      }
    };
    let lease;
    try {
      lease = await this.deps.pool.acquire(source.userId);
    } catch (e) {
      throw new PlatformFailure(`no sandbox worker: ${(e as Error).message}`);
    }
    let outcome;
    const t0 = Date.now();
    try {
      const sendBundle = !lease.proc.loaded.has(ready.key);
      outcome = await lease.proc.request(
        {
          t: "invoke",
          id: randomUUID(),
          bundleKey: ready.key,
          bundle: sendBundle ? ready.bundle : undefined,
          packageDirs: ready.packageDirs,
          action: req.action,
          trigger: req.trigger,
          props: source.configuredProps,
          event: req.event ?? null,
          db,
          endpoint: this.deps.endpointUrl(source.id),
        },
        timeoutMs,
        onStream,
      );
      if (outcome.kind === "done" && !outcome.message.error) lease.proc.loaded.add(ready.key);
    } finally {
      lease.release();
    }
    const computeMs = Date.now() - t0;
    const errors: EmitInput[] = [];
    if (outcome.kind === "timeout") {
      errors.push(this.errorEvent(req, "TIMEOUT", `the invocation ran longer than ${timeoutMs} ms and was stopped`));
    } else if (outcome.kind === "oom") {
      errors.push(this.errorEvent(req, "OUT_OF_MEMORY", "the invocation ran out of memory and was stopped"));
    } else if (outcome.kind === "done" && outcome.message.error) {
      errors.push(this.componentError(req, outcome.message.error));
    }
    const dbChanges = outcome.kind === "done" ? outcome.message.dbChanges : undefined;
    return { outcome, computeMs, emits, logs, errors, dbChanges };
  }

  private emitInputs(source: RunnableSource, kept: Emitted[], hops: number): EmitInput[] {
    return kept.map((e) => ({
      emitterId: source.id,
      ownerId: source.userId,
      channel: typeof e.meta.name === "string" ? e.meta.name : "",
      event: e.data,
      meta: metaOf(e.meta),
      hops,
    }));
  }

  /**
   * The emits that pass the component's dedupe, and the dedupe state to keep once they are
   * stored (undefined when there is nothing to change). `state` carries a batch's state from one
   * run to the next; undefined reads the stored one.
   */
  private async dedupe(component: RuntimeComponent, sourceId: string, state: DedupeState | undefined, emits: Emitted[]): Promise<{ kept: Emitted[]; state?: DedupeState }> {
    const mode = component.dedupe;
    if (!mode || emits.length === 0) return { kept: emits };
    let current = state;
    if (!current) {
      const stored = await this.deps.state.dedupeState(sourceId);
      current = stored ? (JSON.parse(stored) as DedupeState) : {};
    }
    const { kept, state: next } = applyDedupe(mode, current, emits, (e) => e.meta.id);
    return { kept, state: next };
  }

  private logEvent(source: RunnableSource, level: string, message: string): EmitInput {
    return { emitterId: source.id, ownerId: source.userId, channel: "$logs", event: { level, message, ts: Date.now() } };
  }

  private componentError(req: InvocationRequest, err: WorkerError): EmitInput {
    const message = err.name && err.name !== "Error" ? `${err.name}: ${err.message}` : err.message;
    return this.errorEvent(req, "COMPONENT_ERROR", message, err.stack, err.name);
  }

  /** An event on `$errors`: the error, what triggered it, and where. */
  errorEvent(req: Pick<InvocationRequest, "source" | "event" | "trigger" | "action">, code: ErrorCode, message: string, stack?: string, name?: string): EmitInput {
    return {
      emitterId: req.source.id,
      ownerId: req.source.userId,
      channel: "$errors",
      event: {
        error: { code, name: name ?? code, message, stack: stack ?? "", ts: new Date().toISOString() },
        original_event: req.event ?? null,
        original_context: { source_id: req.source.id, trigger: req.trigger, action: req.action },
      },
    };
  }
}

/** The code and message of an `$errors` event made by errorEvent. */
function errorOf(input: EmitInput): { code: ErrorCode; message: string } | undefined {
  const e = (input.event as { error?: { code: ErrorCode; message: string } }).error;
  return e ? { code: e.code, message: e.message } : undefined;
}

function metaOf(meta: Emitted["meta"]): EmitInput["meta"] {
  const out: NonNullable<EmitInput["meta"]> = {};
  if (meta.id !== undefined) out.id = meta.id;
  if (meta.summary !== undefined) out.summary = meta.summary;
  if (meta.ts !== undefined) out.ts = meta.ts;
  return out;
}
