/**
 * Invocations of a source's `run` or hooks, trigger-agnostic: quota check, db snapshot in, the
 * sandbox request (emits, logs and the HTTP response streamed back), db changes out, dedupe,
 * then every event (emits, `$logs`, `$errors`) appended to the EventStore in one call.
 *
 * Runs come in batches: the queued jobs of one source, sent to a worker in one request and run
 * one after the other in order (worker-calls.ts). Each run sees the `this.db` the previous one
 * left; what they produce is stored together after the last one, in ONE transaction with the
 * deletion of their jobs (EventStore.commit: events, quota count, db writes, dedupe memory, job
 * completions), which is what lets a busy source keep up with its endpoint, and what makes a
 * job whose results are stored never run again (exactly once). The quota is checked
 * before each request: a batch takes at most the invocations left today, and compute time is
 * counted when it ends (so a batch may overrun the compute quota by its own length).
 *
 * A runaway (TIMEOUT, OUT_OF_MEMORY) or a thrown error is the component's fault: recorded on
 * `$errors`, that run is over and the batch goes on. A worker that died for another reason is a
 * platform fault: the runs before it are stored, and the batch reports the failure so that the
 * queue retries that job. A commit that fails stores nothing and is a platform fault too (the
 * batch's jobs run again).
 *
 * Slightly over the house's ~400 lines: the batch's path from quota to commit reads best in one
 * file, since each stage hands the next what it needs; its helpers live beside it.
 */
import { Counter } from "prom-client";
import { CredentialsError, type CredentialOpener, type EmitInput, type EnvOpener, type EventStore, type OpenedCredentials, type RunnableSource } from "../services.js";
import { referencesAccounts } from "../../shared/resources/index.js";
import { combineRedactors } from "../secrets/redact.js";
import { redactRun } from "./redact-run.js";
import { envForRun } from "./run-env.js";
import type { Quotas } from "../quotas/quotas.js";
import type { NewJob } from "../store/repos/jobs.js";
import type { SourceStateRepo } from "../store/repos/source-state.js";
import type { BundleCache } from "./bundles.js";
import type { RuntimeComponent } from "./catalog.js";
import { CompileError } from "./compile.js";
import { delayedJob, heldUntil } from "./delayed-emits.js";
import { applyDedupe, type DedupeState } from "./dedupe.js";
import type { QuotaUsageToday } from "../quotas/quotas.js";
import { PackageError } from "./npm/cache.js";
import type { Hold } from "./held-insert.js";
import { PlatformFailure } from "./platform-failure.js";
import { componentStack, scrubServerPaths } from "./stacks.js";
import type { SandboxPool } from "./sandbox/pool.js";
import type { WorkerError } from "./sandbox/process.js";
import { requestHook, requestRuns, type Emitted, type Ready, type RunOutput, type RunRequestItem, type Stop } from "./worker-calls.js";

export type { HttpResponse } from "./worker-calls.js";

export type Action = "run" | "deploy" | "activate" | "deactivate";

/** One run of a batch: what triggered it (`onRespond` gets the run's first `this.http.respond`). */
export interface RunItem extends RunRequestItem {
  /** Delivery hops of the triggering event (cycle bound). */
  hops?: number;
  /** The queued job this run is: deleted with the run's results. */
  jobId?: string;
  /** The job's insert, when the job was handed over before it was stored (queue.ts handOver). */
  stored?: Promise<unknown>;
  /** That insert, held for the results' transaction to take over (held-insert.ts). */
  hold?: Hold;
}

export interface InvocationRequest extends RunItem {
  source: RunnableSource;
  component: RuntimeComponent;
  action: Action;
}

export type ErrorCode =
  | "TIMEOUT"
  | "OUT_OF_MEMORY"
  | "QUOTA_EXCEEDED"
  | "COMPONENT_ERROR"
  | "LOAD_ERROR"
  // The source's connected accounts cannot be opened (accounts/credentials.ts).
  | CredentialsError["code"];

/**
 * How far a batch got: the first `ran` items ran, and their results and jobs are committed
 * together; if `failure` is set, the next one hit it (nothing of it is stored).
 */
/** Runs of sources and workflows (`/metrics`; registered by server/metrics). */
export const invocationsTotal = new Counter({
  name: "headwater_invocations_total",
  help: "Runs of sources and workflows, by kind and outcome (ok, error, quota_exceeded)",
  labelNames: ["kind", "outcome"] as const,
  registers: [],
});

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
  /** Opens the connected accounts a source's props reference; absent: props run as stored. */
  credentials?: CredentialOpener;
  /** The owner's environment variables (`process.env`); absent: none. */
  env?: EnvOpener;
  /** Forgets the data store call keys of jobs whose results are stored (data-stores/once.ts). */
  forgetCalls?: (jobIds: string[]) => void;
}

