/**
 * Event inspection (decisions.md "Event inspection"): search of event lists (`q`), replay of
 * retained events to a channel's listeners, and per-bucket volume stats of a source or workflow.
 */
import * as z from "../zod.js";
import { QueryInt } from "./common.js";

/** Longest `q` the server searches for; a longer one is bad input, and bad input is as absent. */
export const SEARCH_MAX_LENGTH = 256;

/**
 * `q` of `GET .../event_summaries`: text the event's data or summary contains, case-insensitive.
 * Bad or empty (blank, repeated, over SEARCH_MAX_LENGTH characters) reads as absent, as the
 * contract says, rather than as a 400.
 */
export const SearchText = z
  .pipe(
    z.catch(z.optional(z.string().check(z.maxLength(SEARCH_MAX_LENGTH))), undefined),
    z.transform((v: string | undefined) => (v !== undefined && v.trim() !== "" ? v : undefined)),
  )
  .register(z.globalRegistry, {
    description: `Only events whose data or summary contains this text, case-insensitive (at most ${SEARCH_MAX_LENGTH} characters; empty, repeated or longer: ignored)`,
  });

const EventIdParam = z.string().check(z.regex(/^\d+-\d+$/, "not an event id"));

/** Body of `POST /sources/{id}/events/replay` and `POST /workflows/{id}/events/replay`. */
export const ReplayEventsBody = z.object({
  /** First event to replay (inclusive); absent: the oldest retained. */
  start_id: z.optional(EventIdParam),
  /** Last event to replay (inclusive); absent: the newest retained. */
  end_id: z.optional(EventIdParam),
  /** The channel (default: the default channel). */
  event_name: z.optional(z.string().check(z.maxLength(128))),
  /** Only this listener (one of the channel's current listeners); absent: every listener. */
  listener_id: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
});
export type ReplayEventsBody = z.input<typeof ReplayEventsBody>;

/** What a replay queued: events in the range, and deliveries (events x listeners) queued. */
export const ReplayResult = z.object({
  events: z.number().check(z.int(), z.nonnegative()),
  deliveries: z.number().check(z.int(), z.nonnegative()),
});
export type ReplayResult = z.infer<typeof ReplayResult>;

export const STATS_BUCKETS = ["minute", "hour", "day"] as const;
export type StatsBucket = (typeof STATS_BUCKETS)[number];

/** Length of each bucket in ms. */
export const STATS_BUCKET_MS: Record<StatsBucket, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * Widest window per bucket: 31 days of minutes (44,640 points), a year of hours, ten years of
 * days. Stats are kept HEADWATER_STATS_RETENTION_DAYS (default 30), so older buckets read zero.
 */
export const STATS_MAX_WINDOW_MS: Record<StatsBucket, number> = {
  minute: 31 * 86_400_000,
  hour: 366 * 86_400_000,
  day: 3660 * 86_400_000,
};
/** What the limits are called in messages. */
export const STATS_MAX_WINDOW_TEXT: Record<StatsBucket, string> = { minute: "31 days", hour: "366 days", day: "3660 days" };

/** Default window: the last hour. */
export const STATS_DEFAULT_WINDOW_MS = 3_600_000;

/** Query of `GET /sources/{id}/stats` and `GET /workflows/{id}/stats`. */
export const StatsQuery = z.object({
  /** Window start, ms since the epoch (default: `until` minus one hour). */
  since: z.optional(z.pipe(QueryInt, z.number().check(z.int(), z.nonnegative()))),
  /** Window end, ms since the epoch (default: now). */
  until: z.optional(z.pipe(QueryInt, z.number().check(z.int(), z.nonnegative()))),
  bucket: z.optional(z.enum(STATS_BUCKETS)),
});
export type StatsQuery = z.input<typeof StatsQuery>;

/** One bucket: its start `t` (ms) and what was counted in it. */
export const StatsPoint = z.object({
  t: z.number().check(z.int()),
  /** Events appended on the emitter's own channels (not `$errors` / `$logs`). */
  events: z.number().check(z.int(), z.nonnegative()),
  /** Events appended on `$errors`. */
  errors: z.number().check(z.int(), z.nonnegative()),
  /** Events appended on `$logs`. */
  logs: z.number().check(z.int(), z.nonnegative()),
  /** Runs that ended (their results committed). */
  invocations: z.number().check(z.int(), z.nonnegative()),
  /** Compute time of those runs, ms. */
  compute_ms: z.number().check(z.int(), z.nonnegative()),
});
export type StatsPoint = z.infer<typeof StatsPoint>;

export const Stats = z.object({
  bucket: z.enum(STATS_BUCKETS),
  /** One point per bucket in the window, oldest first, zeros included. */
  series: z.array(StatsPoint),
});
export type Stats = z.infer<typeof Stats>;
