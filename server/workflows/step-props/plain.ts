/**
 * Plain props of a code step: `string`, `integer`, `boolean`. A value of another JSON type is
 * refused rather than read (a code step is saved by people and tools that send JSON, so `"10"`
 * for an integer is a mistake worth saying). `options`, `min` and `max` are held to as a
 * component's are.
 */
import type { PropDescriptor } from "../../../shared/resources/index.js";
import type { StepPropType } from "./types.js";

/** The allowed values of a prop with `options` (plain values, or `{label, value}`). */
function optionValues(prop: PropDescriptor): unknown[] | undefined {
  if (!Array.isArray(prop.options) || prop.options.length === 0) return undefined;
  return prop.options.map((o) =>
    o !== null && typeof o === "object" && "value" in o ? (o as { value: unknown }).value : o,
  );
}

function inOptions(prop: PropDescriptor, value: unknown): string | undefined {
  const allowed = optionValues(prop);
  if (!allowed || allowed.some((a) => a === value)) return undefined;
  return `must be one of ${allowed.map((a) => JSON.stringify(a)).join(", ")}`;
}

export const stringProp: StepPropType = {
  needs: "a string",
  check: (prop, value) => {
    if (typeof value !== "string") return `must be a string, not ${kindOf(value)}`;
    return inOptions(prop, value);
  },
};

export const integerProp: StepPropType = {
  needs: "an integer",
  check: (prop, value) => {
    if (typeof value !== "number" || !Number.isSafeInteger(value))
      return `must be an integer, not ${kindOf(value)}`;
    if (prop.min !== undefined && value < prop.min) return `must be at least ${prop.min}`;
    if (prop.max !== undefined && value > prop.max) return `must be at most ${prop.max}`;
    return inOptions(prop, value);
  },
};

export const booleanProp: StepPropType = {
  needs: "true or false",
  check: (_prop, value) =>
    typeof value === "boolean" ? undefined : `must be true or false, not ${kindOf(value)}`,
};

/** How a value is named in a message: its JSON type (a number that is not whole says so). */
export function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number")
    return Number.isInteger(value) ? `the number ${value}` : `the number ${value} (not whole)`;
  if (typeof value === "string") return "a string";
  if (typeof value === "boolean") return `${value}`;
  if (value === null) return "null";
  return typeof value === "object" ? "an object" : typeof value;
}
