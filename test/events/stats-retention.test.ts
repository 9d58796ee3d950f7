/** Stats are kept HEADWATER_STATS_RETENTION_DAYS: older minutes are dropped, newer ones kept. */
import { describe, expect, it } from "vitest";
import { readStats, startStatsPruning } from "../../server/events/stats.js";
import { addStatsIn, statsOf } from "../../server/store/repos/event-stats.js";
import { loadConfig } from "../../server/config.js";
import { tempDb } from "./helpers.js";

describe("stats retention", () => {
  it("drops minutes older than the retention at start, keeps the rest", async () => {
    const db = await tempDb();
    try {
      const now = Date.now();
      const day = 86_400_000;
      await db.db.transaction().execute(async (trx) => {
        await addStatsIn(trx, statsOf([{ emitter_id: "dc_a", channel: "" }], [], now - 3 * day));
        await addStatsIn(trx, statsOf([{ emitter_id: "dc_a", channel: "" }, { emitter_id: "dc_a", channel: "$errors" }], [], now - day));
      });
      const window = { since: now - 4 * day, until: now, bucket: "day" as const };
      const before = await readStats(db.db, "dc_a", window, now);
      expect(before.series.reduce((n, p) => n + p.events, 0)).toBe(2);
      const pruning = startStatsPruning(db.db, 2, { warn: () => undefined });
      await pruning.stop();
      const after = await readStats(db.db, "dc_a", window, now);
      expect(after.series.reduce((n, p) => n + p.events, 0)).toBe(1);
      expect(after.series.reduce((n, p) => n + p.errors, 0)).toBe(1);
    } finally {
      await db.close();
    }
  });

  it("reads HEADWATER_STATS_RETENTION_DAYS (default 30) and refuses a bad value", () => {
    expect(loadConfig({}).statsRetentionDays).toBe(30);
    expect(loadConfig({ HEADWATER_STATS_RETENTION_DAYS: "7" }).statsRetentionDays).toBe(7);
    expect(() => loadConfig({ HEADWATER_STATS_RETENTION_DAYS: "0" })).toThrow(/HEADWATER_STATS_RETENTION_DAYS/);
    expect(() => loadConfig({ HEADWATER_STATS_RETENTION_DAYS: "week" })).toThrow(/HEADWATER_STATS_RETENTION_DAYS/);
  });
});
