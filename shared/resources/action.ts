/**
 * Actions (extension, decisions.md "Actions"): the hosted service's components of
 * `type: "action"` (e.g. `@pipedream/<app>`'s `actions/*`), found by app and run by key.
 */
import * as z from "../zod.js";
import { MAX_COMPONENT_CODE_BYTES, PropOption } from "./component.js";

/** One prop of an action, as a form or a CLI needs it. `options`: it has choices (fixed or from `options()`). */
export const ActionProp = z.looseObject({
  name: z.string(),
  type: z.string(),
  label: z.optional(z.string()),
  description: z.optional(z.string()),
  optional: z.optional(z.boolean()),
  options: z.optional(z.boolean()),
  app: z.optional(z.string()),
  default: z.optional(z.unknown()),
});
export type ActionProp = z.infer<typeof ActionProp>;

export const Action = z.looseObject({
  key: z.string(),
  name: z.string(),
  description: z.nullable(z.string()),
  version: z.string(),
  /** The app whose package holds it (`helper_functions`); for an account's own action, its key's app part. */
  app: z.nullable(z.string()),
  props: z.array(ActionProp),
  /** The account's own component (`sc_...`); absent for the vendor's. */
  component_id: z.optional(z.string()),
});
export type Action = z.infer<typeof Action>;

export const ActionsQuery = z.object({
  /** The app (`@pipedream/<app>`); without it only the account's own actions are listed. */
  app: z.optional(z.string().check(z.minLength(1), z.maxLength(100))),
  /** Matches key, name and description, case-insensitively. */
  q: z.optional(z.string().check(z.maxLength(200))),
});
export type ActionsQuery = z.infer<typeof ActionsQuery>;

export const ActionKeyParams = z.object({ key: z.string().check(z.minLength(1), z.maxLength(200)) });

/** Which action: by key (the account's own, else the vendor's), by component id, or by code. */
const ActionRef = {
  key: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
  component_id: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
};
const exactlyOne = (fields: string[]) =>
  z.refine((b: unknown) => fields.filter((f) => (b as Record<string, unknown>)[f] !== undefined).length === 1, {
    message: `give exactly one of ${fields.join(", ")}`,
    path: [fields[0]!],
  });

export const RunActionBody = z
  .object({
    ...ActionRef,
    component_code: z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_COMPONENT_CODE_BYTES))),
    /** App props as `{authProvisionId}` or inline `{$auth}` (used for this run, never stored). */
    configured_props: z.optional(z.record(z.string(), z.unknown())),
  })
  .check(exactlyOne(["key", "component_id", "component_code"]));
export type RunActionBody = z.infer<typeof RunActionBody>;

export const ActionLogLine = z.object({ level: z.string(), message: z.string() });

/** What one run gives back; a thrown error is `error` (the request itself succeeded). */
export const ActionResult = z.looseObject({
  ret: z.unknown(),
  exports: z.record(z.string(), z.unknown()),
  summary: z.nullable(z.string()),
  logs: z.array(ActionLogLine),
  error: z.nullable(z.object({ name: z.string(), message: z.string() })),
  /** `$.flow.exit(reason)` ended the run early (not an error). */
  exit: z.optional(z.nullable(z.string())),
  duration_ms: z.number(),
});
export type ActionResult = z.infer<typeof ActionResult>;

export const ActionOptionsBody = z
  .object({
    ...ActionRef,
    prop_name: z.string().check(z.minLength(1), z.maxLength(200)),
    configured_props: z.optional(z.record(z.string(), z.unknown())),
    prev_context: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
    page: z.optional(z.number().check(z.int(), z.gte(0), z.lte(10_000))),
    query: z.optional(z.string().check(z.maxLength(1000))),
  })
  .check(exactlyOne(["key", "component_id"]));
export type ActionOptionsBody = z.infer<typeof ActionOptionsBody>;

export const ActionOptions = z.object({ options: z.array(PropOption), context: z.unknown() });
export type ActionOptions = z.infer<typeof ActionOptions>;
