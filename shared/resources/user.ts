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
});
export type User = z.infer<typeof User>;

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
