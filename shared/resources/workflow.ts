import * as z from "../zod.js";
import { UnixSeconds } from "./common.js";
import { MAX_COMPONENT_CODE_BYTES, PropDescriptor } from "./component.js";
import { HttpResponseMode } from "./run.js";

/**
 * A step runs code, or an action by key (decisions.md "Actions"): `action` is the key asked for,
 * `component_id` the component it was found as when the step was saved (what runs), `props` its
 * configured props (app props as `{authProvisionId}`; values may hold `{{ steps.<path> }}`).
 * An action step's `code` is a one-line comment naming the action (so that every step has code
 * to show); sent back with `action`, it is ignored.
 * A code step's `configured_props` give the values of the props its code declares
 * (decisions.md "Code steps with props"): `{authProvisionId}` for an `app` prop, plain values
 * for `string`, `integer`, `boolean`; `this.<prop>` in its run.
 */
export const WorkflowStep = z.object({
  id: z.string(),
  name: z.string(),
  code: z.string(),
  action: z.optional(z.string()),
  component_id: z.optional(z.string()),
  props: z.optional(z.record(z.string(), z.unknown())),
  configured_props: z.optional(z.record(z.string(), z.unknown())),
});
export type WorkflowStep = z.infer<typeof WorkflowStep>;

/** A code step's configured props, by prop name (checked against what its code declares when saved). */
const ConfiguredProps = z.record(z.string().check(z.maxLength(64)), z.unknown());

/** Execution controls' ranges and defaults (decisions.md "Execution controls"). */
export const CONTROL_LIMITS = {
  maxAttempts: { min: 1, max: 10, default: 1 },
  initialDelaySeconds: { min: 1, max: 3600, default: 5 },
  maxDelaySeconds: { min: 1, max: 86_400, default: 3600 },
  concurrency: { min: 1, max: 100, default: 1 },
  throttleLimit: { min: 1, max: 10_000 },
  throttlePeriodSeconds: { min: 1, max: 86_400 },
  /** `$.flow.delay(ms)`: 1 ms to 30 days. */
  delayMs: { min: 1, max: 30 * 86_400_000 },
} as const;

const intIn = (r: { min: number; max: number }) => z.number().check(z.int(), z.gte(r.min), z.lte(r.max));

/** How a failed run is retried: from its failed step, after a delay that doubles each attempt. */
export const RetryPolicy = z.object({
  max_attempts: intIn(CONTROL_LIMITS.maxAttempts),
  initial_delay_seconds: intIn(CONTROL_LIMITS.initialDelaySeconds),
  max_delay_seconds: intIn(CONTROL_LIMITS.maxDelaySeconds),
});
export type RetryPolicy = z.infer<typeof RetryPolicy>;

/** At most `limit` runs start in any `period_seconds`; the others wait in the durable queue. */
export const Throttle = z.object({
  limit: intIn(CONTROL_LIMITS.throttleLimit),
  period_seconds: intIn(CONTROL_LIMITS.throttlePeriodSeconds),
});
export type Throttle = z.infer<typeof Throttle>;

/** The retry policy as create and update take it: the fields not named keep their value (or default). */
const RetryInput = z.object({
  max_attempts: z.optional(intIn(CONTROL_LIMITS.maxAttempts)),
  initial_delay_seconds: z.optional(intIn(CONTROL_LIMITS.initialDelaySeconds)),
  max_delay_seconds: z.optional(intIn(CONTROL_LIMITS.maxDelaySeconds)),
});

const Controls = {
  retry: z.optional(RetryInput),
  concurrency: z.optional(intIn(CONTROL_LIMITS.concurrency)),
  /** null: no throttle. */
  throttle: z.optional(z.nullable(Throttle)),
};

/** A workflow (extension: the spec reads its events but does not say how it is made). */
export const Workflow = z.looseObject({
  id: z.string(),
  user_id: z.optional(z.string()),
  name: z.string(),
  deployment_id: z.string(),
  steps: z.array(WorkflowStep),
  endpoint_url: z.string(),
  active: z.boolean(),
  /** How its endpoint answers: at once (`immediate`), or with the run's `$.respond` (`workflow`). */
  http_response: z.optional(HttpResponseMode),
  /** Execution controls (always answered by this server; absent from older ones). */
  retry: z.optional(RetryPolicy),
  concurrency: z.optional(z.number().check(z.int())),
  throttle: z.optional(z.nullable(Throttle)),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
  /** Its current version (decisions.md "Building workflows"): 1 on create, +1 on each change of its content. */
  version: z.optional(z.number().check(z.int(), z.positive())),
});
export type Workflow = z.infer<typeof Workflow>;

