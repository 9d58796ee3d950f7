/**
 * `configured_props`: checked against the component's props and normalised to what the API
 * returns and the runtime reads.
 *
 * - string, integer, boolean, string[], integer[], object, any; `options` restrict values;
 *   `min` / `max` bound integers; `optional` and `default` decide what may be left out.
 * - timer (`$.interface.timer`): `{intervalSeconds}` | `{interval_seconds}` | `{cron}` →
 *   `{cron, interval_seconds}`, the cron expression checked.
 * - http (`$.interface.http`): always `{endpoint_url: <publicUrl>/e/<source id>}`; a value sent
 *   back (a round-trip of a GET) is accepted and replaced.
 * - app: a connected account, `{authProvisionId: "apn_..."}`, or an object of credentials, as
 *   `{$auth: {...}}` or bare (made `{$auth: {...}}`); left out, it is `{$auth: {}}`. Credentials
 *   are then moved into an account (accounts/references.ts): only the reference is stored.
 * - data_store: one of the user's data stores, `"ds_..."` or `{id: "ds_..."}` → `"ds_..."` (whose
 *   it is, the service checks: `dataStoreIdsOf`).
 * - `$.service.db`, `alert` and `$.interface.apphook` are not configurable: a value for them is
 *   refused.
 * - Other (future) types take any JSON value as given. Names that are not props are refused.
 */
import { CronExpressionParser } from "cron-parser";
import type { PropDescriptor, TimerValue } from "../../shared/resources/index.js";
import { ERROR_CODES } from "../../shared/resources/index.js";
import { InvalidRequestError } from "../errors.js";

export const TIMER = "$.interface.timer";
export const HTTP = "$.interface.http";
export const DATA_STORE = "data_store";

/** The data stores configured props name, by prop name (after validateConfiguredProps). */
export function dataStoreIdsOf(
  props: PropDescriptor[],
  configured: Record<string, unknown>,
): Array<[string, string]> {
  return props.flatMap((p) =>
    p.type === DATA_STORE && typeof configured[p.name] === "string"
      ? [[p.name, configured[p.name] as string] as [string, string]]
      : [],
  );
}
/**
 * Props the platform provides rather than the user: `$.service.db`, `alert`, and
 * `$.interface.apphook` (the vendor's Slack sources subscribe through it to the vendor's own app
 * relay; nothing here feeds it, but the source must still be creatable).
 */
const NOT_CONFIGURABLE = new Set(["$.service.db", "alert", "$.interface.apphook"]);

export interface PropContext {
  /** Base of endpoint URLs (`HEADWATER_PUBLIC_URL` or the server's URL). */
  publicUrl: string;
  sourceId: string;
}

export const endpointUrl = (publicUrl: string, sourceId: string) => `${publicUrl}/e/${sourceId}`;

