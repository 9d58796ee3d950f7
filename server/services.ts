/**
 * The seams between the server's concerns. `app.ts` (the composition root) builds one
 * implementation of each and hands them to the modules that need them, so a concern depends on
 * another only through the interface here. Read this file first to see how a request or an event
 * crosses the server.
 *
 *   http/routes ──► sources/, components/ ──► store/ repositories
 *        │                    │
 *        │                    └─► ComponentDescriber, SourceLifecycle   (runtime/)
 *        ▼
 *   runtime/ (sandbox, triggers, queue) ──$emit──► EventStore (events/) ──► bus
 *                                                       │                   ├─► streams/ (SSE)
 *                                                       └─► delivery/ ──► InvocationQueue (runtime/)
 */
import type { Redactor } from "./secrets/redact.js";
import type { Requester } from "./users/requester.js";
import type { PropDescriptor } from "../shared/resources/index.js";
import type { Db } from "./store/db.js";
import type { JobCompletion } from "./store/repos/completions.js";

export type { JobCompletion } from "./store/repos/completions.js";

// ---------------------------------------------------------------------------------------------
// Components (implemented in runtime/: evaluating untrusted code happens only in the sandbox)

/** What loading a component's module tells us. Functions are already removed from props. */
export interface ComponentDescription {
  key: string | undefined;
  name: string;
  version: string;
  description: string | undefined;
  /** `configurable_props`: every prop in declaration order, app `propDefinition`s resolved. */
  props: PropDescriptor[];
  dedupe: "unique" | "greatest" | "last" | undefined;
  hooks: Array<"deploy" | "activate" | "deactivate">;
  hasRun: boolean;
  /** `type: "action"` in the module: run by key rather than deployed (absent in older descriptions). */
  type?: "action" | "source" | undefined;
}

/** Module sources beside the main file, by relative path (`./app.mjs`), for component_url imports. */
export type ComponentFiles = Record<string, string>;

export interface ComponentDescriber {
  /**
   * Evaluates the code in the sandbox, with time and memory limits.
   * Rejects with a `ComponentLoadError` (a 4xx for the API) when the code does not parse, is
   * not a component, loops, or allocates without end. npm packages it installs are charged to
   * `requester` (none: the server's own work). `packagesFrom`: an install directory of the package
   * cache (a vendor package's) whose installed dependencies are used instead of installing them.
   */
  describe(
    code: string,
    files?: ComponentFiles,
    requester?: Requester,
    packagesFrom?: string,
  ): Promise<ComponentDescription>;
}

export class ComponentLoadError extends Error {
  constructor(
    readonly code: "invalid_component" | "component_timeout" | "component_out_of_memory",
    message: string,
  ) {
    super(message);
    this.name = "ComponentLoadError";
  }
}

/** What `POST /components/{id}/props/{prop}/options` asks of a component's `options()`. */
export interface PropOptionsRequest {
  /** Who asks: the run counts against their daily quotas, npm installs against their budget. */
  requester: Requester;
  prop: string;
  /** The props configured so far (app props as `{$auth: {...}}`). */
  configuredProps: Record<string, unknown>;
  /** The `context` of the previous answer (the next page), `{}` at first. */
  prevContext: Record<string, unknown>;
  query: string | undefined;
  page: number;
}

export interface PropOptionsAnswer {
  data: Array<{ label: string; value: unknown }>;
  context: unknown;
}

export interface PropOptionsRunner {
  /**
   * Runs the prop's `options()` in the sandbox with the usual limits, counted as an invocation
   * of the asking user (refused with a `QuotaExceededError` when their quota is used up).
   * Rejects with a `PropOptionsError`, or a `ComponentLoadError` for code that fails to load,
   * loops or allocates without end.
   */
  options(
    code: string,
    files: ComponentFiles | undefined,
    request: PropOptionsRequest,
  ): Promise<PropOptionsAnswer>;
}

export class PropOptionsError extends Error {
  constructor(
    /** no_such_prop: the component has no such prop; no_options: it has no options; options_failed: options() threw or answered badly. */
    readonly code: "no_such_prop" | "no_options" | "options_failed",
    message: string,
  ) {
    super(message);
    this.name = "PropOptionsError";
  }
}

// ---------------------------------------------------------------------------------------------
// Sources' life (implemented in runtime/)

/** A source as the runtime needs it. `configuredProps` are already validated and normalised. */
export interface RunnableSource {
  id: string;
  userId: string;
  componentId: string;
  active: boolean;
  configuredProps: Record<string, unknown>;
  /** Its owner is disabled by an admin: nothing of it runs until they are enabled (runtime reads). */
  ownerDisabled?: boolean;
}

/**
 * Called by the sources module around its writes. Each runs the component's hooks in the
 * documented order and (re)arms or disarms triggers. A hook that throws rejects with a
 * `HookError`; the caller then undoes its write, so a failed request changes nothing.
 */
export interface SourceLifecycle {
  /** deploy, then activate (when active). */
  created(source: RunnableSource): Promise<void>;
  /** deactivate (when it was active), then activate (when it is active). */
  updated(before: RunnableSource, after: RunnableSource): Promise<void>;
  /** deactivate (when active); timers stop, state is dropped with the source. */
  deleted(source: RunnableSource): Promise<void>;
}

export class HookError extends Error {
  constructor(
    readonly hook: string,
    message: string,
  ) {
    super(message);
    this.name = "HookError";
  }
}

