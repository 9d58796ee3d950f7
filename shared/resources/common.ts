import * as z from "../zod.js";

/** Unix time in whole seconds, as the spec's `created_at` / `updated_at`. */
export const UnixSeconds = z.number().check(z.int(), z.nonnegative());

/** Comma-separated field names (`include` / `exclude`), accepted by every endpoint. */
export const FieldSelection = z.object({
  include: z.optional(z.string()),
  exclude: z.optional(z.string()),
});

/** A query-string integer: accepts "12" as well as 12, rejects anything else. */
export const QueryInt = z.union([
  z.number().check(z.int()),
  z.pipe(
    z.string().check(z.regex(/^-?\d+$/, "must be an integer")),
    z.transform((s: string) => Number(s)),
  ),
]);

/** A query-string boolean: "true"/"false" as well as real booleans. */
export const QueryBool = z.union([
  z.boolean(),
  z.pipe(
    z.enum(["true", "false"]),
    z.transform((s: "true" | "false") => s === "true"),
  ),
]);