/** A source's credentials for one request: opened, or why they cannot be. */
type Opened = { ok: true; value: OpenedCredentials | undefined } | { ok: false; error: CredentialsError };

export class Invoker {
  constructor(private readonly deps: InvokerDeps) {}

  /** A hook (deploy, activate, deactivate): not counted; a failure changes nothing. A run goes through runBatch. */
  async invoke(req: InvocationRequest): Promise<InvocationResult> {
    if (req.action === "run") {
      const batch = await this.runBatch(req.source, req.component, [req]);
      if (batch.failure) throw batch.failure;
      return batch.results[0]!;
    }
    let ready;
    try {
      ready = await this.deps.bundles.ready(req.component.code, req.component.files, req.component);
    } catch (e) {
      if (e instanceof CompileError || e instanceof PackageError) {
        return { ok: false, error: { code: "LOAD_ERROR", message: e.message }, emitted: 0, computeMs: 0 };
      }
      throw e;
    }
    const creds = await this.openCredentials(req.source);
    if (!creds.ok) return { ok: false, error: { code: creds.error.code, message: creds.error.message }, emitted: 0, computeMs: 0 };
    const env = await envForRun(this.deps.env, req.source.userId);
    const db = await this.deps.state.snapshot(req.source.id);
    const timeoutMs = Math.min(this.deps.timeoutMs, 60_000);
    const withProps = creds.value ? { ...req.source, configuredProps: creds.value.props } : req.source;
    const { run, stop } = await this.worker((d) => requestHook(d, withProps, ready, db, req.action, timeoutMs, env));
    const redactor = combineRedactors([creds.value?.redactor, env.redactor]);
    if (redactor) redactRun(run, redactor);
    if (stop?.kind === "crash") throw new PlatformFailure(stop.detail);
    const error = this.errorsOf(req, run, stop, timeoutMs)[0];
    // A failing hook fails the API request, which then changes nothing: nothing is recorded.
    if (error) return { ok: false, error: errorOf(error), emitted: 0, computeMs: run.computeMs };
    const { kept, state } = await this.dedupe(req.component, req.source.id, undefined, run.emits);
    const emits = this.emitInputs(req.source, kept, 0);
    const inputs = [...emits.now, ...this.logInputs(req.source, run)];
    // Its events, held emits, db changes and dedupe memory in one transaction (a hook is not a
    // job: nothing to delete; a hook that failed stored nothing, held emits included).
    await this.deps.events.commit(inputs, {
      jobIds: [],
      state: { sourceId: req.source.id, changes: run.dbChanges ?? {}, ...(state ? { dedupe: JSON.stringify(state) } : {}) },
      ...(emits.later.length > 0 ? { delayed: emits.later } : {}),
    });
    return { ok: true, emitted: kept.length, computeMs: run.computeMs };
  }

