/**
 * Connected accounts (extension, decisions.md "Connected accounts"): an app's credentials, stored
 * once, encrypted, and referenced from `configured_props` as `{"authProvisionId": "apn_..."}`.
 * An account answers with the names of its fields, never a value.
 */
import * as z from "../zod.js";
import { UnixSeconds } from "./common.js";
import { PageQuery } from "./page.js";

/** Most fields one account holds, and the longest field name and value, in characters. */
export const ACCOUNT_LIMITS = { fields: 64, fieldName: 128, value: 64 * 1024 } as const;

export const Account = z.looseObject({
  id: z.string(),
  app: z.string(),
  name: z.string(),
  /** The names of the credential's fields (`host`, `password`, ...): never their values. */
  fields: z.array(z.string()),
  /** How many sources and workflow steps reference it. */
  used_by: z.number().check(z.int(), z.nonnegative()),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
export type Account = z.infer<typeof Account>;

/** `{<field>: <value>}`: values are kept as given (strings, numbers, booleans, objects). */
export const AccountAuth = z
  .record(
    z.string().check(z.minLength(1), z.maxLength(ACCOUNT_LIMITS.fieldName)),
    z.unknown(),
  )
  .check(
    z.refine((a) => Object.keys(a).length <= ACCOUNT_LIMITS.fields, {
      message: `at most ${ACCOUNT_LIMITS.fields} fields`,
    }),
    z.refine((a) => Object.values(a).every((v) => JSON.stringify(v ?? null).length <= ACCOUNT_LIMITS.value), {
      message: `a value is at most ${ACCOUNT_LIMITS.value} characters`,
    }),
  );
export type AccountAuth = z.infer<typeof AccountAuth>;

const AppName = z.string().check(z.minLength(1), z.maxLength(100), z.regex(/^[A-Za-z0-9_.-]+$/, "an app name is letters, digits, _ . -"));
const AccountName = z.string().check(z.minLength(1), z.maxLength(200));

export const CreateAccountBody = z.object({
  app: AppName,
  name: z.optional(AccountName),
  auth: AccountAuth,
});
export type CreateAccountBody = z.infer<typeof CreateAccountBody>;

/** `auth` replaces every value at once; runs that start after the answer use the new ones. */
export const UpdateAccountBody = z.object({
  name: z.optional(AccountName),
  auth: z.optional(AccountAuth),
});
export type UpdateAccountBody = z.infer<typeof UpdateAccountBody>;

/** `GET /users/me/accounts`: a page, optionally of one app's accounts. */
export const AccountListQuery = z.extend(PageQuery, { app: z.optional(AppName) });
export type AccountListQuery = z.input<typeof AccountListQuery>;

/** The value of an app prop that uses an account. */
export const AccountRef = z.object({ authProvisionId: z.string() });
export type AccountRef = z.infer<typeof AccountRef>;

/** The account id an app prop's configured value references, if it is `{authProvisionId}`. */
export function accountIdOf(value: unknown): string | undefined {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const id = (value as Record<string, unknown>).authProvisionId;
  return typeof id === "string" ? id : undefined;
}

/** Does any prop of `configured` reference an account? (The runtime's cheap test before a run.) */
export function referencesAccounts(configured: Record<string, unknown>): boolean {
  for (const name in configured) if (accountIdOf(configured[name]) !== undefined) return true;
  return false;
}