const StepInput = z.object({
  name: z.optional(
    z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(64),
        z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a step name is an identifier"),
      ),
  ),
  /** Ignored when `action` is given (a step read back carries both). */
  code: z.optional(z.string().check(z.maxLength(MAX_COMPONENT_CODE_BYTES))),
  /** An action's key (or a component id, `sc_...`), instead of code. */
  action: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  props: z.optional(z.record(z.string(), z.unknown())),
  /** A code step's: the values of the props its code declares. */
  configured_props: z.optional(ConfiguredProps),
}).check(
  z.refine((s) => s.action !== undefined || (s.code !== undefined && s.code.length > 0), {
    message: "a step needs code or an action",
    path: ["code"],
  }),
  z.refine((s) => s.action !== undefined || s.props === undefined, {
    message: "props belong to an action step (a code step's prop values are its configured_props)",
    path: ["props"],
  }),
  z.refine((s) => s.action === undefined || s.configured_props === undefined, {
    message: "configured_props belong to a code step (an action step's are its props)",
    path: ["configured_props"],
  }),
);

export const CreateWorkflowBody = z.object({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  steps: z.array(StepInput).check(z.minLength(1), z.maxLength(50)),
  active: z.optional(z.boolean()),
  http_response: z.optional(HttpResponseMode),
  ...Controls,
});
export type CreateWorkflowBody = z.infer<typeof CreateWorkflowBody>;

const Version = z.number().check(z.int(), z.positive());
/** What a change that makes a version may say of itself. */
const Message = z.optional(z.string().check(z.maxLength(1000)));

/**
 * An update (decisions.md "Building workflows"): a change of its content is a new version;
 * `base_version`, when given, must be the current one (else 409 `version_conflict`, nothing changed).
 */
export const UpdateWorkflowBody = z.object({
  name: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  steps: z.optional(z.array(StepInput).check(z.minLength(1), z.maxLength(50))),
  active: z.optional(z.boolean()),
  http_response: z.optional(HttpResponseMode),
  ...Controls,
  base_version: z.optional(Version),
  message: Message,
  /** What made the change, as its version records it (`push`: workflow files, the CLI's push). */
  origin: z.optional(z.enum(["update", "push"])),
});
export type UpdateWorkflowBody = z.infer<typeof UpdateWorkflowBody>;

/** Where a version came from. */
export const VersionOrigin = z.enum(["create", "update", "draft", "restore", "push"]);
export type VersionOrigin = z.infer<typeof VersionOrigin>;

/** A version as the list shows it. */
export const WorkflowVersionInfo = z.object({
  version: Version,
  created_at: UnixSeconds,
  message: z.nullable(z.string()),
  origin: VersionOrigin,
  /** A restore's: the version whose content it took. */
  restored_from: z.optional(Version),
});
export type WorkflowVersionInfo = z.infer<typeof WorkflowVersionInfo>;

/** One version whole: the workflow as it was. */
export const WorkflowVersion = z.object({
  ...WorkflowVersionInfo.shape,
  workflow: Workflow,
});
export type WorkflowVersion = z.infer<typeof WorkflowVersion>;

export const RestoreVersionBody = z.object({ message: Message, base_version: z.optional(Version) });
export type RestoreVersionBody = z.infer<typeof RestoreVersionBody>;

/** A step of a draft: work in progress, never refused (code that does not parse is listed in `problems`). */
const DraftStepInput = z.object({
  name: StepInput.shape.name,
  code: z.optional(z.string().check(z.maxLength(MAX_COMPONENT_CODE_BYTES))),
  action: StepInput.shape.action,
  props: StepInput.shape.props,
  configured_props: StepInput.shape.configured_props,
});

/** A draft's change: the fields it names replace the draft's (a new draft starts as the current version). */
export const DraftBody = z.object({
  name: UpdateWorkflowBody.shape.name,
  steps: z.optional(z.array(DraftStepInput).check(z.maxLength(50))),
  http_response: z.optional(HttpResponseMode),
  ...Controls,
});
export type DraftBody = z.infer<typeof DraftBody>;

/** What keeps a draft from being deployed: a step's code that does not parse, with where; or a bad prop value. */
export const StepProblem = z.object({
  step: z.string(),
  /** A problem of one of the step's configured props: its name. */
  prop: z.optional(z.string()),
  line: z.nullable(z.number().check(z.int())),
  column: z.nullable(z.number().check(z.int())),
  message: z.string(),
});
export type StepProblem = z.infer<typeof StepProblem>;

export const WorkflowDraft = z.object({
  base_version: Version,
  updated_at: UnixSeconds,
  /** The workflow as the draft would deploy it. */
  workflow: Workflow,
  problems: z.array(StepProblem),
  /** The props each code step's code declares, by step name (what the builder asks values for). */
  step_props: z.optional(z.record(z.string(), z.array(PropDescriptor))),
});
export type WorkflowDraft = z.infer<typeof WorkflowDraft>;

export const DeployDraftBody = z.object({ message: Message, base_version: z.optional(Version) });
export type DeployDraftBody = z.infer<typeof DeployDraftBody>;