  /** Runs `items` in order (one source's queued jobs); see the file comment. */
  async runBatch(source: RunnableSource, component: RuntimeComponent, items: RunItem[]): Promise<BatchResult> {
    const results: InvocationResult[] = [];
    const inputs: EmitInput[] = [];
    /** Emits held until their delivery_ts: jobs committed with the batch's completion. */
    const delayed: NewJob[] = [];
    const limits = await this.deps.quotas.limitsFor(source.userId);
    const used: QuotaUsageToday = await this.deps.quotas.usedBeforeRuns(source.userId, items.length, limits);
    const counted = { invocations: 0, computeMs: 0 };
    const refuse = (item: RunItem, code: ErrorCode, message: string) => {
      inputs.push(this.errorEvent({ source, action: "run", ...item }, code, message));
      results.push({ ok: false, error: { code, message }, emitted: 0, computeMs: 0 });
    };

    let ready: Ready | undefined;
    let loadError: string | undefined;
    try {
      ready = await this.deps.bundles.ready(component.code, component.files, component);
    } catch (e) {
      if (!(e instanceof CompileError || e instanceof PackageError)) throw e;
      loadError = e.message;
    }
    const creds = ready ? await this.openCredentials(source) : undefined;
    const env = ready ? await envForRun(this.deps.env, source.userId) : undefined;
    // Credentials' and secret variables' values, `****` in what the runs leave behind.
    const redactor = combineRedactors([creds?.ok ? creds.value?.redactor : undefined, env?.redactor]);
    const runSource = creds?.ok && creds.value ? { ...source, configuredProps: creds.value.props } : source;
    const db = ready ? await this.deps.state.snapshot(source.id) : {};
    const dbChanges: Record<string, string | null> = {};
    let dedupe: DedupeState | undefined;
    let failure: PlatformFailure | undefined;
    // Jobs whose runs wrote to a data store with call keys: forgotten once their results are stored.
    const wrote: string[] = [];

    /** Stores one run's output in the batch (db changes, dedupe, events, its result). */
    const take = async (item: RunItem, run: RunOutput, stop?: Stop) => {
      if (redactor) redactRun(run, redactor);
      counted.invocations += 1;
      counted.computeMs += run.computeMs;
      // db.set takes effect as it is called (as on the hosted service), even if run throws later;
      // the next run of the batch sees it.
      for (const [key, value] of Object.entries(run.dbChanges ?? {})) {
        dbChanges[key] = value;
        if (value === null) delete db[key];
        else db[key] = value;
      }
      const req = { source, component, action: "run" as const, ...item };
      const deduped = await this.dedupe(component, source.id, dedupe, run.emits);
      dedupe = deduped.state ?? dedupe;
      const errors = this.errorsOf(req, run, stop, this.deps.timeoutMs);
      const emits = this.emitInputs(source, deduped.kept, item.hops ?? 0);
      inputs.push(...emits.now, ...this.logInputs(source, run), ...errors);
      delayed.push(...emits.later);
      const error = errors[0] && errorOf(errors[0]);
      results.push({ ok: !error, ...(error ? { error } : {}), emitted: deduped.kept.length, computeMs: run.computeMs });
    };

    let next = 0;
    while (next < items.length) {
      const item = items[next]!;
      const quota = this.deps.quotas.verdict({ invocations: used.invocations + counted.invocations, computeMs: used.computeMs + counted.computeMs }, limits);
      if (!quota.ok || !ready || creds?.ok === false) {
        if (!quota.ok) refuse(item, "QUOTA_EXCEEDED", quota.message);
        else if (!ready) refuse(item, "LOAD_ERROR", loadError!);
        else if (creds?.ok === false) refuse(item, creds.error.code, creds.error.message);
        next += 1;
        continue;
      }
      const left = limits.dailyInvocations - used.invocations - counted.invocations;
      const chunk = items.slice(next, next + Math.max(1, left));
      const out = await this.worker((d) => requestRuns(d, runSource, ready, db, chunk, this.deps.timeoutMs, env!)).catch((e: unknown) => e as PlatformFailure);
      if (out instanceof PlatformFailure) {
        failure = out;
        break;
      }
      wrote.push(...out.wrote);
      for (const [i, run] of out.done.entries()) await take(chunk[i]!, run);
      next += out.done.length;
      const stop = out.stop ?? (out.done.length < chunk.length ? { kind: "crash" as const, detail: "the sandbox worker ended the batch early", run: undefined } : undefined);
      if (!stop) continue;
      if (stop.kind === "crash") {
        // That run may have done part of its work: it counts, and the queue retries its job.
        counted.invocations += 1;
        counted.computeMs += stop.run?.computeMs ?? 0;
        failure = new PlatformFailure(stop.detail);
        break;
      }
      // Stopped for its own doing (TIMEOUT, OUT_OF_MEMORY): recorded, and the batch goes on.
      await take(items[next]!, stop.run!, stop);
      next += 1;
    }

    // One transaction: the runs' events, held emits, db changes, dedupe memory and quota count,
    // and the deletion of their jobs (grouped with other sources' commits of this turn). A run cut by a
    // platform failure counts too, though its job stays to run again.
    const usage = counted.invocations ? this.deps.quotas.countFor(source.userId, counted.computeMs, counted.invocations, source.id) : undefined;
    const ranItems = items.slice(0, results.length);
    // Jobs handed over with their insert held: this transaction takes it over if it may (the job
    // is then neither inserted nor deleted, and its request is acknowledged after the commit).
    const taken = ranItems.filter((i) => i.hold?.takeOver() === true);
    const stored = taken.length === 0 ? ranItems : ranItems.filter((i) => !taken.includes(i));
    const jobIds = stored.flatMap((i) => (i.jobId ? [i.jobId] : []));
    const hasState = Object.keys(dbChanges).length > 0 || dedupe !== undefined;
    try {
      // Other jobs handed over before they were stored: the results come after their insert, or
      // never (the request was refused then, and its run must leave nothing).
      await Promise.all(stored.map((i) => i.stored));
      await this.deps.events.commit(inputs, {
        jobIds,
        ...(hasState ? { state: { sourceId: source.id, changes: dbChanges, ...(dedupe ? { dedupe: JSON.stringify(dedupe) } : {}) } } : {}),
        ...(usage ? { usage } : {}),
        ...(delayed.length > 0 ? { delayed } : {}),
      });
    } catch (e) {
      // Nothing of the batch is stored and its jobs remain (taken-over ones are inserted now):
      // they run again (the queue retries).
      for (const i of taken) await i.hold!.failed();
      return { ran: 0, failure: new PlatformFailure(`storing the results failed: ${(e as Error).message}`), results: [] };
    }
    for (const i of taken) i.hold!.committed();
    this.forgetCalls(ranItems, wrote);
    if (usage) this.deps.quotas.counted(usage);
    for (const r of results) invocationsTotal.inc({ kind: "source", outcome: r.ok ? "ok" : r.error?.code === "QUOTA_EXCEEDED" ? "quota_exceeded" : "error" });
    return { ran: results.length, ...(failure ? { failure } : {}), results };
  }

