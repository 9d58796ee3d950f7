/**
 * One invocation of a source's `run` or hook, trigger-agnostic: quota check, db snapshot in,
 * the sandbox request (emits, logs and the HTTP response streamed back), db changes out,
 * dedupe, then every event (emits, `$logs`, `$errors`) appended to the EventStore in one call.
 *
 * A runaway (TIMEOUT, OUT_OF_MEMORY) or a thrown error is the component's fault: recorded on
 * `$errors`, the invocation is over. A worker that died for another reason is a platform fault:
 * `PlatformFailure` is thrown and the queue retries the job.
 */
import { randomUUID } from "node:crypto";
import type { EmitInput, EventStore, RunnableSource } from "../services.js";
import type { Quotas } from "../quotas/quotas.js";
import type { SourceStateRepo } from "../store/repos/source-state.js";
import type { BundleCache } from "./bundles.js";
import type { RuntimeComponent } from "./catalog.js";
import { CompileError } from "./compile.js";
import { applyDedupe, type DedupeState } from "./dedupe.js";
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

  async invoke(req: InvocationRequest): Promise<InvocationResult> {
    const { source } = req;
    const errors: EmitInput[] = [];
    const fail = async (code: ErrorCode, message: string): Promise<InvocationResult> => {
      if (req.action === "run") await this.deps.events.append([this.errorEvent(req, code, message)]);
      return { ok: false, error: { code, message }, emitted: 0, computeMs: 0 };
    };

    if (req.action === "run") {
      const quota = await this.deps.quotas.check(source.userId);
      if (!quota.ok) return fail("QUOTA_EXCEEDED", quota.message);
    }

    let ready;
    try {
      ready = await this.deps.bundles.ready(req.component.code, req.component.files);
    } catch (e) {
      if (e instanceof CompileError || e instanceof PackageError) return fail("LOAD_ERROR", e.message);
      throw e;
    }
    const db = await this.deps.state.snapshot(source.id);
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
        // A hook holds up an API request: it gets at most a minute.
        req.action === "run" ? this.deps.timeoutMs : Math.min(this.deps.timeoutMs, 60_000),
        onStream,
      );
      if (outcome.kind === "done" && !outcome.message.error) lease.proc.loaded.add(ready.key);
    } finally {
      lease.release();
    }
    const computeMs = Date.now() - t0;
    if (req.action === "run") await this.deps.quotas.record(source.userId, computeMs);

    if (outcome.kind === "crash") throw new PlatformFailure(outcome.detail);
    if (outcome.kind === "timeout") {
      const limit = req.action === "run" ? this.deps.timeoutMs : Math.min(this.deps.timeoutMs, 60_000);
      errors.push(this.errorEvent(req, "TIMEOUT", `the invocation ran longer than ${limit} ms and was stopped`));
    } else if (outcome.kind === "oom") {
      errors.push(this.errorEvent(req, "OUT_OF_MEMORY", "the invocation ran out of memory and was stopped"));
    } else if (outcome.message.error) {
      errors.push(this.componentError(req, outcome.message.error));
    }

    const first = errors[0]?.event as { error?: { code: ErrorCode; message: string } } | undefined;
    const error = first?.error ? { code: first.error.code, message: first.error.message } : undefined;
    // A failing hook fails the API request, which then changes nothing: nothing is recorded.
    if (req.action !== "run" && error) return { ok: false, error, emitted: 0, computeMs };
    // db.set takes effect as it is called (as on the hosted service), even if run throws later.
    const dbChanges = outcome.kind === "done" ? outcome.message.dbChanges : undefined;
    if (dbChanges) await this.deps.state.apply(source.id, dbChanges);

    const { kept, save } = await this.dedupe(req, emits);
    const inputs: EmitInput[] = [
      ...kept.map((e) => ({
        emitterId: source.id,
        ownerId: source.userId,
        channel: typeof e.meta.name === "string" ? e.meta.name : "",
        event: e.data,
        meta: metaOf(e.meta),
        hops: req.hops ?? 0,
      })),
      ...logs,
      ...errors,
    ];
    if (inputs.length) await this.deps.events.append(inputs);
    // After the append: a crash in between may repeat an event, never lose one.
    await save();
    return {
      ok: errors.length === 0,
      error,
      emitted: kept.length,
      computeMs,
    };
  }

  /** The emits that pass the component's dedupe, and how to remember them once stored. */
  private async dedupe(req: InvocationRequest, emits: Emitted[]): Promise<{ kept: Emitted[]; save: () => Promise<void> }> {
    const mode = req.component.dedupe;
    if (!mode || emits.length === 0) return { kept: emits, save: async () => undefined };
    const stored = await this.deps.state.dedupeState(req.source.id);
    const state = stored ? (JSON.parse(stored) as DedupeState) : {};
    const { kept, state: next } = applyDedupe(mode, state, emits, (e) => e.meta.id);
    return { kept, save: () => this.deps.state.saveDedupeState(req.source.id, JSON.stringify(next)) };
  }

  private logEvent(source: RunnableSource, level: string, message: string): EmitInput {
    return { emitterId: source.id, ownerId: source.userId, channel: "$logs", event: { level, message, ts: Date.now() } };
  }

  private componentError(req: InvocationRequest, err: WorkerError): EmitInput {
    const message = err.name && err.name !== "Error" ? `${err.name}: ${err.message}` : err.message;
    return this.errorEvent(req, "COMPONENT_ERROR", message, err.stack, err.name);
  }

  /** An event on `$errors`: the error, what triggered it, and where. */
  errorEvent(req: InvocationRequest, code: ErrorCode, message: string, stack?: string, name?: string): EmitInput {
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

function metaOf(meta: Emitted["meta"]): EmitInput["meta"] {
  const out: NonNullable<EmitInput["meta"]> = {};
  if (meta.id !== undefined) out.id = meta.id;
  if (meta.summary !== undefined) out.summary = meta.summary;
  if (meta.ts !== undefined) out.ts = meta.ts;
  return out;
}
