import * as z from "../zod.js";

/**
 * A user. Only `id`, `username` and `email` are required so that the same schema parses the
 * hosted service's answers (decisions.md); our server always sends every field.
 * Compute time is in milliseconds; both counters reset at 00:00 UTC.
 */
export const User = z.looseObject({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  admin: z.optional(z.boolean()),
  api_key: z.optional(z.string()),
  daily_compute_time_quota: z.optional(z.number().check(z.int())),
  daily_compute_time_used: z.optional(z.number().check(z.int())),
  daily_invocations_quota: z.optional(z.number().check(z.int())),
  daily_invocations_used: z.optional(z.number().check(z.int())),
  /** Extension: a disabled user's key is refused (403 `user_disabled`) and nothing of theirs runs. */
  disabled: z.optional(z.boolean()),
  /**
   * Extension, shown to admins (`GET /users`, `GET /users/{id}`): the user's own quotas, `null`
   * where the server default applies. `daily_*_quota` above are the quotas in force either way.
   */
  quota_overrides: z.optional(
    z.object({
      daily_invocations_quota: z.nullable(z.number().check(z.int())),
      daily_compute_time_quota: z.nullable(z.number().check(z.int())),
    }),
  ),
});
export type User = z.infer<typeof User>;

/** `/users/{id}` (admin only). */
export const UserIdParams = z.object({ id: z.string().check(z.minLength(1)) });

/** A per-user quota: a whole number, or `null` for the server's default. */
const QuotaOverride = z.nullable(z.number().check(z.int(), z.gte(0), z.lte(Number.MAX_SAFE_INTEGER)));

/**
 * Admin-only `PATCH /users/{id}` (extension): every field optional, only those given change.
 * `daily_compute_time_quota` is in milliseconds. The last admin cannot be demoted or disabled
 * (409 `last_admin`).
 */
export const UpdateUserBody = z.object({
  admin: z.optional(z.boolean()),
  disabled: z.optional(z.boolean()),
  daily_invocations_quota: z.optional(QuotaOverride),
  daily_compute_time_quota: z.optional(QuotaOverride),
});
export type UpdateUserBody = z.infer<typeof UpdateUserBody>;

/** Admin-only `POST /users` (extension). */
export const CreateUserBody = z.object({
  username: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(64),
      z.regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, '_', '.' and '-' only"),
    ),
  email: z.optional(z.email()),
  admin: z.optional(z.boolean()),
});
export type CreateUserBody = z.infer<typeof CreateUserBody>;
