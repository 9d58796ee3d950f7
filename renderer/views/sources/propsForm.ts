/**
 * The form generated from a component's `configurable_props`: which input each prop gets, its
 * starting value (default or the source's current value), and the conversion of what the user
 * typed into `configured_props`, with a message per field when a value is not acceptable.
 */
import { accountIdOf, type PropDescriptor } from "../../../shared/resources/index.js";
import { authFromFields, type CredentialField } from "../accounts/credentials.js";

export type { CredentialField };

export type FieldKind =
  | "timer"
  | "app"
  | "http"
  | "hidden"
  | "string"
  | "secret"
  | "integer"
  | "boolean"
  | "select"
  | "multiselect"
  | "string[]"
  | "integer[]"
  | "json";

export interface TimerState {
  mode: "interval" | "cron";
  interval: string;
  cron: string;
}
/**
 * An app prop: an existing connected account (sent as `{authProvisionId}`), or a new one's
 * credentials typed here (sent inline as `{$auth: {...}}`).
 *
 * Why inline rather than `createAccount` first: the server turns `$auth` into an account named
 * after the source and the prop in the same transaction as the source's write, so a source that
 * is refused (bad props, a failing hook) leaves no stray account behind, and saving the source
 * again with new values replaces that account's values instead of making another.
 */
export interface AppState {
  mode: "account" | "new";
  /** The chosen account (mode "account"); empty until one is chosen. */
  accountId: string;
  /** The new account's credentials (mode "new"). */
  fields: CredentialField[];
}
export type FieldValue = string | boolean | string[] | TimerState | AppState;
export type FormState = Record<string, FieldValue>;

export interface OptionItem {
  label: string;
  /** JSON of the value, so numbers and strings survive a round trip through the DOM. */
  key: string;
}

export function fieldKind(p: PropDescriptor): FieldKind {
  const t = p.type;
  if (t === "$.interface.timer") return "timer";
  if (t === "app") return "app";
  if (t === "$.interface.http") return "http";
  if (t.startsWith("$.")) return "hidden"; // $.service.db and other platform-provided props
  const hasOptions = Array.isArray(p.options) && p.options.length > 0;
  if (t === "string" && hasOptions) return "select";
  if ((t === "string[]" || t === "integer[]") && hasOptions) return "multiselect";
  if (t === "integer" && hasOptions) return "select";
  if (t === "string") return p.secret ? "secret" : "string";
  if (t === "integer") return "integer";
  if (t === "boolean") return "boolean";
  if (t === "string[]") return "string[]";
  if (t === "integer[]") return "integer[]";
  return "json"; // object, any, app and types this form does not know: edited as JSON
}

/** Props the user fills in (timer included; HTTP endpoints and platform services are not). */
export function editableProps(props: readonly PropDescriptor[]): PropDescriptor[] {
  return props.filter((p) => {
    const k = fieldKind(p);
    return k !== "http" && k !== "hidden";
  });
}

/** The prop's choices come from its `options()` (asked of the server), on top of a typed value. */
export function hasRemoteOptions(p: PropDescriptor): boolean {
  return p.remoteOptions === true && ["string", "integer", "string[]", "integer[]"].includes(p.type);
}


/** A remote option's value as the text of the prop's input (strings as they are, others as JSON). */
export const optionText = (value: unknown) => (typeof value === "string" ? value : JSON.stringify(value));

function appFrom(p: PropDescriptor, v: unknown): AppState {
  // The fields the app's code reads, not filled in yet, are offered empty.
  const offered = (fields: CredentialField[]) => {
    for (const name of p.authFields ?? []) if (!fields.some((f) => f.name === name)) fields.push({ name, value: "" });
    return fields;
  };
  const accountId = accountIdOf(v);
  if (accountId !== undefined) return { mode: "account", accountId, fields: offered([]) };
  const given = v !== null && typeof v === "object" ? (v as Record<string, unknown>) : undefined;
  const auth = given && given.$auth !== null && typeof given.$auth === "object" ? (given.$auth as Record<string, unknown>) : given;
  const fields: CredentialField[] = Object.entries(auth ?? {}).map(([name, value]) => ({
    name,
    value: typeof value === "string" ? value : JSON.stringify(value),
  }));
  return { mode: "new", accountId: "", fields: offered(fields) };
}

export function optionItems(p: PropDescriptor): OptionItem[] {
  return (p.options ?? []).map((o) => {
    if (o !== null && typeof o === "object" && "value" in o) {
      const obj = o as { label?: unknown; value: unknown };
      return { label: String(obj.label ?? obj.value), key: JSON.stringify(obj.value) };
    }
    return { label: String(o), key: JSON.stringify(o) };
  });
}

function timerFrom(v: unknown): TimerState {
  const t = (v ?? {}) as { intervalSeconds?: unknown; interval_seconds?: unknown; cron?: unknown };
  const interval = t.intervalSeconds ?? t.interval_seconds;
  if (typeof t.cron === "string" && t.cron) return { mode: "cron", interval: "", cron: t.cron };
  return { mode: "interval", interval: typeof interval === "number" ? String(interval) : "60", cron: "" };
}

