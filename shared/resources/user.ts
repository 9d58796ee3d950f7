import { z } from "zod";

/**
 * A user. Only `id`, `username` and `email` are required so that the same schema parses the
 * hosted service's answers (decisions.md); our server always sends every field.
 * Compute time is in milliseconds; both counters reset at 00:00 UTC.
 */
export const User = z.looseObject({
  id: z.string(),
  username: z.string(),
  email: z.string(),
  admin: z.boolean().optional(),
  api_key: z.string().optional(),
  daily_compute_time_quota: z.number().int().optional(),
  daily_compute_time_used: z.number().int().optional(),
  daily_invocations_quota: z.number().int().optional(),
  daily_invocations_used: z.number().int().optional(),
  /** Extension: a disabled user's key is refused (403 `user_disabled`) and nothing of theirs runs. */
  disabled: z.boolean().optional(),
  /**
   * Extension, shown to admins (`GET /users`, `GET /users/{id}`): the user's own quotas, `null`
   * where the server default applies. `daily_*_quota` above are the quotas in force either way.
   */
  quota_overrides: z
    .object({
      daily_invocations_quota: z.number().int().nullable(),
      daily_compute_time_quota: z.number().int().nullable(),
    })
    .optional(),
});
export type User = z.infer<typeof User>;

/** `/users/{id}` (admin only). */
export const UserIdParams = z.object({ id: z.string().min(1) });

/** A per-user quota: a whole number, or `null` for the server's default. */
const QuotaOverride = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullable();

/**
 * Admin-only `PATCH /users/{id}` (extension): every field optional, only those given change.
 * `daily_compute_time_quota` is in milliseconds. The last admin cannot be demoted or disabled
 * (409 `last_admin`).
 */
export const UpdateUserBody = z.object({
  admin: z.boolean().optional(),
  disabled: z.boolean().optional(),
  daily_invocations_quota: QuotaOverride.optional(),
  daily_compute_time_quota: QuotaOverride.optional(),
});
export type UpdateUserBody = z.infer<typeof UpdateUserBody>;

/** Admin-only `POST /users` (extension). */
export const CreateUserBody = z.object({
  username: z
    .string()
    .min(1)
    .max(64)
    .regex(/^[A-Za-z0-9_.-]+$/, "letters, digits, '_', '.' and '-' only"),
  email: z.email().optional(),
  admin: z.boolean().optional(),
});
export type CreateUserBody = z.infer<typeof CreateUserBody>;
