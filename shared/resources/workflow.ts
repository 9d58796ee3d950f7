import * as z from "../zod.js";
import { UnixSeconds } from "./common.js";
import { MAX_COMPONENT_CODE_BYTES } from "./component.js";
import { HttpResponseMode } from "./run.js";

/**
 * A step runs code, or an action by key (decisions.md "Actions"): `action` is the key asked for,
 * `component_id` the component it was found as when the step was saved (what runs), `props` its
 * configured props (app props as `{authProvisionId}`; values may hold `{{ steps.<path> }}`).
 * An action step's `code` is a one-line comment naming the action (so that every step has code
 * to show); sent back with `action`, it is ignored.
 */
export const WorkflowStep = z.object({
  id: z.string(),
  name: z.string(),
  code: z.string(),
  action: z.optional(z.string()),
  component_id: z.optional(z.string()),
  props: z.optional(z.record(z.string(), z.unknown())),
});
export type WorkflowStep = z.infer<typeof WorkflowStep>;

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
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
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
}).check(
  z.refine((s) => s.action !== undefined || (s.code !== undefined && s.code.length > 0), {
    message: "a step needs code or an action",
    path: ["code"],
  }),
  z.refine((s) => s.action !== undefined || s.props === undefined, {
    message: "props belong to an action step",
    path: ["props"],
  }),
);

export const CreateWorkflowBody = z.object({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  steps: z.array(StepInput).check(z.minLength(1), z.maxLength(50)),
  active: z.optional(z.boolean()),
  http_response: z.optional(HttpResponseMode),
});
export type CreateWorkflowBody = z.infer<typeof CreateWorkflowBody>;

export const UpdateWorkflowBody = z.object({
  name: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  steps: z.optional(z.array(StepInput).check(z.minLength(1), z.maxLength(50))),
  active: z.optional(z.boolean()),
  http_response: z.optional(HttpResponseMode),
});
export type UpdateWorkflowBody = z.infer<typeof UpdateWorkflowBody>;
