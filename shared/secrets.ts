/**
 * Which configured values are secrets, the one rule for every client: the dashboard masks them as
 * they are typed, the CLI masks them in what it prints. Runs in Node and in the browser.
 *
 * A value is secret when it is a credential of an app (`$auth`), when its prop is declared
 * `secret: true`, or when its name looks like a credential (password, token, API key, ...): a
 * component's author may forget `secret`, and printing one secret too many costs nothing.
 * A reference to a connected account (`{authProvisionId: "apn_..."}`) is not: it is only an id,
 * the values stay on the server, and showing it says which account the prop uses.
 */
import { accountIdOf, type PropDescriptor } from "./resources/index.js";

/** What a secret is shown as. */
export const MASK = "••••";

/**
 * Words of a name that mark a credential. Matched as whole words of the name (`api_key`,
 * `apiKey`, `API-KEY`), so that `keyword`, `monkey` or `author` are not masked for a substring.
 */
const SECRET_WORDS = new Set([
  "pass",
  "passwd",
  "password",
  "passphrase",
  "pwd",
  "secret",
  "token",
  "key",
  "apikey",
  "cert",
  "certificate",
  "credential",
  "credentials",
  "private",
  "auth",
  "authorization",
  "session",
  "cookie",
  "dsn",
]);

/** `clientSecret`, `client_secret`, `CLIENT-SECRET` → ["client", "secret"]. */
const wordsOf = (name: string): string[] =>
  name
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** A field or prop name that looks like it holds a credential. */
export const isSecretName = (name: string): boolean => wordsOf(name).some((w) => SECRET_WORDS.has(w));

const isRecord = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);
const masked = (v: unknown) => (v === null || v === undefined || v === "" ? v : MASK);

/**
 * `configured_props` as they may be shown: every `$auth` value (and every value of an app prop),
 * props declared secret and props with secret-looking names replaced by MASK; keys are kept, so
 * it still shows which credentials are set. `props` (the component's, when known) adds the
 * declared `secret` flags and app types; without them the `$auth` and name rules still apply.
 */
export function redactConfiguredProps(
  configured: Record<string, unknown>,
  props: readonly PropDescriptor[] = [],
): Record<string, unknown> {
  const byName = new Map(props.map((p) => [p.name, p]));
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(configured)) {
    const p = byName.get(name);
    if (isAccountRef(value)) out[name] = value;
    else if (p?.secret === true || isSecretName(name)) out[name] = masked(value);
    else if (isRecord(value) && isRecord(value.$auth)) out[name] = { ...value, $auth: maskAll(value.$auth) };
    else if (p?.type === "app" && isRecord(value)) out[name] = maskAll(value);
    else out[name] = value;
  }
  return out;
}

/** Exactly `{authProvisionId: "<id>"}`: anything beside the id may be a value, and is masked as before. */
const isAccountRef = (v: unknown): boolean => accountIdOf(v) !== undefined && Object.keys(v as object).length === 1;

function maskAll(values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(values).map(([k, v]) => [k, masked(v)]));
}
