/**
 * runWorkflowSteps: the sandbox primitive the workflows concern runs step code with, under the
 * same isolation, limits and quotas as sources (the steps of one run share one worker process
 * of the owner, in order). See sandbox/steps.cjs for the step API. An action step's component is
 * read by the id saved with the step, its accounts opened for this run (CredentialOpener), and
 * what the run leaves behind (error, emits, logs) has their values hidden.
 */
import { randomUUID } from "node:crypto";
import type { Quotas } from "../quotas/quotas.js";
import type { Redactor } from "../secrets/redact.js";
import { CredentialsError, type CredentialOpener } from "../services.js";
import type { RuntimeComponent } from "./catalog.js";
import type { BundleCache } from "./bundles.js";
import { CompileError } from "./compile.js";
import { PlatformFailure, platformStep } from "./platform-failure.js";
import { PackageError } from "./npm/cache.js";
import type { SandboxPool } from "./sandbox/pool.js";

export interface WorkflowStep {
  id: string;
  name: string;
  /** A code step's code (an action step's is a comment, not run). */
  code?: string | undefined;
  /** An action step: its key, the component saved for it, its props. */
  action?: string | undefined;
  component_id?: string | undefined;
  props?: Record<string, unknown> | undefined;
}

export interface RunWorkflowStepsInput {
  /** The workflow's owner: the run counts against their quotas and uses their processes. */
  ownerId: string;
  steps: WorkflowStep[];
  triggerEvent: unknown;
  context: Record<string, unknown>;
}

export interface WorkflowStepError {
  /** The failing step's id; "" when the run as a whole failed (quota, timeout, memory). */
  cellId: string;
  /** The error's name or code, or TIMEOUT / OUT_OF_MEMORY / QUOTA_EXCEEDED / LOAD_ERROR. */
  code: string;
  message: string;
  stack: string;
}

export interface RunWorkflowStepsResult {
  /** Each step's return value, by step name (steps after a failure are absent). */
  returnValues: Record<string, unknown>;
  /** `$.send.emit` stores `{raw_event: data}`; legacy `$send.emit(x)` stores x. In call order. */
  emits: Array<{ data: unknown; channel: string }>;
  error?: WorkflowStepError;
  /** Console output of the steps, in order. */
  logs: Array<{ level: string; message: string }>;
  computeMs: number;
  /**
   * The steps went to a worker: the run counts against the owner's quota. The caller counts it
   * in the transaction that stores the run's results (workflows/runner.ts), so it counts once.
   */
  ran: boolean;
}

export type RunWorkflowSteps = (input: RunWorkflowStepsInput) => Promise<RunWorkflowStepsResult>;

/**
 * Rejects with PlatformFailure when the worker died for a reason of its own (the queue retries);
 * every fault of the steps themselves is in `error`.
 */
export interface WorkflowStepDeps {
  pool: SandboxPool;
  bundles: BundleCache;
  quotas: Quotas;
  timeoutMs: number;
  /** Action steps' components, by id. */
  component?: (id: string) => Promise<RuntimeComponent | undefined>;
  credentials?: CredentialOpener;
  /** A vendor component's package install directory, from its url (npm/cache.ts). */
  packagesFrom?: (url: string | null | undefined) => string | undefined;
}

export function createWorkflowStepRunner(deps: WorkflowStepDeps): RunWorkflowSteps {
  return async (input) => {
    const fail = (code: string, message: string, cellId = ""): RunWorkflowStepsResult => ({
      returnValues: {},
      emits: [],
      error: { cellId, code, message, stack: "" },
      logs: [],
      computeMs: 0,
      ran: false,
    });
    const quota = await deps.quotas.check(input.ownerId);
    if (!quota.ok) return fail("QUOTA_EXCEEDED", quota.message);
    const steps = [];
    const packageDirs: Record<string, string> = {};
    const redactors: Redactor[] = [];
    for (const step of input.steps) {
      try {
        if (step.action === undefined) {
          const ready = await deps.bundles.ready(step.code ?? "", undefined);
          Object.assign(packageDirs, ready.packageDirs);
          steps.push({ id: step.id, name: step.name, bundle: ready.bundle });
          continue;
        }
        const component = step.component_id ? await platformStep("reading an action step's component", () => deps.component!(step.component_id!)) : undefined;
        if (!component) return fail("LOAD_ERROR", `step ${step.name}: the action ${step.action ?? ""} is not available`, step.id);
        const ready = await deps.bundles.ready(component.code, component.files, component, deps.packagesFrom?.(component.url));
        Object.assign(packageDirs, ready.packageDirs);
        const opened = deps.credentials ? await deps.credentials.open(input.ownerId, step.props ?? {}) : { props: step.props ?? {}, redactor: undefined };
        if (opened.redactor) redactors.push(opened.redactor);
        steps.push({ id: step.id, name: step.name, bundle: ready.bundle, action: step.action ?? "", props: opened.props });
      } catch (e) {
        if (e instanceof CompileError || e instanceof PackageError) return fail("LOAD_ERROR", e.message, step.id);
        if (e instanceof CredentialsError) return fail(e.code.toUpperCase(), e.message, step.id);
        throw e;
      }
    }
    let lease;
    try {
      lease = await deps.pool.acquire(input.ownerId);
    } catch (e) {
      throw new PlatformFailure(`no sandbox worker: ${(e as Error).message}`);
    }
    const t0 = Date.now();
    const logs: RunWorkflowStepsResult["logs"] = [];
    let outcome;
    try {
      outcome = await lease.proc.request(
        { t: "steps", id: randomUUID(), steps, packageDirs, triggerEvent: input.triggerEvent ?? null, context: input.context },
        deps.timeoutMs,
        (m) => {
          if (m.t === "log") logs.push({ level: String(m.level), message: String(m.message) });
        },
      );
    } finally {
      lease.release();
    }
    const computeMs = Date.now() - t0;
    switch (outcome.kind) {
      case "crash":
        // The steps ran until the worker died (a component can make it die): that compute
        // counts, as a source run's does (invoke.ts), or each retry of the job would be free.
        // Nothing of the run is stored, so the count is written on its own.
        await platformStep("counting the stopped run", () => deps.quotas.record(input.ownerId, computeMs));
        throw new PlatformFailure(outcome.detail);
      case "timeout":
        return redacted({ ...fail("TIMEOUT", `the workflow ran longer than ${deps.timeoutMs} ms and was stopped`), logs, computeMs, ran: true }, redactors);
      case "oom":
        return { ...fail("OUT_OF_MEMORY", "the workflow ran out of memory and was stopped"), logs, computeMs, ran: true };
      case "done": {
        const err = outcome.message.error;
        if (err) return redacted({ ...fail(err.name, err.message), logs, computeMs, ran: true }, redactors);
        const result = outcome.message.result as Pick<RunWorkflowStepsResult, "returnValues" | "emits" | "error">;
        return redacted({ returnValues: result.returnValues, emits: result.emits, ...(result.error ? { error: result.error } : {}), logs, computeMs, ran: true }, redactors);
      }
    }
  };
}

/** The run's output with the opened credentials' values hidden (what is stored or streamed of it). */
function redacted(r: RunWorkflowStepsResult, redactors: Redactor[]): RunWorkflowStepsResult {
  for (const red of redactors) {
    for (const line of r.logs) line.message = red.text(line.message);
    if (r.error) {
      r.error.message = red.text(r.error.message);
      r.error.stack = red.text(r.error.stack);
    }
    for (const e of r.emits) e.data = red.emitted(e.data);
  }
  return r;
}
