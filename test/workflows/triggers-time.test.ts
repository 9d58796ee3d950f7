/**
 * A schedule's ticks across daylight saving (decisions.md "Workflow triggers": local times follow
 * the zone's daylight saving), computed with a clock given to the code rather than waited for.
 * Europe/Paris goes 02:00 → 03:00 on 29 March 2026 and 03:00 → 02:00 on 25 October 2026.
 */
import { describe, expect, it } from "vitest";
import { localTimeOf, nextCronTick, tickEvent } from "../../server/workflows/schedules/zone-time.js";
import { followingTick } from "../../server/workflows/schedules/ticker.js";

const iso = (ms: number) => new Date(ms).toISOString();
const at = (s: string) => Date.parse(s);

/** The first `n` ticks strictly after `from`. */
function ticks(cron: string, zone: string, from: string, n: number): string[] {
  const out: string[] = [];
  let t = at(from);
  for (let i = 0; i < n; i++) out.push(iso((t = nextCronTick(cron, zone, t))));
  return out;
}

describe("schedule ticks in a time zone", () => {
  it("a daily 09:00 in Paris is 08:00 UTC in winter and 07:00 UTC in summer", () => {
    expect(ticks("0 9 * * *", "Europe/Paris", "2026-03-27T12:00:00Z", 3)).toEqual([
      "2026-03-28T08:00:00.000Z",
      "2026-03-29T07:00:00.000Z",
      "2026-03-30T07:00:00.000Z",
    ]);
    expect(ticks("0 9 * * *", "Europe/Paris", "2026-10-24T12:00:00Z", 2)).toEqual([
      "2026-10-25T08:00:00.000Z",
      "2026-10-26T08:00:00.000Z",
    ]);
  });

  it("a weekday 09:00 skips the weekend, in local days", () => {
    // Friday 3 April 2026, then Monday 6 April.
    expect(ticks("0 9 * * 1-5", "Europe/Paris", "2026-04-03T06:00:00Z", 2)).toEqual([
      "2026-04-03T07:00:00.000Z",
      "2026-04-06T07:00:00.000Z",
    ]);
  });

  it("a time in the spring gap is moved forward by the gap, once", () => {
    // 02:30 does not exist on 29 March: it runs at 03:30 CEST (01:30 UTC).
    expect(ticks("30 2 * * *", "Europe/Paris", "2026-03-28T12:00:00Z", 2)).toEqual([
      "2026-03-29T01:30:00.000Z",
      "2026-03-30T00:30:00.000Z",
    ]);
    // Every 30 minutes through the gap: no instant twice, none missing after it.
    expect(ticks("*/30 * * * *", "Europe/Paris", "2026-03-29T00:15:00Z", 4)).toEqual([
      "2026-03-29T00:30:00.000Z", // 01:30 CET
      "2026-03-29T01:00:00.000Z", // 02:00 (gap) = 03:00 CEST
      "2026-03-29T01:30:00.000Z", // 03:30 CEST
      "2026-03-29T02:00:00.000Z",
    ]);
  });

  it("a time that exists twice in autumn runs once, at its first occurrence", () => {
    expect(ticks("30 2 * * *", "Europe/Paris", "2026-10-24T12:00:00Z", 2)).toEqual([
      "2026-10-25T00:30:00.000Z", // 02:30 CEST, the first of the two
      "2026-10-26T01:30:00.000Z",
    ]);
    // Started during the second 02:30-03:00 hour: the repeated wall time is not run again.
    expect(ticks("45 2 * * *", "Europe/Paris", "2026-10-25T01:40:00Z", 1)).toEqual([
      "2026-10-26T01:45:00.000Z",
    ]);
  });

  it("says the local date, time, weekday and offset of a tick", () => {
    expect(localTimeOf("Europe/Paris", at("2026-03-29T01:30:00Z"))).toEqual({
      date: "2026-03-29",
      time: "03:30:00",
      weekday: "Sunday",
      offset: "+02:00",
    });
    expect(localTimeOf("America/New_York", at("2026-01-05T14:00:00Z"))).toMatchObject({
      time: "09:00:00",
      offset: "-05:00",
    });
    expect(tickEvent({ cron: "0 9 * * *", timezone: "Europe/Paris" }, at("2026-03-30T07:00:00Z"))).toEqual({
      timestamp: at("2026-03-30T07:00:00Z") / 1000,
      scheduled_at_ms: at("2026-03-30T07:00:00Z"),
      timezone: "Europe/Paris",
      cron: "0 9 * * *",
      local: { date: "2026-03-30", time: "09:00:00", weekday: "Monday", offset: "+02:00" },
    });
  });

  it("does not make up ticks missed while no server ran", () => {
    const due = at("2026-05-01T10:00:00Z");
    const now = due + 3 * 3600_000 + 5_000;
    // An interval keeps its phase, after now.
    expect(iso(followingTick({ interval_seconds: 600 }, due, now))).toBe("2026-05-01T13:10:00.000Z");
    // A cron's next is after now, not after the missed tick.
    expect(iso(followingTick({ cron: "0 * * * *", timezone: "UTC" }, due, now))).toBe(
      "2026-05-01T14:00:00.000Z",
    );
  });
});