  /** The stored runs' call keys (a run cut short keeps its own: it runs again). */
  private forgetCalls(stored: RunItem[], wrote: string[]): void {
    if (wrote.length === 0 || !this.deps.forgetCalls) return;
    const ids = new Set(stored.flatMap((i) => (i.jobId ? [i.jobId] : [])));
    const done = wrote.filter((id) => ids.has(id));
    if (done.length > 0) this.deps.forgetCalls(done);
  }

  /** The source's connected accounts, opened for this request (only sources that reference one pay). */
  private async openCredentials(source: RunnableSource): Promise<Opened> {
    if (!this.deps.credentials || !referencesAccounts(source.configuredProps)) return { ok: true, value: undefined };
    try {
      return { ok: true, value: await this.deps.credentials.open(source.userId, source.configuredProps) };
    } catch (e) {
      if (e instanceof CredentialsError) return { ok: false, error: e };
      throw new PlatformFailure(`reading the source's accounts failed: ${(e as Error).message}`);
    }
  }

  /** A worker request; no worker to be had is a platform failure (the queue retries). */
  private async worker<T>(call: (deps: { pool: SandboxPool; endpointUrl: (id: string) => string }) => Promise<T>): Promise<T> {
    try {
      return await call({ pool: this.deps.pool, endpointUrl: this.deps.endpointUrl });
    } catch (e) {
      throw new PlatformFailure(`no sandbox worker: ${(e as Error).message}`);
    }
  }

  /** The `$errors` events of a run: what it threw, or why it was stopped. */
  private errorsOf(req: InvocationRequest, run: RunOutput, stop: Stop | undefined, timeoutMs: number): EmitInput[] {
    if (stop?.kind === "timeout") return [this.errorEvent(req, "TIMEOUT", `the invocation ran longer than ${timeoutMs} ms and was stopped`)];
    if (stop?.kind === "oom") return [this.errorEvent(req, "OUT_OF_MEMORY", "the invocation ran out of memory and was stopped")];
    return run.error ? [this.componentError(req, run.error)] : [];
  }

  private logInputs(source: RunnableSource, run: RunOutput): EmitInput[] {
    return run.logs.map((l) => this.logEvent(source, l.level, l.message, l.ts));
  }

  /** A run's emits as events to store now, and as jobs for those held until their delivery_ts. */
  private emitInputs(source: RunnableSource, kept: Emitted[], hops: number): { now: EmitInput[]; later: NewJob[] } {
    const out: { now: EmitInput[]; later: NewJob[] } = { now: [], later: [] };
    const now = Date.now();
    for (const e of kept) {
      const input: EmitInput = {
        emitterId: source.id,
        ownerId: source.userId,
        channel: typeof e.meta.name === "string" ? e.meta.name : "",
        event: e.data,
        meta: metaOf(e.meta),
        hops,
      };
      const at = heldUntil(e.meta.delivery_ts, now);
      if (at === undefined) out.now.push(input);
      else out.later.push(delayedJob(input, at));
    }
    return out;
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

  private logEvent(source: RunnableSource, level: string, message: string, ts: number): EmitInput {
    // A logged error (`console.error(err)`, the worker's "Uncaught exception:") prints its stack:
    // shown as an error's would be, with the server's frames and paths cut out.
    return { emitterId: source.id, ownerId: source.userId, channel: "$logs", event: { level, message: componentStack(message), ts } };
  }

  private componentError(req: InvocationRequest, err: WorkerError): EmitInput {
    const message = err.name && err.name !== "Error" ? `${err.name}: ${err.message}` : err.message;
    return this.errorEvent(req, "COMPONENT_ERROR", message, err.stack, err.name);
  }

  /**
   * An event on `$errors`: the error, what triggered it, and where. Its stack keeps only the
   * component's frames and its message no path of the server (decisions.md, Stacks): the worker
   * sends the whole stack, worker.cjs and node:internal frames included.
   */
  errorEvent(req: Pick<InvocationRequest, "source" | "event" | "trigger" | "action">, code: ErrorCode, message: string, stack?: string, name?: string): EmitInput {
    return {
      emitterId: req.source.id,
      ownerId: req.source.userId,
      channel: "$errors",
      event: {
        error: { code, name: name ?? code, message: scrubServerPaths(message), stack: componentStack(stack ?? ""), ts: new Date().toISOString() },
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