type Detail = { path: string; message: string };
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function validateConfiguredProps(
  props: PropDescriptor[],
  input: Record<string, unknown>,
  ctx: PropContext,
): Record<string, unknown> {
  const details: Detail[] = [];
  const out: Record<string, unknown> = {};
  const known = new Set(props.map((p) => p.name));
  for (const name of Object.keys(input)) {
    if (!known.has(name))
      details.push({ path: `configured_props.${name}`, message: "not a prop of this component" });
  }
  for (const prop of props) {
    const path = `configured_props.${prop.name}`;
    const given = input[prop.name];
    const fail = (message: string) => details.push({ path, message });
    if (NOT_CONFIGURABLE.has(prop.type)) {
      if (given !== undefined) fail(`a ${prop.type} prop is not configurable`);
      continue;
    }
    if (prop.type === HTTP) {
      out[prop.name] = { endpoint_url: endpointUrl(ctx.publicUrl, ctx.sourceId) };
      continue;
    }
    if (prop.type === "app") {
      if (given === undefined) out[prop.name] = { $auth: {} };
      else if (!isObject(given)) fail("an app prop takes {authProvisionId} or an object of credentials");
      else if ("authProvisionId" in given) {
        const id = given.authProvisionId;
        if (typeof id !== "string" || id === "") fail("authProvisionId must be an account id (apn_...)");
        else if (Object.keys(given).length > 1) fail("give either authProvisionId or credentials, not both");
        else out[prop.name] = { authProvisionId: id };
      } else if ("$auth" in given) {
        if (!isObject(given.$auth)) fail("$auth must be an object of credentials");
        else out[prop.name] = { $auth: given.$auth };
      } else out[prop.name] = { $auth: given };
      continue;
    }
    if (prop.type === DATA_STORE) {
      const id = typeof given === "string" ? given : isObject(given) ? given.id : undefined;
      if (given === undefined && prop.optional === true) continue;
      if (typeof id !== "string" || !id.startsWith("ds_"))
        fail('a data_store prop takes a data store id ("ds_...") or {id}');
      else out[prop.name] = id;
      continue;
    }
    const value = given === undefined ? prop.default : given;
    if (value === undefined || value === null) {
      if (prop.optional !== true) fail("is required");
      continue;
    }
    const r = prop.type === TIMER ? normaliseTimer(value) : checkValue(prop, value);
    if ("error" in r) fail(r.error);
    else out[prop.name] = r.value;
  }
  if (details.length > 0) {
    throw new InvalidRequestError(
      `invalid ${details[0]!.path}: ${details[0]!.message}`,
      ERROR_CODES.validation,
      details,
    );
  }
  return out;
}

type Checked = { value: unknown } | { error: string };

function checkValue(prop: PropDescriptor, value: unknown): Checked {
  switch (prop.type) {
    case "string":
      if (typeof value !== "string") return { error: "must be a string" };
      return inOptions(prop, value);
    case "integer":
      if (typeof value !== "number" || !Number.isInteger(value)) return { error: "must be an integer" };
      if (prop.min !== undefined && value < prop.min) return { error: `must be at least ${prop.min}` };
      if (prop.max !== undefined && value > prop.max) return { error: `must be at most ${prop.max}` };
      return inOptions(prop, value);
    case "boolean":
      return typeof value === "boolean" ? { value } : { error: "must be true or false" };
    case "string[]":
    case "integer[]": {
      const want = prop.type === "string[]" ? "string" : "integer";
      if (!Array.isArray(value)) return { error: `must be an array of ${want}s` };
      for (const v of value) {
        const ok = want === "string" ? typeof v === "string" : typeof v === "number" && Number.isInteger(v);
        if (!ok) return { error: `must be an array of ${want}s` };
        const o = inOptions(prop, v);
        if ("error" in o) return o;
      }
      return { value };
    }
    case "object":
      return isObject(value) ? { value } : { error: "must be an object" };
    default:
      return { value };
  }
}

/** `options` are values or `{label, value}` pairs. */
function inOptions(prop: PropDescriptor, value: unknown): Checked {
  if (!prop.options || prop.options.length === 0) return { value };
  const allowed = prop.options.map((o) => (isObject(o) && "value" in o ? o.value : o));
  if (allowed.some((a) => a === value)) return { value };
  return { error: `must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}` };
}

export function normaliseTimer(value: unknown): { value: TimerValue } | { error: string } {
  if (!isObject(value)) return { error: "a timer is an object with intervalSeconds or cron" };
  const interval = value.intervalSeconds ?? value.interval_seconds;
  const cron = value.cron;
  if (typeof cron === "string" && cron.trim() !== "") {
    try {
      CronExpressionParser.parse(cron);
    } catch (err) {
      return { error: `not a valid cron expression: ${(err as Error).message}` };
    }
    return { value: { cron: cron.trim(), interval_seconds: null } };
  }
  if (interval !== undefined && interval !== null) {
    if (typeof interval !== "number" || !Number.isInteger(interval) || interval < 1) {
      return { error: "intervalSeconds must be a whole number of seconds, at least 1" };
    }
    return { value: { cron: null, interval_seconds: interval } };
  }
  return { error: "a timer needs intervalSeconds or cron" };
}
