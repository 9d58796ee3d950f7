/**
 * An action's `configured_props`, read as the vendor's components expect them, then checked
 * like a source's (sources/props.ts). Actions are run by people and scripts (the CLI turns
 * `--prop n=42` into a number), so a value that plainly means what the prop wants is taken:
 * a number or boolean for a `string`, a numeric string for an `integer`, `"true"` for a
 * `boolean`, one string for a `string[]`, a JSON array text for a `string[]`; an `sql` prop is
 * `{query, params}` (a bare string is the query); an `object` prop also takes an array or the
 * JSON text the vendor's components parse themselves (`insert-row`'s rowValues). `alert`
 * props carry no value; `dir` props are given the run's temp dir in the sandbox.
 *
 * A workflow step's props are checked when the step is saved, except values holding
 * `{{ steps.<path> }}`: those are known only when the step runs (sandbox/action.cjs).
 */
import { ERROR_CODES, type PropDescriptor } from "../../shared/resources/index.js";
import { InvalidRequestError } from "../errors.js";
import { validateConfiguredProps } from "../sources/props.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A value that refers to earlier steps: `{{ steps.x }}` somewhere in it. */
export function holdsTemplate(v: unknown, depth = 0): boolean {
  if (depth > 20) return false;
  if (typeof v === "string") return /\{\{[^{}]+\}\}/.test(v);
  if (Array.isArray(v)) return v.some((x) => holdsTemplate(x, depth + 1));
  if (isObject(v)) return Object.values(v).some((x) => holdsTemplate(x, depth + 1));
  return false;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** One value, read as the prop's type wants it (unchanged when no reading applies). */
export function coerce(prop: PropDescriptor, v: unknown): unknown {
  switch (prop.type) {
    case "string":
      return typeof v === "number" || typeof v === "boolean" ? String(v) : v;
    case "integer":
      return typeof v === "string" && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v;
    case "boolean":
      return v === "true" ? true : v === "false" ? false : v;
    case "string[]":
    case "integer[]": {
      const item: PropDescriptor = { ...prop, type: prop.type.slice(0, -2) };
      if (typeof v === "string") {
        const parsed = v.trim().startsWith("[") ? parseJson(v) : undefined;
        return Array.isArray(parsed) ? parsed.map((x) => coerce(item, x)) : [coerce(item, v)];
      }
      if (typeof v === "number") return [coerce(item, v)];
      return Array.isArray(v) ? v.map((x) => coerce(item, x)) : v;
    }
    case "sql":
      return typeof v === "string" ? { query: v, params: [] } : v;
    default:
      return v;
  }
}

/** The props of one run, read and checked (400 `validation_failed` naming each bad one). */
export function actionProps(props: PropDescriptor[], input: Record<string, unknown>): Record<string, unknown> {
  const byName = new Map(props.map((p) => [p.name, p]));
  const read: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(input)) {
    const prop = byName.get(name);
    read[name] = prop ? coerce(prop, v) : v;
  }
  // Types the sources' check does not know (or knows more strictly) are checked here.
  const details: Array<{ path: string; message: string }> = [];
  const lenient: PropDescriptor[] = props.map((p) => {
    const v = read[p.name];
    if (p.type === "object" && v !== undefined && v !== null && !isObject(v)) {
      if (!Array.isArray(v) && typeof v !== "string") details.push({ path: `configured_props.${p.name}`, message: "must be an object (or its JSON text)" });
      return { ...p, type: "any" };
    }
    if (p.type === "sql" && v !== undefined && !(isObject(v) && typeof v.query === "string"))
      details.push({ path: `configured_props.${p.name}`, message: "must be an SQL query (a string, or {query, params})" });
    return p;
  });
  if (details.length > 0) throw new InvalidRequestError(`invalid ${details[0]!.path}: ${details[0]!.message}`, ERROR_CODES.validation, details);
  return validateConfiguredProps(lenient, read, { publicUrl: "", sourceId: "" });
}

/**
 * A workflow step's props as saved: names checked, required props present, values without
 * references read and checked as a run's are; values with references kept as written.
 */
export function stepProps(props: PropDescriptor[], input: Record<string, unknown>, step: string): Record<string, unknown> {
  const templated = Object.keys(input).filter((k) => holdsTemplate(input[k]));
  const fixed = Object.fromEntries(Object.entries(input).filter(([k]) => !templated.includes(k)));
  const checkable = props.filter((p) => !templated.includes(p.name));
  const unknown = templated.filter((k) => !props.some((p) => p.name === k));
  try {
    if (unknown.length > 0)
      throw new InvalidRequestError(`invalid configured_props.${unknown[0]}: not a prop of this component`, ERROR_CODES.validation, [
        { path: `configured_props.${unknown[0]}`, message: "not a prop of this component" },
      ]);
    const out = actionProps(checkable, fixed);
    for (const k of templated) out[k] = input[k];
    return out;
  } catch (err) {
    if (!(err instanceof InvalidRequestError)) throw err;
    // Say which step: `steps.<name>.props.<prop>` rather than the run's `configured_props.<prop>`.
    const where = (p: string) => p.replace(/configured_props/g, `steps.${step}.props`);
    throw new InvalidRequestError(where(err.message), err.code, err.details?.map((d) => ({ path: where(d.path), message: d.message })));
  }
}
