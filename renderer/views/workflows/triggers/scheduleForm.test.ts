/** The Triggers section's schedule rows: what they send, what they refuse before sending, and a new token's form. */
import { describe, expect, it } from "vitest";
import { errorsByRow, newRow, newToken, rowOf, schedulesOf, timeZones } from "./scheduleForm.js";

describe("schedule rows", () => {
  it("send a cron in its zone and an interval in seconds", () => {
    const rows = [
      rowOf({ cron: "0 9 * * 1-5", timezone: "Europe/Paris" }),
      rowOf({ interval_seconds: 30 }),
      { ...newRow("cron"), cron: "  */5   * * * * ", timezone: "Asia/Tokyo" },
    ];
    expect(schedulesOf(rows)).toEqual({
      schedules: [
        { cron: "0 9 * * 1-5", timezone: "Europe/Paris" },
        { interval_seconds: 30 },
        { cron: "*/5   * * * *", timezone: "Asia/Tokyo" },
      ],
    });
  });

  it("refuse a cron without five fields, an unknown zone and a bad interval, by row", () => {
    const rows = [
      { ...newRow("cron"), cron: "0 9 * *" },
      { ...newRow("cron"), timezone: "Mars/Olympus" },
      { ...newRow("interval"), interval: "0" },
      { ...newRow("interval"), interval: "1.5" },
      newRow("interval"),
    ];
    const out = schedulesOf(rows);
    expect("errors" in out && Object.keys(out.errors)).toEqual(["0", "1", "2", "3"]);
  });

  it("place a server's details on their rows", () => {
    expect(errorsByRow([{ path: "body.schedules.1.cron", message: "invalid cron expression" }])).toEqual({
      1: "invalid cron expression",
    });
  });

  it("offer UTC first among the zones, and make 43-character url-safe tokens", () => {
    expect(timeZones()[0]).toBe("UTC");
    const a = newToken();
    expect(a).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(a);
  });
});
