/**
 * Workflow runs (decisions.md "Workflow runs"): every invocation of a workflow is a run, kept
 * with what each step did. The one definition of the shape: the server writes it, the dashboard,
 * the CLI and the MCP tools read it.
 */
import * as z from "../zod.js";
import { QueryBool, QueryInt } from "./common.js";
import { PAGE_LIMIT } from "./page.js";

/** A run's statuses; `retrying`, `delayed` and `cancelled` come with the execution controls. */
export const RUN_STATUSES = ["queued", "running", "success", "error", "exited", "retrying", "delayed", "cancelled"] as const;
export const RunStatus = z.enum(RUN_STATUSES);
export type RunStatus = z.infer<typeof RunStatus>;

/** Statuses of a run that has ended: it changes no more (but for a re-run, which is a new run). */
export const ENDED_RUN_STATUSES: readonly RunStatus[] = ["success", "error", "exited", "cancelled"];

export const STEP_STATUSES = ["success", "error", "exited", "skipped", "reused", "running", "pending"] as const;
export const StepStatus = z.enum(STEP_STATUSES);
export type StepStatus = z.infer<typeof StepStatus>;

export const LOG_LEVELS = ["log", "info", "warn", "error"] as const;

/** Limits of what a run keeps (past them the rest is cut, with `truncated: true` on the step). */
export const RUN_LIMITS = {
  /** Log lines per step. */
  logLines: 200,
  /** Bytes of log messages per step. */
  logBytes: 64 * 1024,
  /** Bytes of JSON of a run's values (return values and exports of all its steps, and its recorded response's body). */
  valueBytes: 256 * 1024,
  /** Bytes of an error's message (and name), and of a flow exit's reason. */
  messageBytes: 8 * 1024,
  /** Bytes of an error's stack. */
  stackBytes: 16 * 1024,
  /** Bytes of JSON of the trigger event in lists (unless `expand=event`). */
  listEventBytes: 1024,
} as const;

export const RunLogLine = z.object({
  ts_ms: z.number().check(z.int()),
  level: z.enum(LOG_LEVELS),
  message: z.string(),
});
export type RunLogLine = z.infer<typeof RunLogLine>;

export const StepError = z.object({
  name: z.string(),
  message: z.string(),
  /** The component's own frames only: never a path of the server's files. */
  stack: z.string(),
});
export type StepError = z.infer<typeof StepError>;

export const RunStep = z.looseObject({
  id: z.string(),
  name: z.string(),
  status: StepStatus,
  started_at_ms: z.nullable(z.number().check(z.int())),
  duration_ms: z.nullable(z.number().check(z.int())),
  return_value: z.unknown(),
  exports: z.record(z.string(), z.unknown()),
  logs: z.array(RunLogLine),
  error: z.nullable(StepError),
  /** Set when logs or values were cut at the limits (RUN_LIMITS). */
  truncated: z.optional(z.boolean()),
  /** A test run's: what the step emitted, recorded, neither stored nor delivered. */
  emits: z.optional(z.array(z.object({ channel: z.string(), data: z.unknown() }))),
});
export type RunStep = z.infer<typeof RunStep>;

export const RUN_TRIGGER_TYPES = ["HTTP", "SOURCE", "WORKFLOW", "RERUN", "TEST"] as const;
export const RunTrigger = z.looseObject({
  type: z.enum(RUN_TRIGGER_TYPES),
  emitter_id: z.optional(z.string()),
  event_id: z.optional(z.string()),
  /** A re-run: the run it re-ran, and the step it started from. */
  rerun_of: z.optional(z.string()),
  from_step: z.optional(z.string()),
});
export type RunTrigger = z.infer<typeof RunTrigger>;

/**
 * What the workflow's HTTP caller was answered. As recorded, its body counts toward the run's
 * values (RUN_LIMITS.valueBytes): past them it is `{truncated, size, preview}`, with `truncated`.
 */
export const RunResponse = z.object({
  status: z.number().check(z.int()),
  headers: z.record(z.string(), z.string()),
  body: z.unknown(),
  truncated: z.optional(z.boolean()),
});
export type RunResponse = z.infer<typeof RunResponse>;

