/** Small display helpers shared by the views. */

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400_000],
  ["month", 30 * 86_400_000],
  ["day", 86_400_000],
  ["hour", 3_600_000],
  ["minute", 60_000],
  ["second", 1000],
];
const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto", style: "short" });

/** "5 sec. ago", "in 2 min." relative to `nowMs`. */
export function relativeTime(ms: number, nowMs: number = Date.now()): string {
  const diff = ms - nowMs;
  // A few seconds ahead is the caller's clock lagging (it ticks every few seconds), not the future.
  if (diff > -1000 && diff < 60_000) return "now";
  for (const [unit, size] of UNITS) {
    if (Math.abs(diff) >= size) return rtf.format(Math.round(diff / size), unit);
  }
  return "now";
}

/*
 * One date-time format throughout the dashboard: "Dec 7, 01:17:12" (24-hour clock, local time;
 * the year is added when it is not this one: "Dec 7 2025, 01:17:12"), milliseconds only where
 * they tell events apart ("Dec 7, 01:17:12.011"), and "5 min ago" instead when it is recent
 * (`formatWhen`), the exact time then on hover.
 */
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const pad = (n: number, w = 2) => String(n).padStart(w, "0");

/** "Dec 7" (this year) or "Dec 7 2025". */
export function formatDay(ms: number, nowMs: number = Date.now()): string {
  const d = new Date(ms);
  const day = `${MONTHS[d.getMonth()]} ${d.getDate()}`;
  return d.getFullYear() === new Date(nowMs).getFullYear() ? day : `${day} ${d.getFullYear()}`;
}

/** "01:17:12", or "01:17:12.011" with milliseconds, or "01:17" without seconds. */
export function formatClock(ms: number, precision: "minutes" | "seconds" | "ms" = "seconds"): string {
  const d = new Date(ms);
  const hm = `${pad(d.getHours())}:${pad(d.getMinutes())}`;
  if (precision === "minutes") return hm;
  const hms = `${hm}:${pad(d.getSeconds())}`;
  return precision === "ms" ? `${hms}.${pad(d.getMilliseconds(), 3)}` : hms;
}

/** "Dec 7, 01:17:12" (with `ms`: "Dec 7, 01:17:12.011"). */
export function absoluteTime(ms: number, opts: { ms?: boolean; nowMs?: number } = {}): string {
  return `${formatDay(ms, opts.nowMs)}, ${formatClock(ms, opts.ms ? "ms" : "seconds")}`;
}

/** How recent counts as recent: within the hour, a time is said relative to now. */
const RECENT_MS = 3_600_000;

/** "5 min. ago" within the hour, else "Dec 7, 01:17:12". Pair it with `absoluteTime` on hover. */
export function formatWhen(ms: number, nowMs: number = Date.now()): string {
  return Math.abs(ms - nowMs) < RECENT_MS ? relativeTime(ms, nowMs) : absoluteTime(ms, { nowMs });
}

/** A date from Unix seconds (resource `created_at`), in the one format. */
export function fromUnixSeconds(s: number | undefined, nowMs: number = Date.now()): string {
  return s === undefined ? "—" : formatWhen(s * 1000, nowMs);
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function formatNumber(n: number): string {
  return n.toLocaleString("en-US");
}

/** Milliseconds of compute time in words: "1.2 s", "3 min 20 s". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${Math.round(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Parses "a, b , c" into ["a","b","c"]. */
export function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/**
 * Markdown of a component's or action's description as plain words: `[See the docs](url)` → "See
 * the docs", emphasis and code marks dropped. (Descriptions are the components' own text: shown
 * as text, never as HTML.)
 */
export function plainText(markdown: string): string {
  return markdown
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/(\*\*|__)(.+?)\1/g, "$2")
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=$|[\s).,;:!?])/g, "$1$2")
    .replace(/`([^`]*)`/g, "$1")
    .replace(/^#+\s+/gm, "")
    .replace(/\s+/g, " ")
    .trim();
}
