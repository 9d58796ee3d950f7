import { z } from "zod";
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
  user_id: z.string().optional(),
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
  name: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "a step name is an identifier")
    .optional(),
  code: z.string().min(1).max(MAX_COMPONENT_CODE_BYTES),
});

export const CreateWorkflowBody = z.object({
  name: z.string().min(1).max(200),
  steps: z.array(StepInput).min(1).max(50),
  active: z.boolean().optional(),
});
export type CreateWorkflowBody = z.infer<typeof CreateWorkflowBody>;

export const UpdateWorkflowBody = z.object({
  name: z.string().min(1).max(200).optional(),
  steps: z.array(StepInput).min(1).max(50).optional(),
  active: z.boolean().optional(),
});
export type UpdateWorkflowBody = z.infer<typeof UpdateWorkflowBody>;
