import * as z from "../zod.js";
import { UnixSeconds } from "./common.js";
import { MAX_COMPONENT_CODE_BYTES } from "./component.js";

/** A timer prop as the API returns it. Requests send `{intervalSeconds}` or `{cron}`. */
export const TimerValue = z.object({
  cron: z.nullable(z.string()),
  interval_seconds: z.nullable(z.number().check(z.int())),
});
export type TimerValue = z.infer<typeof TimerValue>;

/** A timer prop as a request may send it (the hosted service's shape, plus our own). */
export const TimerInput = z
  .object({
    intervalSeconds: z.optional(z.number().check(z.int(), z.gte(1))),
    interval_seconds: z.optional(z.number().check(z.int(), z.gte(1))),
    cron: z.optional(z.nullable(z.string().check(z.minLength(1)))),
  })
  .check(
    z.refine((t) => t.intervalSeconds ?? t.interval_seconds ?? t.cron, {
      message: "a timer needs intervalSeconds or cron",
    }),
  );
export type TimerInput = z.infer<typeof TimerInput>;

/** An HTTP prop as the API returns it. */
export const HttpValue = z.object({ endpoint_url: z.string() });
export type HttpValue = z.infer<typeof HttpValue>;

export const Source = z.looseObject({
  id: z.string(),
  user_id: z.optional(z.string()),
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
  component_id: z.optional(z.string().check(z.minLength(1))),
  component_code: z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_COMPONENT_CODE_BYTES))),
  component_url: z.optional(z.url({ protocol: /^https?$/ })),
  key: z.optional(z.string().check(z.minLength(1))),
  name: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  configured_props: z.optional(z.record(z.string(), z.unknown())),
};

/** Body of `POST /sources/`: one of component_id, component_code, component_url or key. */
export const CreateSourceBody = z.object(SourceBodyFields).check(
  z.refine((b) => b.component_id ?? b.component_code ?? b.component_url ?? b.key, {
    message: "one of component_id, component_code, component_url or key is required",
    path: ["component_id"],
  }),
);
export type CreateSourceBody = z.infer<typeof CreateSourceBody>;

/**
 * Body of `PUT /sources/{id}`. The spec requires a component reference on update too;
 * `active` defaults to true.
 */
export const UpdateSourceBody = z.object({ ...SourceBodyFields, active: z.optional(z.boolean()) }).check(
  z.refine((b) => b.component_id ?? b.component_code ?? b.component_url ?? b.key, {
    message: "one of component_id, component_code, component_url or key is required",
    path: ["component_id"],
  }),
);
export type UpdateSourceBody = z.infer<typeof UpdateSourceBody>;
