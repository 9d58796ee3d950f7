/**
 * The Triggers section's schedules as edited: rows of text, checked here for their form (the
 * server checks a cron's values and answers 400 naming the schedule) and turned into the
 * `schedules` an update sends. Also a new bearer token, made in the browser and shown once.
 */
import type { Schedule, ScheduleInput } from "../../../../shared/resources/index.js";
import { isKnownTimeZone, MAX_WORKFLOW_SCHEDULES } from "../../../../shared/resources/index.js";

export interface ScheduleRow {
  kind: "cron" | "interval";
  cron: string;
  timezone: string;
  interval: string;
}

export { MAX_WORKFLOW_SCHEDULES };

export const rowOf = (s: Schedule): ScheduleRow =>
  "cron" in s
    ? { kind: "cron", cron: s.cron, timezone: s.timezone, interval: "" }
    : { kind: "interval", cron: "", timezone: "UTC", interval: String(s.interval_seconds) };

/** The browser's own zone, the one a new cron starts in (a person's 09:00 is theirs). */
export function localZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  } catch {
    return "UTC";
  }
}

export const newRow = (kind: ScheduleRow["kind"]): ScheduleRow =>
  kind === "cron"
    ? { kind, cron: "0 9 * * 1-5", timezone: localZone(), interval: "" }
    : { kind, cron: "", timezone: "UTC", interval: "60" };

/** Every zone the runtime knows (for the picker), UTC first. */
export function timeZones(): string[] {
  const all = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.("timeZone") ?? [];
  return ["UTC", ...all.filter((z) => z !== "UTC")];
}

/** The rows as `schedules`, or the first problem of each row by its index. */
export function schedulesOf(
  rows: ScheduleRow[],
): { schedules: ScheduleInput[] } | { errors: Record<number, string> } {
  const errors: Record<number, string> = {};
  const schedules: ScheduleInput[] = [];
  rows.forEach((r, i) => {
    if (r.kind === "interval") {
      const n = Number(r.interval);
      if (!/^\d+$/.test(r.interval.trim()) || n < 1) errors[i] = "a whole number of seconds, at least 1";
      else schedules.push({ interval_seconds: n });
      return;
    }
    const cron = r.cron.trim();
    if (cron.split(/\s+/).length !== 5) errors[i] = "five fields: minute hour day month weekday";
    else if (!isKnownTimeZone(r.timezone)) errors[i] = `${r.timezone || "(empty)"} is not a time zone`;
    else schedules.push({ cron, timezone: r.timezone });
  });
  return Object.keys(errors).length > 0 ? { errors } : { schedules };
}

/** A server's 400 details (`schedules.1.cron`) by row index. */
export function errorsByRow(
  details: ReadonlyArray<{ path: string; message: string }>,
): Record<number, string> {
  const out: Record<number, string> = {};
  for (const d of details) {
    const m = /schedules\.(\d+)/.exec(d.path);
    if (m) out[Number(m[1])] ??= d.message;
  }
  return out;
}

/** A new token: 32 random bytes, base64url (43 characters). */
export function newToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}
