/** Times for people: relative in tables ("3m ago"), a clock time in live streams. */

export function relativeTime(ms: number, now: number = Date.now()): string {
  const s = Math.round((now - ms) / 1000);
  if (s < 0) return "in the future";
  if (s < 5) return "just now";
  if (s < 60) return `${s}s ago`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ago`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h ago`;
  const d = Math.floor(h / 24);
  if (d < 60) return `${d}d ago`;
  return new Date(ms).toISOString().slice(0, 10);
}

/** `HH:MM:SS` in local time. */
export function clockTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

/** How long until a time still to come, for people ("in 42s", "in 3m", "in 2h", "in 5d"). */
export function untilTime(ms: number, now: number = Date.now()): string {
  const s = Math.round((ms - now) / 1000);
  if (s <= 0) return "due now";
  if (s < 60) return `in ${s}s`;
  const m = Math.round(s / 60);
  if (m < 60) return `in ${m}m`;
  const h = Math.round(m / 60);
  if (h < 48) return `in ${h}h`;
  return `in ${Math.round(h / 24)}d`;
}

/** A time still to come: its clock time when within a day, else its date and time (UTC). */
export function whenText(ms: number, now: number = Date.now()): string {
  const at =
    ms - now < 86_400_000
      ? clockTime(ms)
      : new Date(ms).toISOString().slice(0, 16).replace("T", " ") + " UTC";
  return `${untilTime(ms, now)} (${at})`;
}
