/**
 * A workflow's own triggers (decisions.md "Workflow triggers, environment variables and data
 * stores"): its schedules, Run now, and the bearer token its endpoint may require. Schedules and
 * endpoint auth are part of a workflow's content, so a change of them is a new version.
 *
 * The token is write-only: create, update and a draft take `{type: "bearer", token}`; every
 * answer says `{type: "bearer", token_set: true}`.
 */
import * as z from "../zod.js";
import { QueryInt } from "./common.js";

/** The most schedules a workflow has. */
export const MAX_WORKFLOW_SCHEDULES = 10;
/** A bearer token's length, in printable ASCII characters. */
export const TOKEN_LENGTH = { min: 16, max: 256 } as const;

/** Five fields (minute hour day-of-month month day-of-week); the server checks each field's values. */
const CRON_FIELDS = /^\s*\S+(\s+\S+){4}\s*$/;
const PRINTABLE = /^[\x21-\x7e]+$/;

/** Whether the runtime knows `zone` (an IANA name such as Europe/Paris). */
export function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const CronSchedule = z.object({
  cron: z
    .string()
    .check(
      z.maxLength(200),
      z.regex(CRON_FIELDS, "a cron expression has five fields: minute hour day month weekday"),
    ),
  /** An IANA time zone; default UTC. */
  timezone: z.optional(
    z
      .string()
      .check(
        z.minLength(1),
        z.maxLength(64),
        z.refine(isKnownTimeZone, "not a known time zone (an IANA name such as Europe/Paris)"),
      ),
  ),
});

export const IntervalSchedule = z.object({
  interval_seconds: z.number().check(z.int(), z.gte(1), z.lte(366 * 86_400)),
});

/** A schedule as create, update and a draft take it. */
export const ScheduleInput = z.union([
  z.strictObject(CronSchedule.shape),
  z.strictObject(IntervalSchedule.shape),
]);
export type ScheduleInput = z.infer<typeof ScheduleInput>;

/** A schedule as answered: a cron always with its zone. */
export const Schedule = z.union([
  z.object({ cron: z.string(), timezone: z.string() }),
  z.object({ interval_seconds: z.number().check(z.int()) }),
]);
export type Schedule = z.infer<typeof Schedule>;

export const SchedulesInput = z.array(ScheduleInput).check(z.maxLength(MAX_WORKFLOW_SCHEDULES));

/**
 * Endpoint auth as inputs take it. `{type: "bearer"}` without a token keeps the token the
 * workflow has (refused when it has none); with one, the new token replaces the old.
 */
export const HttpAuthInput = z.union([
  z.strictObject({ type: z.literal("none") }),
  z.strictObject({
    type: z.literal("bearer"),
    token: z.optional(
      z
        .string()
        .check(
          z.minLength(TOKEN_LENGTH.min),
          z.maxLength(TOKEN_LENGTH.max),
          z.regex(PRINTABLE, "a token is printable ASCII without spaces"),
        ),
    ),
  }),
]);
export type HttpAuthInput = z.infer<typeof HttpAuthInput>;

/** Endpoint auth as answered: never the token. */
export const HttpAuth = z.union([
  z.object({ type: z.literal("none") }),
  z.object({ type: z.literal("bearer"), token_set: z.literal(true) }),
]);
export type HttpAuth = z.infer<typeof HttpAuth>;

/** The fields inputs share (create, update, a draft). */
export const TriggerInputs = {
  schedules: z.optional(SchedulesInput),
  http_auth: z.optional(HttpAuthInput),
};

/** A tick's time in the schedule's zone. */
export const LocalTime = z.object({
  /** YYYY-MM-DD */
  date: z.string(),
  /** HH:MM:SS */
  time: z.string(),
  /** Monday … Sunday */
  weekday: z.string(),
  /** The zone's offset from UTC then, +HH:MM or -HH:MM. */
  offset: z.string(),
});
export type LocalTime = z.infer<typeof LocalTime>;

/** One coming tick (`GET /workflows/{id}/schedules/next`). */
export const ScheduleTick = z.object({
  /** The schedule's index in `schedules`. */
  schedule: z.number().check(z.int()),
  at_ms: z.number().check(z.int()),
  /** ISO 8601, UTC. */
  at: z.string(),
  timezone: z.string(),
  local: LocalTime,
});
export type ScheduleTick = z.infer<typeof ScheduleTick>;

export const NextTicksQuery = z.object({
  count: z.optional(z.pipe(QueryInt, z.number().check(z.int(), z.gte(1), z.lte(50)))),
});
export type NextTicksQuery = z.input<typeof NextTicksQuery>;

/** Run now: `POST /workflows/{id}/runs`. The event defaults to `{}`. */
export const RunWorkflowBody = z.object({ event: z.optional(z.unknown()) });
export type RunWorkflowBody = z.infer<typeof RunWorkflowBody>;