export const RunError = z.looseObject({
  code: z.string(),
  message: z.string(),
  /** The failing step's id ("" when the run as a whole failed: timeout, memory, quota). */
  cellId: z.string(),
  /** The failing step's name (null when the run as a whole failed). */
  step: z.nullable(z.string()),
});
export type RunError = z.infer<typeof RunError>;

export const RunAttempt = z.object({
  attempt: z.number().check(z.int()),
  started_at_ms: z.number().check(z.int()),
  ended_at_ms: z.nullable(z.number().check(z.int())),
  status: RunStatus,
  error: z.nullable(RunError),
});
export type RunAttempt = z.infer<typeof RunAttempt>;

export const Run = z.looseObject({
  id: z.string(),
  workflow_id: z.string(),
  status: RunStatus,
  trigger: RunTrigger,
  attempt: z.number().check(z.int()),
  /** The workflow's version the run ran (null: a run from before versions; absent from older servers). */
  version: z.optional(z.nullable(z.number().check(z.int()))),
  started_at_ms: z.nullable(z.number().check(z.int())),
  ended_at_ms: z.nullable(z.number().check(z.int())),
  duration_ms: z.nullable(z.number().check(z.int())),
  /** The trigger event: cut at 1 KB in lists (`{truncated, size, preview}`) unless `expand=event`. */
  event: z.unknown(),
  steps: z.array(RunStep),
  response: z.nullable(RunResponse),
  error: z.nullable(RunError),
  exit_reason: z.nullable(z.string()),
  /** A `retrying` run's next attempt. */
  next_attempt_at_ms: z.optional(z.nullable(z.number().check(z.int()))),
  /** A `delayed` run's resumption (`$.flow.delay`). */
  resume_at_ms: z.optional(z.nullable(z.number().check(z.int()))),
  /** Each attempt of a retried run, oldest first (one for a run that was not retried). */
  attempts: z.optional(z.array(RunAttempt)),
  /** A test run (decisions.md "Building workflows"): its emits and answer were recorded, never sent. */
  test: z.optional(z.boolean()),
});
export type Run = z.infer<typeof Run>;

/** Query of `GET /workflows/{id}/runs`. */
export const RunListQuery = z.object({
  limit: z.optional(z.pipe(QueryInt, z.number().check(z.int(), z.gte(PAGE_LIMIT.min), z.lte(PAGE_LIMIT.max)))),
  after: z.optional(z.string().check(z.minLength(1))),
  before: z.optional(z.string().check(z.minLength(1))),
  status: z.optional(RunStatus),
  expand: z.optional(z.literal("event")),
  /** true: the workflow's test runs (the newest 50) instead of its production runs. */
  test: z.optional(QueryBool),
});
export type RunListQuery = z.input<typeof RunListQuery>;

/** Body of `POST /workflows/{id}/runs/{run_id}/rerun`: `from_step` is a step's name or id. */
export const RerunBody = z.object({
  from_step: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  /** The workflow's version to run (default: its current one). */
  version: z.optional(z.number().check(z.int(), z.positive())),
});
export type RerunBody = z.infer<typeof RerunBody>;

/** How a workflow's endpoint answers its caller (decisions.md "Answering the HTTP caller"). */
export const HTTP_RESPONSE_MODES = ["immediate", "workflow"] as const;
export const HttpResponseMode = z.enum(HTTP_RESPONSE_MODES);
export type HttpResponseMode = z.infer<typeof HttpResponseMode>;

/** The header every answer of a workflow's endpoint carries. */
export const RUN_ID_HEADER = "x-headwater-run-id";

/**
 * Body of `POST /workflows/{id}/test`: runs the draft (or the current version, or `steps`) on
 * `event`, or the event of `event_id` or of `run_id` (default: the latest trigger event, else {}).
 * `from_step` reuses the earlier steps' results of `run_id` (default: the latest test run);
 * `to_step` stops after that step.
 */
export const TestRunBody = z.object({
  event: z.optional(z.unknown()),
  event_id: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  run_id: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  steps: z.optional(
    z.array(
      z.object({
        name: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
        code: z.optional(z.string()),
        action: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
        props: z.optional(z.record(z.string(), z.unknown())),
        configured_props: z.optional(z.record(z.string(), z.unknown())),
      }),
    ).check(z.minLength(1), z.maxLength(50)),
  ),
  from_step: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  to_step: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
});
export type TestRunBody = z.infer<typeof TestRunBody>;
