/**
 * runWorkflowSteps: the sandbox primitive the workflows concern runs step code with, under the
 * same isolation, limits and quotas as sources (the steps of one run share one worker process
 * of the owner, in order). See sandbox/steps.cjs for the step API. An action step's component is
 * read by the id saved with the step, its accounts opened for this run (CredentialOpener); every
 * step reads the owner's environment variables as `process.env` (run-env.ts); what the run leaves
 * behind has the accounts' and the secret variables' values hidden and its errors cut (step-output.ts).
 * A step given with `reused` is not run: its earlier results are what later steps see (a run
 * going on from a later step: a re-run from a step, a retry).
 */
import { randomUUID } from "node:crypto";
import type { Quotas } from "../quotas/quotas.js";
import { combineRedactors, type Redactor } from "../secrets/redact.js";
import { CredentialsError, type CredentialOpener, type EnvOpener } from "../services.js";
import type { RuntimeComponent } from "./catalog.js";
import type { BundleCache } from "./bundles.js";
import { CompileError } from "./compile.js";
import { PlatformFailure, platformStep } from "./platform-failure.js";
import { PackageError } from "./npm/cache.js";
import { envField, envForRun } from "./run-env.js";
import type { SandboxPool } from "./sandbox/pool.js";
import type { CallRun } from "./sandbox/calls.js";
import { stepInProgress } from "./sandbox/progress.js";
import { keptOutput } from "./step-output.js";

export interface WorkflowStep {
  id: string;
  name: string;
  /** A code step's code (an action step's is a comment, not run). */
  code?: string | undefined;
  /** An action step: its key, the component saved for it, its props. */
  action?: string | undefined;
  component_id?: string | undefined;
  props?: Record<string, unknown> | undefined;
  /** A code step's prop values (`this.<prop>` in its run): accounts as `{authProvisionId}`. */
  configured_props?: Record<string, unknown> | undefined;
}

/** A step's results from an earlier run, taken as they were instead of running it. */
export interface ReusedResults {
  return_value: unknown;
  exports: Record<string, unknown>;
}

export interface RunWorkflowStepsInput {
  /** The workflow's owner: the run counts against their quotas and uses their processes. */
  ownerId: string;
  steps: Array<WorkflowStep & { reused?: ReusedResults | undefined }>;
  triggerEvent: unknown;
  context: Record<string, unknown>;
  /** `$.respond` of a step (the first call; sent while the run goes on). */
  respond?: (response: unknown) => void;
  /** The run and attempt (absent: a test run): its data store writes are made once (data-stores/once.ts). */
  run?: CallRun | undefined;
}

export interface WorkflowStepError {
  /** The failing step's id; "" when the run as a whole failed (quota, timeout, memory). */
  cellId: string;
  /** The error's name or code, or TIMEOUT / OUT_OF_MEMORY / QUOTA_EXCEEDED / LOAD_ERROR. */
  code: string;
  message: string;
  stack: string;
}

/** What one step that ran did (steps.cjs), in order; steps not reached are absent. */
export interface StepOutcome {
  id: string;
  status: "success" | "error" | "exited";
  started_at_ms: number;
  duration_ms: number;
  return_value?: unknown;
  exports?: Record<string, unknown>;
  error?: { name: string; message: string; stack: string };
}

export interface StepLogLine {
  level: string;
  message: string;
  ts_ms: number;
  /** The index (in the input's steps) of the step that wrote it. */
  step?: number | undefined;
}

export interface RunWorkflowStepsResult {
  /** `$.send.emit` stores `{raw_event: data}`; legacy `$send.emit(x)` stores x. In call order. */
  emits: Array<{ data: unknown; channel: string; step?: number }>;
  error?: WorkflowStepError;
  /** Console output of the steps, in order. */
  logs: StepLogLine[];
  /** What each step that ran did. */
  steps: StepOutcome[];
  /** The step that was running when the run was stopped (timeout, memory), by index. */
  stoppedAt?: number | undefined;
  /** Set when a step ended the run with `$.flow.exit(reason)`. */
  exit?: { reason: string | null };
  /** Set when step `step` asked to wait (`$.flow.delay(ms)`): the run goes on with the next one after `ms`. */
  delay?: { ms: number; step: number };
  computeMs: number;
  /**
   * Hides the values of the accounts the run opened in a value of the run recorded later (its
   * response: the caller gets it whole, the record does not); absent when it opened none.
   */
  hide?: <T>(value: T) => T;
  /**
   * The steps went to a worker: the run counts against the owner's quota. The caller counts it
   * in the transaction that stores the run's results (workflows/runner.ts), so it counts once.
   */
  ran: boolean;
  /** Its steps wrote to a data store: the run has call keys to forget once it is stored. */
  wrote?: boolean;
}

