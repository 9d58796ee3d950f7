/**
 * `--prop key=value` and `--props-file F`: values typed by the component's own props (a string
 * prop keeps "123" a string; integers, booleans, arrays, objects and timers are read as JSON),
 * so nobody has to quote JSON for a plain string.
 */
import fs from "node:fs";
import { isId } from "../../shared/ids.js";
import type { Account, PropDescriptor } from "../../shared/resources/index.js";
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

/**
 * Splits `--account prop=apn_...` pairs. Only the form is checked here, before anything is sent;
 * that the account exists is asked of the server, and that the prop is an app prop of the same
 * app is checked against the component (buildProps).
 */
export function splitAccountFlags(flags: string[] = []): Array<[string, string]> {
  const seen = new Set<string>();
  return flags.map((f) => {
    const i = f.indexOf("=");
    const [prop, id] = i <= 0 ? ["", ""] : [f.slice(0, i).trim(), f.slice(i + 1).trim()];
    if (prop === "" || !isId("account", id)) throw new UsageError(`--account takes prop=apn_... (an app prop and an account id), got ${JSON.stringify(f)}`);
    if (seen.has(prop)) throw new UsageError(`--account ${prop} is given twice`);
    seen.add(prop);
    return [prop, id];
  });
}

/** An `--account` flag once the server has shown the account exists. */
export interface AccountFlag {
  prop: string;
  account: Account;
}

/**
 * The props to send: the file's, then each `--prop` typed by the prop's declared type, then each
 * `--account` as `{"authProvisionId": "apn_..."}`.
 */
export function buildProps(
  props: PropDescriptor[],
  fromFile: Record<string, unknown>,
  flags: Array<[string, string]>,
  accounts: AccountFlag[] = [],
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fromFile };
  for (const [name, raw] of flags) out[name] = typed(propNamed(props, name, "--prop"), raw);
  for (const { prop: name, account } of accounts) {
    const prop = propNamed(props, name, "--account");
    if (flags.some(([f]) => f === name)) throw new UsageError(`--prop ${name} and --account ${name}: give one of them`);
    if (prop.type !== "app") throw new UsageError(`--account ${name}: the prop is a ${prop.type}, not an app prop (use --prop)`);
    if (prop.app !== undefined && prop.app !== account.app) {
      throw new UsageError(`--account ${name}: ${account.id} is an account of ${account.app}, the prop wants one of ${prop.app}`);
    }
    out[name] = { authProvisionId: account.id };
  }
  return out;
}

function propNamed(props: PropDescriptor[], name: string, flag: string): PropDescriptor {
  const prop = props.find((p) => p.name === name);
  if (prop) return prop;
  const names = props.filter((p) => !AUTOMATIC.has(p.type) || p.type === "app").map((p) => p.name);
  throw new UsageError(`${flag} ${name}: the component has no such prop${names.length ? ` (it has ${names.join(", ")})` : ""}`);
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