/** Starting values: the source's current configuration where given, else each prop's default. */
export function initialState(props: readonly PropDescriptor[], current?: Record<string, unknown>): FormState {
  const state: FormState = {};
  for (const p of editableProps(props)) {
    const v = current && p.name in current ? current[p.name] : p.default;
    switch (fieldKind(p)) {
      case "timer":
        state[p.name] = timerFrom(v);
        break;
      case "app":
        state[p.name] = appFrom(p, v);
        break;
      case "boolean":
        state[p.name] = v === true;
        break;
      case "multiselect":
        state[p.name] = Array.isArray(v) ? v.map((x) => JSON.stringify(x)) : [];
        break;
      case "select":
        state[p.name] = v === undefined ? "" : JSON.stringify(v);
        break;
      case "string[]":
      case "integer[]":
        state[p.name] = Array.isArray(v) ? v.map(String).join("\n") : "";
        break;
      case "json":
        state[p.name] = v === undefined ? "" : JSON.stringify(v, null, 2);
        break;
      default:
        state[p.name] = v === undefined || v === null ? "" : String(v);
    }
  }
  return state;
}

export type BuildResult =
  { ok: true; value: Record<string, unknown> } | { ok: false; errors: Record<string, string> };

const isInt = (s: string) => /^-?\d+$/.test(s.trim());

function checkRange(p: PropDescriptor, n: number): string | null {
  if (p.min !== undefined && n < p.min) return `must be at least ${p.min}`;
  if (p.max !== undefined && n > p.max) return `must be at most ${p.max}`;
  return null;
}

/** Converts the form into `configured_props`; an empty optional field is left out. */
export function buildConfiguredProps(props: readonly PropDescriptor[], state: FormState): BuildResult {
  const { value, errors } = convert(props, state);
  return Object.keys(errors).length > 0 ? { ok: false, errors } : { ok: true, value };
}

/** The props that are valid so far (for `options()`, which may depend on them); the rest left out. */
export function configuredSoFar(props: readonly PropDescriptor[], state: FormState): Record<string, unknown> {
  return convert(props, state).value;
}

function convert(
  props: readonly PropDescriptor[],
  state: FormState,
): { value: Record<string, unknown>; errors: Record<string, string> } {
  const value: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const p of editableProps(props)) {
    const raw = state[p.name];
    const required = !p.optional;
    const kind = fieldKind(p);
    const fail = (msg: string) => (errors[p.name] ??= msg);
    if (kind === "timer") {
      const t = (raw ?? timerFrom(p.default)) as TimerState;
      if (t.mode === "cron") {
        if (!t.cron.trim()) fail("enter a cron expression, e.g. */5 * * * *");
        else value[p.name] = { cron: t.cron.trim() };
      } else if (!isInt(t.interval) || Number(t.interval) < 1)
        fail("enter a whole number of seconds, 1 or more");
      else value[p.name] = { intervalSeconds: Number(t.interval) };
      continue;
    }
    if (kind === "boolean") {
      value[p.name] = raw === true;
      continue;
    }
    if (kind === "app") {
      const app = (raw as AppState | undefined) ?? appFrom(p, p.default);
      if (app.mode === "account") {
        if (app.accountId) value[p.name] = { authProvisionId: app.accountId };
        else if (required) fail("choose an account, or add a new one");
        continue;
      }
      // A field left empty (one the app's code reads, offered blank) is not sent.
      const auth = authFromFields(app.fields);
      if (!auth.ok) fail(auth.error);
      else value[p.name] = { $auth: auth.auth };
      continue;
    }
    if (kind === "multiselect") {
      const keys = Array.isArray(raw) ? raw : [];
      if (keys.length === 0 && required) fail("choose at least one");
      else if (keys.length > 0) value[p.name] = keys.map((k) => JSON.parse(k) as unknown);
      continue;
    }
    const text = typeof raw === "string" ? raw : "";
    if (text.trim() === "") {
      if (required) fail("required");
      continue;
    }
    switch (kind) {
      case "integer": {
        if (!isInt(text)) fail("must be a whole number");
        else {
          const n = Number(text);
          const r = checkRange(p, n);
          if (r) fail(r);
          else value[p.name] = n;
        }
        break;
      }
      case "select":
        value[p.name] = JSON.parse(text) as unknown;
        break;
      case "string[]":
        value[p.name] = text
          .split("\n")
          .map((s) => s.trim())
          .filter(Boolean);
        break;
      case "integer[]": {
        const parts = text
          .split(/[\n,]/)
          .map((s) => s.trim())
          .filter(Boolean);
        const bad = parts.find((s) => !isInt(s));
        if (bad !== undefined) fail(`"${bad}" is not a whole number`);
        else value[p.name] = parts.map(Number);
        break;
      }
      case "json":
        try {
          value[p.name] = JSON.parse(text) as unknown;
        } catch {
          fail("must be valid JSON");
        }
        break;
      default:
        value[p.name] = text;
    }
  }
  return { value, errors };
}
