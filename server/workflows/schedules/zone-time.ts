/**
 * A schedule's time arithmetic: when its next tick is, and what that tick's local time reads.
 *
 * A cron is matched against the zone's wall clock (cron-parser over a "wall clock as if it were
 * UTC" timeline), and each matching wall time becomes an instant with the zone's offsets, which
 * Intl.DateTimeFormat gives (no time-zone library needed):
 * - a wall time that does not exist (the spring gap) is moved forward by the gap's length
 *   (02:30 on the night clocks go 02:00 → 03:00 runs at 03:30), as clocks do; several gap
 *   times that land on one instant run once;
 * - a wall time that exists twice (the autumn overlap) runs once, at its first occurrence.
 * An interval is plain elapsed time, whatever the zone.
 */
import { CronExpressionParser } from "cron-parser";
import type { LocalTime, Schedule } from "../../../shared/resources/index.js";

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterOf(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      weekday: "long",
    });
    formatters.set(zone, f);
  }
  return f;
}

interface WallParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: string;
}

function wallParts(zone: string, instantMs: number): WallParts {
  const out: Record<string, string> = {};
  for (const p of formatterOf(zone).formatToParts(new Date(instantMs))) out[p.type] = p.value;
  return {
    year: Number(out.year),
    month: Number(out.month),
    day: Number(out.day),
    hour: Number(out.hour),
    minute: Number(out.minute),
    second: Number(out.second),
    weekday: out.weekday ?? "",
  };
}

/** The zone's wall clock at an instant, as milliseconds on a UTC timeline (whole seconds). */
export function wallMsAt(zone: string, instantMs: number): number {
  const p = wallParts(zone, instantMs);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** The zone's offset from UTC at an instant, in milliseconds. */
export function offsetMsAt(zone: string, instantMs: number): number {
  const whole = Math.floor(instantMs / 1000) * 1000;
  return wallMsAt(zone, whole) - whole;
}

const DAY_MS = 86_400_000;

/**
 * The instant a wall time of the zone stands for: its first occurrence when it is repeated, and
 * when it does not exist, the instant the offset from before the gap gives (later by the gap).
 */
export function instantOfWall(zone: string, wallMs: number): number {
  const before = offsetMsAt(zone, wallMs - DAY_MS);
  const after = offsetMsAt(zone, wallMs + DAY_MS);
  const candidates = [wallMs - before, wallMs - after].filter((i) => wallMsAt(zone, i) === wallMs);
  return candidates.length > 0 ? Math.min(...candidates) : wallMs - before;
}

/** Throws when cron-parser refuses the expression (its message says why). */
export function checkCron(cron: string): void {
  CronExpressionParser.parse(cron, { tz: "UTC" });
}

/** The first tick of a cron in `zone` strictly after `afterMs`. */
export function nextCronTick(cron: string, zone: string, afterMs: number): number {
  let wall = wallMsAt(zone, afterMs);
  const expr = CronExpressionParser.parse(cron, { currentDate: new Date(wall), tz: "UTC" });
  // A match whose instant is not later (the second pass of a repeated hour) is passed over.
  for (let i = 0; i < 10_000; i++) {
    wall = expr.next().getTime();
    const at = instantOfWall(zone, wall);
    if (at > afterMs) return at;
  }
  throw new Error(`cron "${cron}" has no tick after ${new Date(afterMs).toISOString()}`);
}

/** A schedule's zone: a cron's own, UTC for an interval. */
export const zoneOf = (s: Schedule): string => ("cron" in s ? s.timezone : "UTC");

/** The next tick strictly after `afterMs` (an interval counts from `afterMs`). */
export function nextTick(s: Schedule, afterMs: number): number {
  return "cron" in s ? nextCronTick(s.cron, s.timezone, afterMs) : afterMs + s.interval_seconds * 1000;
}

const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** A tick's time in its zone. */
export function localTimeOf(zone: string, instantMs: number): LocalTime {
  const p = wallParts(zone, instantMs);
  const off = Math.round(offsetMsAt(zone, instantMs) / 60_000);
  const sign = off < 0 ? "-" : "+";
  const abs = Math.abs(off);
  return {
    date: `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`,
    time: `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`,
    weekday: p.weekday,
    offset: `${sign}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`,
  };
}

/** The event a tick's run gets. */
export function tickEvent(s: Schedule, atMs: number): Record<string, unknown> {
  const timezone = zoneOf(s);
  return {
    timestamp: Math.floor(atMs / 1000),
    scheduled_at_ms: atMs,
    timezone,
    ...("cron" in s ? { cron: s.cron } : { interval_seconds: s.interval_seconds }),
    local: localTimeOf(timezone, atMs),
  };
}
