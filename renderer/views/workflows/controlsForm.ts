/**
 * The execution controls form without its looks: the fields and their ranges (CONTROL_LIMITS,
 * the server's own), what the user changed, the update body that names only that (the server
 * merges `retry` field by field, and keeps what an update does not name), and which field a 400's
 * detail is about.
 */
import { CONTROL_LIMITS, type Workflow } from "../../../shared/resources/index.js";

export type ControlField =
  | "max_attempts"
  | "initial_delay_seconds"
  | "max_delay_seconds"
  | "concurrency"
  | "throttle_limit"
  | "throttle_period_seconds";

/** Where an error shows: next to a number field, or next to the throttle's switch. */
export type ErrorSlot = ControlField | "throttle";

export const RANGES: Record<ControlField, { min: number; max: number }> = {
  max_attempts: CONTROL_LIMITS.maxAttempts,
  initial_delay_seconds: CONTROL_LIMITS.initialDelaySeconds,
  max_delay_seconds: CONTROL_LIMITS.maxDelaySeconds,
  concurrency: CONTROL_LIMITS.concurrency,
  throttle_limit: CONTROL_LIMITS.throttleLimit,
  throttle_period_seconds: CONTROL_LIMITS.throttlePeriodSeconds,
};

/** What the user typed, per field; the throttle's switch when flipped. Unnamed: as saved. */
export interface Edits {
  fields: Partial<Record<ControlField, string>>;
  throttleOn?: boolean;
}

export interface ControlsBody {
  retry?: { max_attempts?: number; initial_delay_seconds?: number; max_delay_seconds?: number };
  concurrency?: number;
  throttle?: { limit: number; period_seconds: number } | null;
}

/** Which controls this server answers: the hosted service's workflows have none of them. */
export function offeredControls(w: Workflow): { retry: boolean; concurrency: boolean; throttle: boolean } {
  return {
    retry: w.retry !== undefined,
    concurrency: w.concurrency !== undefined,
    throttle: w.throttle !== undefined,
  };
}

/** The saved values as the inputs show them ("" for a throttle that is off). */
export function savedValues(w: Workflow): Record<ControlField, string> {
  const s = (n: number | undefined) => (n === undefined ? "" : String(n));
  return {
    max_attempts: s(w.retry?.max_attempts),
    initial_delay_seconds: s(w.retry?.initial_delay_seconds),
    max_delay_seconds: s(w.retry?.max_delay_seconds),
    concurrency: s(w.concurrency),
    throttle_limit: s(w.throttle?.limit),
    throttle_period_seconds: s(w.throttle?.period_seconds),
  };
}

export function rangeText(key: ControlField): string {
  const r = RANGES[key];
  return `${r.min.toLocaleString("en-US")} to ${r.max.toLocaleString("en-US")}`;
}

/** A field's number, or why it is not one the server takes. */
export function parseField(key: ControlField, text: string): { value: number } | { error: string } {
  const t = text.trim();
  const r = RANGES[key];
  if (!/^\d+$/.test(t)) return { error: `Enter a whole number from ${rangeText(key)}.` };
  const value = Number(t);
  if (value < r.min || value > r.max) return { error: `Must be from ${rangeText(key)}.` };
  return { value };
}

/**
 * The update body of what changed, and the errors of the fields that would go in it. A field
 * typed back to its saved value is no change; a throttle changed at all is sent whole (the
 * server takes a throttle whole, or null to turn it off).
 */
export function changes(
  w: Workflow,
  edits: Edits,
): { body: ControlsBody; errors: Partial<Record<ErrorSlot, string>> } {
  const saved = savedValues(w);
  const body: ControlsBody = {};
  const errors: Partial<Record<ErrorSlot, string>> = {};
  const value = (key: ControlField) => edits.fields[key] ?? saved[key];
  const changed = (key: ControlField) =>
    edits.fields[key] !== undefined && edits.fields[key].trim() !== saved[key];
  const read = (key: ControlField): number | undefined => {
    const p = parseField(key, value(key));
    if ("error" in p) {
      errors[key] = p.error;
      return undefined;
    }
    return p.value;
  };

  if (w.retry) {
    const retry: NonNullable<ControlsBody["retry"]> = {};
    for (const key of ["max_attempts", "initial_delay_seconds", "max_delay_seconds"] as const) {
      if (!changed(key)) continue;
      const n = read(key);
      if (n !== undefined) retry[key] = n;
    }
    if (Object.keys(retry).length > 0) body.retry = retry;
  }
  if (w.concurrency !== undefined && changed("concurrency")) {
    const n = read("concurrency");
    if (n !== undefined) body.concurrency = n;
  }
  if (w.throttle !== undefined) {
    const wasOn = w.throttle !== null;
    const on = edits.throttleOn ?? wasOn;
    if (!on && wasOn) body.throttle = null;
    if (on && (!wasOn || changed("throttle_limit") || changed("throttle_period_seconds"))) {
      const limit = read("throttle_limit");
      const period = read("throttle_period_seconds");
      if (limit !== undefined && period !== undefined) body.throttle = { limit, period_seconds: period };
    }
  }
  return { body, errors };
}

const SLOTS: Record<string, ErrorSlot> = {
  "retry.max_attempts": "max_attempts",
  "retry.initial_delay_seconds": "initial_delay_seconds",
  "retry.max_delay_seconds": "max_delay_seconds",
  concurrency: "concurrency",
  "throttle.limit": "throttle_limit",
  "throttle.period_seconds": "throttle_period_seconds",
  throttle: "throttle",
};

/**
 * A 400's details by the field they are about: the server names them `body.retry.max_attempts`,
 * the host's own check of the bridge's arguments `argument 2: retry.max_attempts`. Details of
 * anything else are left for the form's own error note.
 */
export function detailsByField(details: readonly { path: string; message: string }[]): {
  byField: Partial<Record<ErrorSlot, string>>;
  rest: { path: string; message: string }[];
} {
  const byField: Partial<Record<ErrorSlot, string>> = {};
  const rest: { path: string; message: string }[] = [];
  for (const d of details) {
    const path = d.path.replace(/^argument \d+:\s*/, "").replace(/^body\./, "");
    const slot = SLOTS[path];
    if (slot) byField[slot] = byField[slot] ? `${byField[slot]} ${d.message}` : d.message;
    else rest.push(d);
  }
  return { byField, rest };
}
