import { z } from "zod";
import { UnixSeconds } from "./common.js";

/**
 * One configurable prop as the component declares it, with functions removed.
 * Loose: components may carry any documented prop option (optional, secret, options, min, ...).
 */
export const PropDescriptor = z.looseObject({
  name: z.string(),
  type: z.string(),
  label: z.string().optional(),
  description: z.string().optional(),
  default: z.unknown().optional(),
  app: z.string().optional(),
  optional: z.boolean().optional(),
  secret: z.boolean().optional(),
  options: z.array(z.unknown()).optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  customResponse: z.boolean().optional(),
});
export type PropDescriptor = z.infer<typeof PropDescriptor>;

export const Component = z.looseObject({
  id: z.string(),
  key: z.string().optional(),
  code: z.string(),
  code_hash: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.string().nullable().optional(),
  component_url: z.string().nullable().optional(),
  published: z.boolean().optional(),
  configurable_props: z.array(PropDescriptor),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export type Component = z.infer<typeof Component>;

/** Largest component source accepted, in bytes. */
export const MAX_COMPONENT_CODE_BYTES = 512 * 1024;

export const CreateComponentBody = z
  .object({
    component_code: z.string().min(1).max(MAX_COMPONENT_CODE_BYTES).optional(),
    component_url: z.url({ protocol: /^https?$/ }).optional(),
  })
  .refine((b) => b.component_code !== undefined || b.component_url !== undefined, {
    message: "one of component_code or component_url is required",
    path: ["component_code"],
  });
export type CreateComponentBody = z.infer<typeof CreateComponentBody>;
