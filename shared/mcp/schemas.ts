/**
 * The tools' output schemas (zod 4, as the MCP SDK takes them). Loose objects: the REST
 * resources carry more fields than a model needs to be told about, and the hosted service's
 * answers may carry others. Every answer may say `truncated` and `note` when it was cut to stay
 * under the result limit (results.ts).
 */
import { z } from "zod";

/** Fields any answer may carry when it was cut (results.ts). */
export const Cut = {
  truncated: z.boolean().optional().describe("true when part of the answer was cut to stay under 64 KB"),
  note: z.string().optional().describe("what was cut, and how to get the rest"),
};

export const PageOut = {
  next_cursor: z.string().nullable().describe("pass as `cursor` for the next page; null on the last page"),
  total_count: z.number().int().describe("items in the whole list"),
};

export const UserOut = z.looseObject({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  admin: z.boolean().optional(),
  daily_invocations_quota: z.number().optional(),
  daily_invocations_used: z.number().optional(),
  daily_compute_time_quota: z.number().optional(),
  daily_compute_time_used: z.number().optional(),
});

export const PropOut = z.looseObject({ name: z.string(), type: z.string() });

export const ComponentOut = z.looseObject({
  id: z.string(),
  key: z.string().optional(),
  name: z.string(),
  version: z.string(),
  description: z.string().nullable().optional(),
  configurable_props: z.array(PropOut).optional(),
  code: z.string().optional(),
});

export const SourceOut = z.looseObject({
  id: z.string(),
  name: z.string(),
  component_id: z.string(),
  active: z.boolean(),
  configured_props: z.record(z.string(), z.unknown()),
  endpoint_url: z.string().optional().describe("the source's HTTP endpoint, when it has one"),
});

export const WorkflowOut = z.looseObject({
  id: z.string(),
  name: z.string(),
  active: z.boolean(),
  endpoint_url: z.string(),
  version: z
    .number()
    .optional()
    .describe("its current version: the base_version of a change made against it (deploy_draft, restore_version)"),
  steps: z.array(z.looseObject({ id: z.string(), name: z.string() })),
  retry: z
    .looseObject({ max_attempts: z.number(), initial_delay_seconds: z.number(), max_delay_seconds: z.number() })
    .optional()
    .describe("how a failed run is retried: max_attempts counts every attempt (1: no retry)"),
  concurrency: z.number().optional().describe("how many runs may run at once"),
  throttle: z
    .looseObject({ limit: z.number(), period_seconds: z.number() })
    .nullable()
    .optional()
    .describe("at most limit runs start in any period_seconds; null: no throttle"),
});

/** A version as list_versions shows it (decisions.md "Building workflows"). */
export const VersionInfoOut = z.looseObject({
  version: z.number().describe("the version's number: 1 on create, +1 on each change of the workflow's content"),
  created_at: z.number().describe("seconds since the epoch"),
  message: z.string().nullable().describe("what the change said of itself"),
  origin: z.string().describe("how it was made: create, update, draft (a deployed draft), restore or push"),
  restored_from: z.number().optional().describe("a restore's: the version whose content it took"),
});

/** One version whole: the workflow as it was then, its steps with their code. */
export const VersionOut = VersionInfoOut.extend({ workflow: WorkflowOut });

/** A workflow's draft: what a deploy would make the next version, and what keeps it from deploying. */
export const DraftOut = z.looseObject({
  base_version: z.number().describe("the version the draft started from"),
  updated_at: z.number(),
  workflow: WorkflowOut.describe("the workflow as the draft would deploy it, steps with their code"),
  problems: z
    .array(
      z.looseObject({
        step: z.string(),
        prop: z.string().optional().describe("a prop of the step whose value is missing or wrong"),
        line: z.number().nullable(),
        column: z.number().nullable(),
        message: z.string(),
      }),
    )
    .describe("steps whose code does not parse (with where) or whose configured_props are wrong: a draft with problems cannot be deployed"),
  step_props: z
    .record(z.string(), z.array(z.looseObject({ name: z.string(), type: z.string() })))
    .optional()
    .describe("the props each code step's code declares, by step name: what its configured_props give values for"),
});

