/**
 * The usage a batch of runs starts from (Quotas.usedBeforeRuns): what `admits` remembers while
 * the batch cannot come near a limit, the stored usage once it could.
 */
import { describe, expect, it } from "vitest";
import type { QuotasRepo } from "../store/repos/quotas.js";
import { Quotas, utcDay } from "./quotas.js";

function quotasOver(stored: { invocations: number; computeMs: number }, now: { ms: number }) {
  let reads = 0;
  const repo = {
    usage: async () => {
      reads += 1;
      return { ...stored };
    },
  } as unknown as QuotasRepo;
  const quotas = new Quotas(repo, { dailyInvocations: 100, dailyComputeMs: 100_000 }, () => now.ms);
  return { quotas, reads: () => reads };
}

describe("the usage a batch of runs is checked against", () => {
  const limits = { dailyInvocations: 100, dailyComputeMs: 100_000 };

  it("is what admits read a moment ago, plus what ran since, while far from the limits", async () => {
    const now = { ms: Date.UTC(2026, 10, 26, 12) };
    const stored = { invocations: 10, computeMs: 500 };
    const { quotas, reads } = quotasOver(stored, now);
    await quotas.admits("u_1");
    expect(reads()).toBe(1);
    quotas.counted({ userId: "u_1", day: utcDay(now.ms), invocations: 5, computeMs: 50 });
    expect(await quotas.usedBeforeRuns("u_1", 10, limits)).toEqual({ invocations: 15, computeMs: 550 });
    expect(reads()).toBe(1);
  });

  it("is read from the store when the batch could reach half a limit, when nothing is remembered, or a second later", async () => {
    const now = { ms: Date.UTC(2026, 10, 26, 12) };
    const stored = { invocations: 40, computeMs: 500 };
    const { quotas, reads } = quotasOver(stored, now);
    // Nothing remembered yet: read.
    expect(await quotas.usedBeforeRuns("u_1", 1, limits)).toEqual(stored);
    expect(reads()).toBe(1);
    await quotas.admits("u_1");
    expect(reads()).toBe(2);
    // 40 used + 10 runs is half the limit: the stored usage decides.
    stored.invocations = 41;
    expect(await quotas.usedBeforeRuns("u_1", 10, limits)).toEqual({ invocations: 41, computeMs: 500 });
    expect(reads()).toBe(3);
    // A smaller batch stays clear of it: remembered.
    expect(await quotas.usedBeforeRuns("u_1", 5, limits)).toEqual({ invocations: 40, computeMs: 500 });
    expect(reads()).toBe(3);
    // Remembered at most a second.
    now.ms += 1001;
    expect(await quotas.usedBeforeRuns("u_1", 5, limits)).toEqual({ invocations: 41, computeMs: 500 });
    expect(reads()).toBe(4);
  });

  it("never returns the remembered object itself (a batch counts its runs on its own copy)", async () => {
    const now = { ms: Date.UTC(2026, 10, 26, 12) };
    const { quotas } = quotasOver({ invocations: 1, computeMs: 0 }, now);
    await quotas.admits("u_1");
    const used = await quotas.usedBeforeRuns("u_1", 1, limits);
    used.invocations += 50;
    expect(await quotas.usedBeforeRuns("u_1", 1, limits)).toEqual({ invocations: 1, computeMs: 0 });
  });
});