// ---------------------------------------------------------------------------------------------
// Events (implemented in events/)

export interface EmitInput {
  emitterId: string;
  ownerId: string;
  /** "" for the default channel, "$errors", "$logs" or a named channel. */
  channel: string;
  event: unknown;
  /** The options given to `$emit`: id (for dedupe), summary, ts. */
  meta?: { id?: unknown; summary?: string; ts?: number };
  /** How many subscription hops led here (cycle bound). */
  hops?: number;
}

export interface StoredEvent {
  id: string;
  emitterId: string;
  channel: string;
  indexedAtMs: number;
}

export interface EventStore {
  /**
   * Stores the events (ids assigned, retention applied) in one transaction, then publishes them
   * and schedules deliveries to subscribed listeners. Resolves only once they are durable.
   */
  append(inputs: EmitInput[]): Promise<StoredEvent[]>;
  /**
   * Like append, and in the same transaction commits a job's completion: its jobs deleted, its
   * `this.db` changes, its quota count (store/repos/completions.ts). A run's results and the end
   * of its job are then one fact: a job whose results are stored never runs again. Rejects, and
   * changes nothing, when a job is already gone (completed elsewhere).
   */
  commit(inputs: EmitInput[], completion: JobCompletion): Promise<StoredEvent[]>;
}

// ---------------------------------------------------------------------------------------------
// Invocations (implemented in runtime/)

/** `schedule` and `manual`: a workflow's own schedules and its Run now (workflows/schedules/). */
export type TriggerKind = "http" | "timer" | "event" | "schedule" | "manual";

export interface InvocationJob {
  /** A source (`dc_`) or workflow (`p_`). */
  targetId: string;
  ownerId: string;
  trigger: TriggerKind;
  event: unknown;
  /** For deliveries: where the event came from, and how many hops it has travelled. */
  origin?: { emitterId: string; eventId: string; channel: string; hops: number };
  /** A workflow's re-run (workflows/runs/): the run it makes, and what it takes from the run it re-runs. */
  rerun?: RerunOrder;
  /** A workflow run that goes on (a retry, the end of a `$.flow.delay`): workflows/runs/continue.ts. */
  resume?: ResumeOrder;
  /** The run a workflow's job is, when not its own id's (a job the dispatcher moved: workflows/dispatch.ts). */
  runId?: string;
  /** Its id, chosen before the insert (a re-run's run names the job a cancel deletes). */
  jobId?: string;
  /** A workflow's scheduled run: the index of its schedule. */
  schedule?: number;
}

/** A run going on from a step: its record is read back, the steps before `from` keep their results. */
export interface ResumeOrder {
  runId: string;
  /** The index of the step it goes on with. */
  from: number;
  attempt: number;
}

/** What a re-run job carries: enough to run without the earlier run (retention may drop it meanwhile). */
export interface RerunOrder {
  runId: string;
  /** The run re-run, and the trigger it had (its trigger's type is RERUN). */
  of: string;
  fromStep?: string;
  /** The workflow's version it runs (default: the current one when it starts). */
  version?: number;
  /** Results of the steps before `fromStep`, by step name: taken, not run again. */
  reused: Record<string, { return_value: unknown; exports: Record<string, unknown> }>;
}

/**
 * The durable queue every invocation goes through (HTTP requests without customResponse,
 * timer ticks, subscription deliveries). `enqueue` resolves once the job survives a crash.
 * Jobs of one target run one at a time, in order.
 */
export interface InvocationQueue {
  enqueue(jobs: InvocationJob[]): Promise<void>;
  /**
   * Inserts the jobs inside the caller's transaction (the one that stores the events they
   * deliver), so they exist exactly when the events do. Call `wake` once it has committed.
   */
  enqueueIn(trx: Db, jobs: InvocationJob[]): Promise<void>;
  /** Jobs for these targets were committed by enqueueIn: look for work now. */
  wake(targetIds: Iterable<string>): void;
}

// ---------------------------------------------------------------------------------------------
// Credentials of connected accounts (implemented in accounts/credentials.ts)

/** A run cannot have its credentials: recorded on the holder's `$errors` with this code. */
export class CredentialsError extends Error {
  constructor(
    readonly code: "secrets_key_mismatch" | "account_not_found",
    message: string,
  ) {
    super(message);
    this.name = "CredentialsError";
  }
}

export interface OpenedCredentials {
  /** The configured props with every account reference replaced by `{$auth: values}`. */
  props: Record<string, unknown>;
  /** Hides the values in the run's logs, errors and emits; undefined when there is nothing to hide. */
  redactor: Redactor | undefined;
}

/** Opens the accounts a holder's props reference, as their owner (rejects with a CredentialsError). */
export interface CredentialOpener {
  open(userId: string, configured: Record<string, unknown>): Promise<OpenedCredentials>;
}

// ---------------------------------------------------------------------------------------------
// Environment variables (implemented in env/run-envs.ts)

/** A user's environment variables as their runs get them: `process.env` in the sandbox. */
export interface RunEnv {
  /**
   * Names this set: two sets with the same key are the same variables, so a worker that holds
   * it is not sent them again. `""` is the empty set.
   */
  key: string;
  vars: Readonly<Record<string, string>>;
  /** Hides the secret values in what a run leaves behind; undefined when there is none to hide. */
  redactor: Redactor | undefined;
}

/** The variables of a user, read for a run (never those of another user). */
export interface EnvOpener {
  forRun(userId: string): Promise<RunEnv>;
}
