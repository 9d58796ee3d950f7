import * as z from "../zod.js";
import { QueryInt, UnixSeconds } from "./common.js";

/**
 * One configurable prop as the component declares it, with functions removed.
 * Loose: components may carry any documented prop option (optional, secret, options, min, ...).
 */
export const PropDescriptor = z.looseObject({
  name: z.string(),
  type: z.string(),
  label: z.optional(z.string()),
  description: z.optional(z.string()),
  default: z.optional(z.unknown()),
  app: z.optional(z.string()),
  optional: z.optional(z.boolean()),
  secret: z.optional(z.boolean()),
  options: z.optional(z.array(z.unknown())),
  min: z.optional(z.number()),
  max: z.optional(z.number()),
  customResponse: z.optional(z.boolean()),
  /** The prop's choices come from its `async options()`: ask POST /components/{id}/props/{prop}/options. */
  remoteOptions: z.optional(z.boolean()),
  /** An app prop: the `$auth` fields its code reads (a hint for the credentials form). */
  authFields: z.optional(z.array(z.string())),
});
export type PropDescriptor = z.infer<typeof PropDescriptor>;

export const Component = z.looseObject({
  id: z.string(),
  key: z.optional(z.string()),
  code: z.string(),
  code_hash: z.string(),
  name: z.string(),
  version: z.string(),
  description: z.optional(z.nullable(z.string())),
  component_url: z.optional(z.nullable(z.string())),
  published: z.optional(z.boolean()),
  configurable_props: z.array(PropDescriptor),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export type Component = z.infer<typeof Component>;

/** Largest component source accepted, in bytes. */
export const MAX_COMPONENT_CODE_BYTES = 512 * 1024;

export const CreateComponentBody = z
  .object({
    component_code: z.optional(z.string().check(z.minLength(1), z.maxLength(MAX_COMPONENT_CODE_BYTES))),
    component_url: z.optional(z.url({ protocol: /^https?$/ })),
  })
  .check(
    z.refine((b) => b.component_code !== undefined || b.component_url !== undefined, {
      message: "one of component_code or component_url is required",
      path: ["component_code"],
    }),
  );
export type CreateComponentBody = z.infer<typeof CreateComponentBody>;

/**
 * `POST /components/{id}/props/{prop}/options`: the props configured so far (an app prop as
 * `{$auth: {...}}`), the `context` of the previous answer to get the next page, the page number
 * (from 0) and the text typed so far, as the hosted service hands them to `options()`.
 */
export const PropOptionsBody = z.object({
  configured_props: z.optional(z.record(z.string(), z.unknown())),
  prev_context: z.optional(z.nullable(z.record(z.string(), z.unknown()))),
  page: z.optional(z.number().check(z.int(), z.gte(0), z.lte(10_000))),
  query: z.optional(z.string().check(z.maxLength(1000))),
});
export type PropOptionsBody = z.infer<typeof PropOptionsBody>;

/** One choice: a plain option `"x"` comes back as `{label: "x", value: "x"}`. */
export const PropOption = z.object({ label: z.string(), value: z.unknown() });
export type PropOption = z.infer<typeof PropOption>;

/** The choices, and the `context` to send back as `prev_context` for the next page (or null). */
export const PropOptions = z.object({ data: z.array(PropOption), context: z.unknown() });
export type PropOptions = z.infer<typeof PropOptions>;

/** `GET /components/search`: the words typed (empty: every known component) and how many to answer. */
export const ComponentSearchQuery = z.object({
  q: z.optional(z.string().check(z.maxLength(200))),
  limit: z.optional(z.pipe(QueryInt, z.number().check(z.int(), z.gte(1), z.lte(200)))),
});
export type ComponentSearchQuery = z.input<typeof ComponentSearchQuery>;

/**
 * One component a search found: in the registry (published, built-in, or a vendor component
 * looked up before) or in a vendor package the server has fetched (`origin: "vendor"`, described
 * on first lookup by key). `GET /components/registry/{key}` reads it whole.
 */
export const ComponentMatch = z.object({
  key: z.string(),
  name: z.string(),
  description: z.nullable(z.string()),
  type: z.enum(["source", "action"]),
  origin: z.enum(["registry", "vendor"]),
  /** The vendor package it comes from (`@pipedream/<app>`), when it does. */
  package: z.optional(z.string()),
  /** How it matched: the key or name equal to the query, starting with it, containing it, or a near spelling. */
  match: z.enum(["exact", "prefix", "contains", "fuzzy", "all"]),
});
export type ComponentMatch = z.infer<typeof ComponentMatch>;

/**
 * The search's answer, best first. `app` says what came of a query that names an app
 * (`github`): its vendor package `@pipedream/<app>` was fetched and its sources listed, npm has
 * no such package, npm could not be asked now, or the server looks up no vendor packages.
 */
export const ComponentSearch = z.object({
  data: z.array(ComponentMatch),
  app: z.optional(
    z.object({
      name: z.string(),
      package: z.string(),
      status: z.enum(["listed", "not_found", "unavailable", "off"]),
      message: z.optional(z.string()),
    }),
  ),
});
export type ComponentSearch = z.infer<typeof ComponentSearch>;
