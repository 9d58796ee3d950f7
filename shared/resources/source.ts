import { z } from "zod";
import { UnixSeconds } from "./common.js";
import { MAX_COMPONENT_CODE_BYTES } from "./component.js";

/** A timer prop as the API returns it. Requests send `{intervalSeconds}` or `{cron}`. */
export const TimerValue = z.object({
  cron: z.string().nullable(),
  interval_seconds: z.number().int().nullable(),
});
export type TimerValue = z.infer<typeof TimerValue>;

/** A timer prop as a request may send it (the hosted service's shape, plus our own). */
export const TimerInput = z
  .object({
    intervalSeconds: z.number().int().min(1).optional(),
    interval_seconds: z.number().int().min(1).optional(),
    cron: z.string().min(1).nullable().optional(),
  })
  .refine((t) => t.intervalSeconds ?? t.interval_seconds ?? t.cron, {
    message: "a timer needs intervalSeconds or cron",
  });
export type TimerInput = z.infer<typeof TimerInput>;

/** An HTTP prop as the API returns it. */
export const HttpValue = z.object({ endpoint_url: z.string() });
export type HttpValue = z.infer<typeof HttpValue>;

export const Source = z.looseObject({
  id: z.string(),
  user_id: z.string().optional(),
  component_id: z.string(),
  configured_props: z.record(z.string(), z.unknown()),
  active: z.boolean(),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
  name: z.string(),
  name_slug: z.string(),
});
export type Source = z.infer<typeof Source>;

const SourceBodyFields = {
  component_id: z.string().min(1).optional(),
  component_code: z.string().min(1).max(MAX_COMPONENT_CODE_BYTES).optional(),
  component_url: z.url({ protocol: /^https?$/ }).optional(),
  key: z.string().min(1).optional(),
  name: z.string().min(1).max(200).optional(),
  configured_props: z.record(z.string(), z.unknown()).optional(),
};

/** Body of `POST /sources/`: one of component_id, component_code, component_url or key. */
export const CreateSourceBody = z
  .object(SourceBodyFields)
  .refine((b) => b.component_id ?? b.component_code ?? b.component_url ?? b.key, {
    message: "one of component_id, component_code, component_url or key is required",
    path: ["component_id"],
  });
export type CreateSourceBody = z.infer<typeof CreateSourceBody>;

/**
 * Body of `PUT /sources/{id}`. The spec requires a component reference on update too;
 * `active` defaults to true.
 */
export const UpdateSourceBody = z
  .object({ ...SourceBodyFields, active: z.boolean().optional() })
  .refine((b) => b.component_id ?? b.component_code ?? b.component_url ?? b.key, {
    message: "one of component_id, component_code, component_url or key is required",
    path: ["component_id"],
  });
export type UpdateSourceBody = z.infer<typeof UpdateSourceBody>;