export type RunWorkflowSteps = (input: RunWorkflowStepsInput) => Promise<RunWorkflowStepsResult>;

/**
 * Rejects with PlatformFailure when the worker died for a reason of its own, or a platform step
 * preparing the run failed (the queue retries); every fault of the steps themselves is in `error`.
 */
export interface WorkflowStepDeps {
  pool: SandboxPool;
  bundles: BundleCache;
  quotas: Quotas;
  timeoutMs: number;
  /** Action steps' components, by id. */
  component?: (id: string) => Promise<RuntimeComponent | undefined>;
  credentials?: CredentialOpener;
  /** The owner's environment variables (`process.env` in every step); absent: none. */
  env?: EnvOpener;
  /** A vendor component's package install directory, from its url (npm/cache.ts). */
  packagesFrom?: (url: string | null | undefined) => string | undefined;
}

const fail = (code: string, message: string, cellId = ""): RunWorkflowStepsResult => ({
  emits: [],
  error: { cellId, code, message, stack: "" },
  logs: [],
  steps: [],
  computeMs: 0,
  ran: false,
});

/** A code step's configured props with their accounts opened (none: nothing to bind). */
async function openProps(
  deps: WorkflowStepDeps,
  ownerId: string,
  configured: Record<string, unknown> | undefined,
): Promise<{ props?: Record<string, unknown>; redactor?: Redactor | undefined }> {
  if (!configured || Object.keys(configured).length === 0) return {};
  if (!deps.credentials) return { props: configured };
  return deps.credentials.open(ownerId, configured);
}

