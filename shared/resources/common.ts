import { z } from "zod";

/** Unix time in whole seconds, as the spec's `created_at` / `updated_at`. */
export const UnixSeconds = z.number().int().nonnegative();

/** Comma-separated field names (`include` / `exclude`), accepted by every endpoint. */
export const FieldSelection = z.object({
  include: z.string().optional(),
  exclude: z.string().optional(),
});

/** A query-string integer: accepts "12" as well as 12, rejects anything else. */
export const QueryInt = z.union([
  z.number().int(),
  z
    .string()
    .regex(/^-?\d+$/, "must be an integer")
    .transform((s) => Number(s)),
]);

/** A query-string boolean: "true"/"false" as well as real booleans. */
export const QueryBool = z.union([
  z.boolean(),
  z.enum(["true", "false"]).transform((s) => s === "true"),
]);
