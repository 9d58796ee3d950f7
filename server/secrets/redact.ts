/**
 * Credential values out of what a run leaves behind (decisions.md "Connected accounts"): the
 * exact values of the run's credentials, 4 characters or longer, become `****` in its `$logs`
 * and `$errors`. In what it emits, only the values of fields named like a credential (password,
 * token, api_key, ...: shared/secrets.ts) are replaced: an emitted row may rightly contain the
 * database's host or user name, but never its password.
 *
 * The vendor's components log credentials as they are (`console.log(this.pg.$auth)` prints
 * `password: 'hunter2'`) or JSON-encoded (`"pass\"word"`): both forms are replaced. This runs in
 * the server, on what the sandbox sent: the component's code has no say in it.
 */
import { isSecretName } from "../../shared/secrets.js";

export const REDACTED = "****";
const MIN_LENGTH = 4;

export interface Redactor {
  /** Every credential value replaced (logs, errors). */
  text(s: string): string;
  /** The same, in every string of a JSON value. */
  json<T>(value: T): T;
  /** Only credential-named fields' values replaced, in every string of a JSON value (emits). */
  emitted<T>(value: T): T;
}

/** The values each redactor hides, so that several can be made into one (combineRedactors). */
const valuesOf = new WeakMap<Redactor, { all: Set<string>; strong: Set<string> }>();

/** A redactor for the values of these credentials (`$auth` objects); undefined when there is nothing to hide. */
export function redactorFor(auths: Array<Record<string, unknown>>): Redactor | undefined {
  const all = new Set<string>();
  const strong = new Set<string>();
  for (const auth of auths) collect(auth, undefined, all, strong);
  return build(all, strong);
}

/**
 * A redactor for values that are secret whatever their field is called (secret environment
 * variables): replaced everywhere, what a run emits included. Undefined when none is long enough.
 */
export function redactorForSecrets(values: Iterable<string>): Redactor | undefined {
  const all = new Set<string>();
  for (const v of values) collect(v, undefined, all, all);
  return build(all, all);
}

/**
 * One redactor that hides what each of `list` hides, the longest value first across all of
 * them (so a credential that contains a variable's value is still hidden whole).
 */
export function combineRedactors(list: ReadonlyArray<Redactor | undefined>): Redactor | undefined {
  const present = list.filter((r): r is Redactor => r !== undefined);
  if (present.length <= 1) return present[0];
  const all = new Set<string>();
  const strong = new Set<string>();
  for (const r of present) {
    const v = valuesOf.get(r)!;
    for (const x of v.all) all.add(x);
    for (const x of v.strong) strong.add(x);
  }
  return build(all, strong);
}

function build(all: Set<string>, strong: Set<string>): Redactor | undefined {
  if (all.size === 0) return undefined;
  const replaceAll = replacer(all);
  const replaceStrong = strong.size > 0 ? replacer(strong) : (s: string) => s;
  const redactor: Redactor = {
    text: replaceAll,
    json: (v) => mapStrings(v, replaceAll),
    emitted: (v) => (strong.size === 0 ? v : mapStrings(v, replaceStrong)),
  };
  valuesOf.set(redactor, { all, strong });
  return redactor;
}

/** String values (also nested), with the JSON-escaped form of each where it differs. */
function collect(value: unknown, name: string | undefined, all: Set<string>, strong: Set<string>): void {
  if (typeof value === "string") {
    if (value.length < MIN_LENGTH) return;
    const forms = [value, JSON.stringify(value).slice(1, -1)];
    for (const f of forms) {
      all.add(f);
      if (name !== undefined && isSecretName(name)) strong.add(f);
    }
  } else if (Array.isArray(value)) {
    for (const v of value) collect(v, name, all, strong);
  } else if (value !== null && typeof value === "object") {
    for (const [k, v] of Object.entries(value)) collect(v, k, all, strong);
  }
}

/** Replaces the longest values first, so that a value containing another is hidden whole. */
function replacer(values: Set<string>): (s: string) => string {
  const sorted = [...values].sort((a, b) => b.length - a.length);
  return (s) => {
    let out = s;
    for (const v of sorted) if (out.includes(v)) out = out.split(v).join(REDACTED);
    return out;
  };
}

function mapStrings<T>(value: T, fn: (s: string) => string): T {
  if (typeof value === "string") return fn(value) as T;
  if (Array.isArray(value)) return value.map((v: unknown) => mapStrings(v, fn)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[fn(k)] = mapStrings(v, fn);
    return out as T;
  }
  return value;
}