export const EventOut = z.looseObject({
  id: z.string().describe("the event id, `<ms>-<seq>`: also the cursor and a replay/delete bound"),
  indexed_at_ms: z.number(),
  event: z.unknown().describe("the event's data (over 4 KB in lists: {truncated, size, preview})"),
  metadata: z.looseObject({ name: z.string().optional(), summary: z.string().optional() }),
  truncated: z.boolean().optional().describe("true when `event` is only a preview: get_event gives it whole"),
});

export const SubscriptionOut = z.looseObject({
  id: z.string(),
  emitter_id: z.string(),
  listener_id: z.string(),
  event_name: z.string(),
});

export const StatsPointOut = z.object({
  t: z.number(),
  events: z.number(),
  errors: z.number(),
  logs: z.number(),
  invocations: z.number(),
  compute_ms: z.number(),
});

/** A workflow run (shared/resources/run.ts); in list_runs its steps carry no logs or values. */
export const RunOut = z.looseObject({
  id: z.string().describe("the run id, r_...: the run_id of get_run, rerun and cancel_run"),
  workflow_id: z.string(),
  status: z.string().describe("queued, running, success, error, exited, retrying, delayed or cancelled"),
  trigger: z
    .looseObject({ type: z.string() })
    .describe("what started it: HTTP, SOURCE, WORKFLOW (emitter_id, event_id) or RERUN (rerun_of, from_step)"),
  attempt: z.number(),
  started_at_ms: z.number().nullable(),
  ended_at_ms: z.number().nullable(),
  duration_ms: z.number().nullable(),
  event: z.unknown().describe("the trigger event (in list_runs over 1 KB: {truncated, size, preview}; get_run has it whole)"),
  steps: z.array(z.looseObject({ name: z.string(), status: z.string() })),
  response: z.looseObject({ status: z.number() }).nullable().describe("what the HTTP caller was answered, or null"),
  error: z.looseObject({ code: z.string(), message: z.string() }).nullable(),
  exit_reason: z.string().nullable(),
  next_attempt_at_ms: z.number().nullable().optional().describe("a retrying run's next attempt (ms since the epoch)"),
  resume_at_ms: z.number().nullable().optional().describe("when a delayed run goes on ($.flow.delay; ms since the epoch)"),
  attempts: z
    .array(z.looseObject({ attempt: z.number(), status: z.string() }))
    .optional()
    .describe("each attempt of a retried run, oldest first, with its start, end, status and error"),
});

/** One run of a comparison (compare_runs). */
const ComparedRunOut = z.looseObject({
  id: z.string(),
  status: z.string(),
  test: z.boolean(),
  version: z.number().nullable().describe("the workflow version it ran (null: a test of a draft or local steps, or a run from before versions)"),
  code_of: z.string().nullable().describe("version, draft or steps: where its code came from; null: not known (no code diff)"),
  duration_ms: z.number().nullable(),
});

/** Two runs compared step by step (decisions.md "Building workflows", "Compare runs"). */
export const ComparisonOut = z.looseObject({
  run: ComparedRunOut.describe("the run compared"),
  with: ComparedRunOut.describe("the run it is compared with"),
  steps: z
    .array(
      z.looseObject({
        name: z.string(),
        run: z.looseObject({ status: z.string(), duration_ms: z.number().nullable(), position: z.number() }).nullable(),
        with: z.looseObject({ status: z.string(), duration_ms: z.number().nullable(), position: z.number() }).nullable(),
        status_changed: z.boolean(),
        code_changed: z.boolean().nullable(),
        code_diff: z.string().nullable().describe("unified diff of the step's code, from `with`'s to the run's"),
        differing_paths: z.array(z.string()).nullable().describe("e.g. $return_value.items[2].id, exports.total"),
        paths_truncated: z.boolean(),
      }),
    )
    .describe("each step (by name): null on the side of a run that does not have it"),
});
