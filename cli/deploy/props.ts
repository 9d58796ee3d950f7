/**
 * `--prop key=value` and `--props-file F`: values typed by the component's own props (a string
 * prop keeps "123" a string; integers, booleans, arrays, objects and timers are read as JSON),
 * so nobody has to quote JSON for a plain string.
 */
import fs from "node:fs";
import type { PropDescriptor } from "../../shared/resources/index.js";
import { UsageError } from "../errors.js";

/** Props the server fills in or refuses: never asked of the user. */
const AUTOMATIC = new Set(["$.interface.http", "$.service.db", "alert", "app"]);

export function readPropsFile(file: string | undefined): Record<string, unknown> {
  if (file === undefined) return {};
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new UsageError(`cannot read --props-file ${file}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : (err as Error).message}`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--props-file ${file} is not JSON: ${(err as Error).message}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError(`--props-file ${file} must hold a JSON object of prop values`);
  }
  return value as Record<string, unknown>;
}

/** Splits `key=value` pairs; the values stay strings until the component's props are known. */
export function splitPropFlags(flags: string[]): Array<[string, string]> {
  return flags.map((f) => {
    const i = f.indexOf("=");
    if (i <= 0) throw new UsageError(`--prop takes key=value, got ${JSON.stringify(f)}`);
    return [f.slice(0, i), f.slice(i + 1)];
  });
}

/** The props to send: the file's, then each `--prop` typed by the prop's declared type. */
export function buildProps(
  props: PropDescriptor[],
  fromFile: Record<string, unknown>,
  flags: Array<[string, string]>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fromFile };
  for (const [name, raw] of flags) {
    const prop = props.find((p) => p.name === name);
    if (!prop) {
      const names = props.filter((p) => !AUTOMATIC.has(p.type)).map((p) => p.name);
      throw new UsageError(`--prop ${name}: the component has no such prop${names.length ? ` (it has ${names.join(", ")})` : ""}`);
    }
    out[name] = typed(prop, raw);
  }
  return out;
}

/** The first required prop with no value, default or automatic fill, if any. */
export function missingProp(props: PropDescriptor[], given: Record<string, unknown>): PropDescriptor | undefined {
  return props.find(
    (p) => !AUTOMATIC.has(p.type) && p.optional !== true && p.default === undefined && given[p.name] === undefined,
  );
}

function typed(prop: PropDescriptor, raw: string): unknown {
  if (prop.type === "string") return raw;
  if (prop.type === "integer") {
    if (!/^-?\d+$/.test(raw.trim())) throw new UsageError(`--prop ${prop.name}: must be an integer, got ${JSON.stringify(raw)}`);
    return Number(raw);
  }
  if (prop.type === "boolean") {
    if (raw !== "true" && raw !== "false") throw new UsageError(`--prop ${prop.name}: must be true or false`);
    return raw === "true";
  }
  if (prop.type === "string[]" && !raw.trim().startsWith("[")) return raw.split(",").map((s) => s.trim());
  if (prop.type === "$.interface.timer" && /^\d+$/.test(raw.trim())) return { intervalSeconds: Number(raw) };
  try {
    return JSON.parse(raw);
  } catch {
    if (prop.type === "string[]" || prop.type === "integer[]" || prop.type === "object" || prop.type === "$.interface.timer") {
      throw new UsageError(`--prop ${prop.name}: a ${prop.type} value is JSON, got ${JSON.stringify(raw)}`);
    }
    return raw;
  }
}