export function createWorkflowStepRunner(deps: WorkflowStepDeps): RunWorkflowSteps {
  return async (input) => {
    const quota = await deps.quotas.check(input.ownerId);
    if (!quota.ok) return fail("QUOTA_EXCEEDED", quota.message);
    const steps = [];
    const packageDirs: Record<string, string> = {};
    const redactors: Redactor[] = [];
    for (const step of input.steps) {
      try {
        if (step.reused) {
          steps.push({ id: step.id, name: step.name, reused: step.reused });
          continue;
        }
        if (step.action === undefined) {
          const ready = await deps.bundles.ready(step.code ?? "", undefined);
          Object.assign(packageDirs, ready.packageDirs);
          // Its accounts are opened here, for this run only; their values are hidden in all it leaves.
          const opened = await openProps(deps, input.ownerId, step.configured_props);
          if (opened.redactor) redactors.push(opened.redactor);
          steps.push({
            id: step.id,
            name: step.name,
            bundleKey: ready.key,
            bundle: ready.bundle,
            ...(opened.props ? { configuredProps: opened.props } : {}),
          });
          continue;
        }
        const component = step.component_id
          ? await platformStep("reading an action step's component", () =>
              deps.component!(step.component_id!),
            )
          : undefined;
        if (!component)
          return fail(
            "LOAD_ERROR",
            `step ${step.name}: the action ${step.action ?? ""} is not available`,
            step.id,
          );
        const ready = await deps.bundles.ready(
          component.code,
          component.files,
          component,
          deps.packagesFrom?.(component.url),
        );
        Object.assign(packageDirs, ready.packageDirs);
        const opened = deps.credentials
          ? await deps.credentials.open(input.ownerId, step.props ?? {})
          : { props: step.props ?? {}, redactor: undefined };
        if (opened.redactor) redactors.push(opened.redactor);
        steps.push({
          id: step.id,
          name: step.name,
          bundleKey: ready.key,
          bundle: ready.bundle,
          action: step.action ?? "",
          props: opened.props,
        });
      } catch (e) {
        if (e instanceof CompileError || e instanceof PackageError)
          return fail("LOAD_ERROR", e.message, step.id);
        if (e instanceof CredentialsError) return fail(e.code.toUpperCase(), e.message, step.id);
        // Anything else preparing the run (the database refusing the accounts' read, the disk
        // refusing a bundle) is the platform's: the queue retries the job, nothing is lost.
        if (e instanceof PlatformFailure) throw e;
        throw new PlatformFailure(
          `preparing step ${step.name} failed: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
    }
    const env = await envForRun(deps.env, input.ownerId);
    // One redactor for the accounts' and the secret variables' values (step-output.ts).
    const hidden = [combineRedactors([...redactors, env.redactor])].filter((r): r is Redactor => r !== undefined);
    let lease;
    try {
      lease = await deps.pool.acquire(input.ownerId);
    } catch (e) {
      throw new PlatformFailure(`no sandbox worker: ${(e as Error).message}`);
    }
    const t0 = Date.now();
    const logs: StepLogLine[] = [];
    const requestId = randomUUID();
    // The steps' data store writes (by step): a run that made some has call keys to forget.
    const writes = new Map<number, number>();
    let outcome;
    try {
      outcome = await lease.proc.request(
        {
          t: "steps",
          id: requestId,
          ...envField(lease.proc, env),
          // A module this worker already keeps is not sent again (its `loaded`, below).
          steps: steps.map((s) => (s.bundleKey && lease.proc.loaded.has(s.bundleKey) ? { ...s, bundle: undefined } : s)),
          packageDirs,
          triggerEvent: input.triggerEvent ?? null,
          context: input.context,
        },
        deps.timeoutMs,
        (m) => {
          if (m.t === "log")
            logs.push({
              level: String(m.level),
              message: String(m.message),
              ts_ms: Date.now(),
              step: m.item,
            });
          else if (m.t === "respond") input.respond?.(m.response);
        },
        input.run && { origin: (step) => ({ ...input.run!, step }), writes },
      );
      if (outcome.kind === "done")
        for (const key of (outcome.message.result as { loaded?: string[] } | undefined)?.loaded ?? [])
          lease.proc.loaded.add(key);
    } finally {
      lease.release();
    }
    const computeMs = Date.now() - t0;
    const stoppedAt =
      outcome.kind === "done" ? undefined : stepInProgress(outcome.progress, requestId, steps.length);
    const stopped = { logs, computeMs, ran: true, stoppedAt, wrote: writes.size > 0 };
    // The error of a run stopped mid-step is that step's.
    const stoppedStep = stoppedAt === undefined ? "" : (steps[stoppedAt]?.id ?? "");
    switch (outcome.kind) {
      case "crash":
        // The steps ran until the worker died (a component can make it die): that compute
        // counts, as a source run's does (invoke.ts), or each retry of the job would be free.
        // Nothing of the run is stored, so the count is written on its own.
        await platformStep("counting the stopped run", () => deps.quotas.record(input.ownerId, computeMs));
        throw new PlatformFailure(outcome.detail);
      case "timeout":
        return keptOutput(
          {
            ...fail(
              "TIMEOUT",
              `the workflow ran longer than ${deps.timeoutMs} ms and was stopped`,
              stoppedStep,
            ),
            ...stopped,
          },
          hidden,
        );
      case "oom":
        return keptOutput(
          { ...fail("OUT_OF_MEMORY", "the workflow ran out of memory and was stopped", stoppedStep), ...stopped },
          hidden,
        );
      case "done": {
        const err = outcome.message.error;
        if (err) return keptOutput({ ...fail(err.name, err.message), ...stopped }, hidden);
        const result = outcome.message.result as Pick<
          RunWorkflowStepsResult,
          "emits" | "error" | "steps" | "exit" | "delay"
        >;
        return keptOutput(
          {
            emits: result.emits,
            steps: result.steps ?? [],
            ...(result.error ? { error: result.error } : {}),
            ...(result.exit ? { exit: result.exit } : {}),
            ...(result.delay ? { delay: result.delay } : {}),
            logs,
            computeMs,
            ran: true,
            wrote: writes.size > 0,
          },
          hidden,
        );
      }
    }
  };
}
