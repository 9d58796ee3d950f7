/**
 * The volume chart's words and numbers, apart from drawing: the ranges it offers and the bucket
 * each uses, the totals its label states, and the tooltip text of one bucket.
 */
import { formatClock, formatDay, formatNumber } from "../../state/format.js";

export type VolumeRange = "1h" | "24h" | "7d";
export type VolumeBucket = "minute" | "hour" | "day";

export interface VolumePoint {
  /** Start of the bucket, ms. */
  t: number;
  events: number;
  errors: number;
}

export const VOLUME_RANGES: Record<VolumeRange, { label: string; words: string; ms: number; bucket: VolumeBucket; refreshMs: number }> = {
  // 60 one-minute bars; the window slides a bucket a minute.
  "1h": { label: "1 h", words: "last hour", ms: 3_600_000, bucket: "minute", refreshMs: 15_000 },
  // Hourly bars: 24 and 168 of them are readable; minutes over a day would be 1,440 slivers.
  "24h": { label: "24 h", words: "last 24 hours", ms: 86_400_000, bucket: "hour", refreshMs: 60_000 },
  "7d": { label: "7 d", words: "last 7 days", ms: 7 * 86_400_000, bucket: "hour", refreshMs: 300_000 },
};

export const BUCKET_MS: Record<VolumeBucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

export function volumeTotals(points: readonly VolumePoint[]): { events: number; errors: number } {
  let events = 0;
  let errors = 0;
  for (const p of points) {
    events += p.events;
    errors += p.errors;
  }
  return { events, errors };
}

const count = (n: number, one: string, many: string) => `${formatNumber(n)} ${n === 1 ? one : many}`;

/** "Event volume, last hour: 1,500 events, 3 errors": what a screen reader hears for the chart. */
export function volumeLabel(range: VolumeRange, points: readonly VolumePoint[]): string {
  const t = volumeTotals(points);
  return `Event volume, ${VOLUME_RANGES[range].words}: ${count(t.events, "event", "events")}, ${count(t.errors, "error", "errors")}`;
}

/** The tooltip of one bucket: its time span, then its counts. */
export function bucketText(p: VolumePoint, bucket: VolumeBucket): { when: string; events: string; errors: string } {
  const start = new Date(p.t);
  const end = new Date(p.t + BUCKET_MS[bucket]);
  const hm = (d: Date) => formatClock(d.getTime(), "minutes");
  const day = (d: Date) => formatDay(d.getTime());
  const when = bucket === "day" ? day(start) : bucket === "hour" ? `${day(start)}, ${hm(start)}–${hm(end)}` : `${hm(start)}–${hm(end)}`;
  return { when, events: count(p.events, "event", "events"), errors: count(p.errors, "error", "errors") };
}
