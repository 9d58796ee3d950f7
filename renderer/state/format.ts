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

/** "2026-11-22 00:31:05.123" in local time: precise enough to tell events apart. */
export function absoluteTime(ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, "0");
  return (
    `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ` +
    `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`
  );
}

/** A date from Unix seconds (resource `created_at`). */
export function fromUnixSeconds(s: number | undefined): string {
  return s === undefined ? "—" : absoluteTime(s * 1000).slice(0, 16);
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
