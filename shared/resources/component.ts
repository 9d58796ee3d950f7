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
  /** The prop's choices come from its `async options()`: ask POST /components/{id}/props/{prop}/options. */
  remoteOptions: z.boolean().optional(),
  /** An app prop: the `$auth` fields its code reads (a hint for the credentials form). */
  authFields: z.array(z.string()).optional(),
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

/**
 * `POST /components/{id}/props/{prop}/options`: the props configured so far (an app prop as
 * `{$auth: {...}}`), the `context` of the previous answer to get the next page, the page number
 * (from 0) and the text typed so far, as the hosted service hands them to `options()`.
 */
export const PropOptionsBody = z.object({
  configured_props: z.record(z.string(), z.unknown()).optional(),
  prev_context: z.record(z.string(), z.unknown()).nullable().optional(),
  page: z.number().int().min(0).max(10_000).optional(),
  query: z.string().max(1000).optional(),
});
export type PropOptionsBody = z.infer<typeof PropOptionsBody>;

/** One choice: a plain option `"x"` comes back as `{label: "x", value: "x"}`. */
export const PropOption = z.object({ label: z.string(), value: z.unknown() });
export type PropOption = z.infer<typeof PropOption>;

/** The choices, and the `context` to send back as `prev_context` for the next page (or null). */
export const PropOptions = z.object({ data: z.array(PropOption), context: z.unknown() });
export type PropOptions = z.infer<typeof PropOptions>;
