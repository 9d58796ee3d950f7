/**
 * Environment variables (extension, decisions.md "Workflow triggers, environment variables and
 * data stores"): a user's named values, read by their steps, actions and sources as
 * `process.env.NAME`. Secret by default: a secret's value goes in and never comes back (it is
 * sealed at rest and `****` in what runs leave behind); a plain one's is answered.
 */
import * as z from "../zod.js";
import { UnixSeconds } from "./common.js";

export const ENV_LIMITS = {
  /** Most variables one user holds. */
  perUser: 200,
  /** Longest value, in bytes of UTF-8. */
  valueBytes: 64 * 1024,
  /** Longest name, in characters. */
  nameLength: 64,
} as const;

/** Names the server keeps for its own configuration: refused as variables. */
export const ENV_RESERVED_PREFIX = "HEADWATER_";

export const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** Why `name` is not a variable's name; undefined when it is one. */
export function envNameProblem(name: string): string | undefined {
  if (!ENV_NAME_PATTERN.test(name))
    return `a name is a letter or _ followed by letters, digits or _ (at most ${ENV_LIMITS.nameLength} characters)`;
  if (name.startsWith(ENV_RESERVED_PREFIX))
    return `names starting with ${ENV_RESERVED_PREFIX} are reserved for the server`;
  return undefined;
}

/** UTF-8 bytes of a string, counted without encoding it (browsers have no Buffer). */
export function utf8Bytes(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

export const EnvName = z.string().check(
  z.regex(
    ENV_NAME_PATTERN,
    `a name is a letter or _ followed by letters, digits or _ (at most ${ENV_LIMITS.nameLength} characters)`,
  ),
  z.refine((s) => !s.startsWith(ENV_RESERVED_PREFIX), {
    message: `names starting with ${ENV_RESERVED_PREFIX} are reserved for the server`,
  }),
);

export const EnvValue = z.string().check(
  z.refine((s) => utf8Bytes(s) <= ENV_LIMITS.valueBytes, {
    message: `a value holds at most ${ENV_LIMITS.valueBytes} bytes`,
  }),
);

/** One variable as answered: a secret's value never is. */
export const EnvVar = z.looseObject({
  name: z.string(),
  secret: z.boolean(),
  /** Only for plain (not secret) variables. */
  value: z.optional(z.string()),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export type EnvVar = z.infer<typeof EnvVar>;

/** `GET /users/me/env`: every variable, by name. */
export const EnvList = z.object({ data: z.array(EnvVar) });
export type EnvList = z.infer<typeof EnvList>;

/** `/users/me/env/{name}`. */
export const EnvNameParams = z.object({ name: EnvName });

/** `PUT /users/me/env/{name}`: the value replaces the old one; `secret` defaults to true. */
export const SetEnvBody = z.object({
  value: EnvValue,
  secret: z.optional(z.boolean()),
});
export type SetEnvBody = z.infer<typeof SetEnvBody>;
