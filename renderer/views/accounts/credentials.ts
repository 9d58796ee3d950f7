/**
 * An account's credentials as the forms hold them: name/value rows typed by the user, turned into
 * the `{<field>: <value>}` object the API takes (`auth` of an account, `$auth` of an app prop).
 * Values are text: what a person types into a password input.
 */

/** One credential: a field name (`host`, `password`) and the value typed for it. */
export interface CredentialField {
  name: string;
  value: string;
}

export type AuthResult = { ok: true; auth: Record<string, string> } | { ok: false; error: string };

/**
 * The rows as `{name: value}`. A row without a value is left out (fields the app's code reads are
 * offered empty, and an account's fields are offered without their values): `requireValues` makes
 * a named row without a value an error instead, for "Replace values", where leaving one out
 * would silently drop it.
 */
export function authFromFields(fields: readonly CredentialField[], opts: { requireValues?: boolean } = {}): AuthResult {
  const auth: Record<string, string> = {};
  for (const f of fields) {
    const name = f.name.trim();
    if (!f.value) {
      if (opts.requireValues && name) return { ok: false, error: `enter a value for "${name}", or remove it` };
      continue;
    }
    if (!name) return { ok: false, error: "every credential needs a name" };
    if (name in auth) return { ok: false, error: `"${name}" is given twice` };
    auth[name] = f.value;
  }
  return { ok: true, auth };
}

/** Empty rows for these field names (an account's, or the ones an app's code reads). */
export const emptyFields = (names: readonly string[]): CredentialField[] => names.map((name) => ({ name, value: "" }));
