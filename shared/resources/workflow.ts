import * as z from "../zod.js";
import { UnixSeconds } from "./common.js";
import { MAX_COMPONENT_CODE_BYTES } from "./component.js";

export const WorkflowStep = z.object({
  id: z.string(),
  name: z.string(),
  code: z.string(),
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
  code: z.string().check(z.minLength(1), z.maxLength(MAX_COMPONENT_CODE_BYTES)),
});

export const CreateWorkflowBody = z.object({
  name: z.string().check(z.minLength(1), z.maxLength(200)),
  steps: z.array(StepInput).check(z.minLength(1), z.maxLength(50)),
  active: z.optional(z.boolean()),
});
export type CreateWorkflowBody = z.infer<typeof CreateWorkflowBody>;

export const UpdateWorkflowBody = z.object({
  name: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  steps: z.optional(z.array(StepInput).check(z.minLength(1), z.maxLength(50))),
  active: z.optional(z.boolean()),
});
export type UpdateWorkflowBody = z.infer<typeof UpdateWorkflowBody>;
