/**
 * Daily quotas: invocations and compute time (ms) per user, reset at 00:00 UTC. Every
 * invocation is counted with an atomic increment, so several servers on one database count
 * exactly. Over quota, an invocation is not run (the runtime records QUOTA_EXCEEDED).
 */
import type { Config } from "../config.js";
import type { QuotasRepo } from "../store/repos/quotas.js";

export interface QuotaUsageToday {
  invocations: number;
  computeMs: number;
}

export type QuotaCheck = { ok: true } | { ok: false; message: string };

/** The UTC day a time falls on, `YYYY-MM-DD`. */
export function utcDay(nowMs = Date.now()): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}

export class Quotas {
  constructor(
    private readonly repo: QuotasRepo,
    private readonly limits: Config["quotas"],
    private readonly now: () => number = Date.now,
  ) {}

  /** Today's usage (what `GET /users/me` shows). */
  async usedToday(userId: string): Promise<QuotaUsageToday> {
    return this.repo.usage(userId, utcDay(this.now()));
  }

  get dailyLimits(): Config["quotas"] {
    return this.limits;
  }

  /** Whether the user may run one more invocation today. */
  async check(userId: string): Promise<QuotaCheck> {
    return this.verdict(await this.usedToday(userId));
  }

  /** Whether one more invocation fits after `used` (a batch counts its own runs as it goes). */
  verdict(used: QuotaUsageToday): QuotaCheck {
    if (used.invocations >= this.limits.dailyInvocations) {
      return { ok: false, message: `daily invocations quota of ${this.limits.dailyInvocations} is used up (resets at 00:00 UTC)` };
    }
    if (used.computeMs >= this.limits.dailyComputeMs) {
      return { ok: false, message: `daily compute time quota of ${this.limits.dailyComputeMs} ms is used up (resets at 00:00 UTC)` };
    }
    return { ok: true };
  }

  /** Counts `invocations` (default one) that ran for `computeMs` in all. */
  async record(userId: string, computeMs: number, invocations = 1): Promise<void> {
    await this.repo.add(userId, utcDay(this.now()), invocations, Math.max(0, Math.round(computeMs)));
  }
}
