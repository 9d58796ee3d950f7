/**
 * `workflow.yaml`, a workflow kept as a folder (decisions.md "Building workflows", "Workflow
 * files"): its id, the version it was pulled at, its name, triggers, settings, and its steps in
 * order (`{name, file, props?}` for a code step, whose code is that `.mjs` file of the folder and
 * whose `props` are its `configured_props`, or `{name, action, props}`). One schema: the CLI checks a folder with it before pull writes or
 * push sends anything, and the server publishes it as JSON Schema (`GET
 * /v1/schemas/workflow-file.json`, public) for editors. Settings left out keep the workflow's on
 * a push (a new workflow: the server's defaults).
 *
 * `http_auth` never holds the token: `{type: "bearer"}` keeps the token the server has, and
 * `token_env` names an environment variable that holds one to set at push (a new workflow, or a
 * new token).
 */
import * as z from "../zod.js";
import { CONTROL_LIMITS as L } from "./workflow.js";

/** Where the server publishes the JSON Schema of workflow.yaml (no key needed). */
export const WORKFLOW_FILE_SCHEMA_PATH = "/v1/schemas/workflow-file.json";

/** The most schedules a workflow has (decisions.md "Workflow triggers"). */
export const MAX_SCHEDULES = 10;

const int = (r: { min: number; max: number }) => z.number().check(z.int(), z.gte(r.min), z.lte(r.max));
const about = (text: string) => z.describe(text);

const StepName = z
  .string()
  .check(
    z.maxLength(64),
    z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a step name is an identifier"),
    about("the step's name: steps.<name> in the steps after it"),
  );

/** A step's configured props: plain values, `{authProvisionId}` for an app prop, `{{ steps.<path> }}` in strings. */
const Props = z.record(z.string(), z.unknown()).check(about("the step's configured props"));

export const WorkflowFileCodeStep = z.strictObject({
  name: StepName,
  file: z.string().check(
    z.regex(/^[^/\\]+\.(mjs|js)$/, "a file of this folder (no directory), ending in .mjs or .js"),
    z.refine((f) => f !== "." && f !== "..", "a file of this folder"),
    about("the file of this folder that holds the step's code (export default defineComponent({...}))"),
  ),
  props: z.optional(
    Props.check(about("the values of the props the step's code declares (the step's configured_props)")),
  ),
});

export const WorkflowFileActionStep = z.strictObject({
  name: StepName,
  action: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(200),
      about("an action's key (app-action), or a component id (sc_...)"),
    ),
  props: z.optional(Props),
});

export const WorkflowFileStep = z.union([WorkflowFileCodeStep, WorkflowFileActionStep]);
export type WorkflowFileStep = z.infer<typeof WorkflowFileStep>;

/** A cron expression of five fields (minute hour day-of-month month day-of-week). */
const CRON = /^\s*\S+(\s+\S+){4}\s*$/;

/** Whether `zone` is a time zone the runtime knows (an IANA name such as Europe/Paris). */
function knownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const WorkflowFileCronSchedule = z.strictObject({
  cron: z
    .string()
    .check(
      z.maxLength(200),
      z.regex(CRON, "a cron expression has five fields: minute hour day month weekday"),
      about("five fields: minute hour day-of-month month day-of-week"),
    ),
  timezone: z.optional(
    z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(64),
        z.refine(knownZone, "not a known time zone (an IANA name such as Europe/Paris)"),
        about("an IANA time zone; default UTC"),
      ),
  ),
});

export const WorkflowFileIntervalSchedule = z.strictObject({
  interval_seconds: z.number().check(z.int(), z.gte(1), about("a run every this many seconds")),
});

export const WorkflowFileSchedule = z.union([WorkflowFileCronSchedule, WorkflowFileIntervalSchedule]);
export type WorkflowFileSchedule = z.infer<typeof WorkflowFileSchedule>;

/** An environment variable's name (`token_env`). */
const EnvName = z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, "an environment variable's name"));

export const WorkflowFileHttpAuth = z.union([
  z.strictObject({ type: z.literal("none") }),
  z.strictObject({
    type: z.literal("bearer"),
    token_env: z.optional(
      EnvName.check(
        about(
          "the environment variable that holds the token to set at push; left out, the server keeps the token it has",
        ),
      ),
    ),
  }),
]);
export type WorkflowFileHttpAuth = z.infer<typeof WorkflowFileHttpAuth>;

export const WorkflowFile = z
  .strictObject({
    id: z.optional(
      z
        .string()
        .check(
          z.regex(/^p_[A-Za-z0-9]+$/, "a workflow id, p_..."),
          about("the workflow's id; left out, push creates the workflow"),
        ),
    ),
    version: z.optional(
      z
        .number()
        .check(
          z.int(),
          z.gte(1),
          about("the version the folder was pulled at (push refuses when the workflow has moved on)"),
        ),
    ),
    name: z.string().check(z.minLength(1), z.maxLength(200)),
    http_response: z.optional(
      z
        .enum(["immediate", "workflow"])
        .check(about("immediate: the endpoint answers at once; workflow: with the run's $.respond")),
    ),
    retry: z.optional(
      z.strictObject({
        max_attempts: z.optional(int(L.maxAttempts)),
        initial_delay_seconds: z.optional(int(L.initialDelaySeconds)),
        max_delay_seconds: z.optional(int(L.maxDelaySeconds)),
      }),
    ),
    concurrency: z.optional(int(L.concurrency)),
    throttle: z.optional(
      z.nullable(
        z.strictObject({ limit: int(L.throttleLimit), period_seconds: int(L.throttlePeriodSeconds) }),
      ),
    ),
    schedules: z.optional(
      z
        .array(WorkflowFileSchedule)
        .check(
          z.maxLength(MAX_SCHEDULES),
          about("runs started on a timer: a cron in a time zone, or an interval"),
        ),
    ),
    http_auth: z.optional(
      WorkflowFileHttpAuth.check(
        about("whether requests to the endpoint need Authorization: Bearer <token>"),
      ),
    ),
    steps: z.array(WorkflowFileStep).check(z.minLength(1), z.maxLength(50)),
  })
  .check(
    z.meta({
      title: "Headwater workflow.yaml",
      description: "A Headwater workflow kept as a folder: this file and one .mjs file per code step.",
    }),
  );
export type WorkflowFile = z.infer<typeof WorkflowFile>;

/** The JSON Schema (draft 2020-12) of workflow.yaml, named by `id` (the URL it is published at). */
export function workflowFileJsonSchema(id?: string): Record<string, unknown> {
  const schema = z.toJSONSchema(WorkflowFile, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "any",
  }) as Record<string, unknown>;
  return id ? { $schema: schema.$schema, $id: id, ...schema } : schema;
}
