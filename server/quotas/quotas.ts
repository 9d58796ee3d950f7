/**
 * Daily quotas: invocations and compute time (ms) per user, reset at 00:00 UTC. Every
 * invocation is counted with an atomic increment, so several servers on one database count
 * exactly. Over quota, an invocation is not run (the runtime records QUOTA_EXCEEDED).
 *
 * A run of a queued job is counted in the transaction that stores its results and deletes its
 * job (`countFor` makes the count, the event store commits it, `counted` tells the cache), so
 * a job is counted once, exactly when its results are stored.
 */
import { Counter } from "prom-client";
import type { Config } from "../config.js";
import type { JobCompletion } from "../store/repos/completions.js";
import type { QuotasRepo } from "../store/repos/quotas.js";
import { REMEMBERED_AT_MOST_MS } from "../cluster/remembered.js";

export interface QuotaUsageToday {
  invocations: number;
  computeMs: number;
}

export type QuotaCheck = { ok: true } | { ok: false; message: string };

/** A user's daily limits: their own (set by an admin, `PATCH /users/{id}`) or the server's. */
export type DailyLimits = Config["quotas"];

/** Reads a user's own limits (NULL: the server default). */
export interface QuotaOverrides {
  overridesOf(userId: string): Promise<{ dailyInvocations: number | null; dailyComputeMs: number | null } | undefined>;
}

const DAY_MS = 86_400_000;

/** Invocations refused over a daily quota (`/metrics`; registered by server/metrics). */
export const quotaRefusals = new Counter({
  name: "headwater_quota_refusals_total",
  help: "Invocations and endpoint requests refused because a daily quota was used up, by quota",
  labelNames: ["quota"] as const,
  registers: [],
});
/** The last day computed (several lookups per invocation; formatting a date each time showed up in profiles). */
let lastDay = { start: 0, day: "1970-01-01" };

/** The UTC day a time falls on, `YYYY-MM-DD`. */
export function utcDay(nowMs = Date.now()): string {
  if (nowMs >= lastDay.start && nowMs < lastDay.start + DAY_MS) return lastDay.day;
  const start = nowMs - (((nowMs % DAY_MS) + DAY_MS) % DAY_MS);
  lastDay = { start, day: new Date(start).toISOString().slice(0, 10) };
  return lastDay.day;
}

/** Whether one more invocation fits after `used` under `limits`. */
function within(used: QuotaUsageToday, limits: DailyLimits): boolean {
  return used.invocations < limits.dailyInvocations && used.computeMs < limits.dailyComputeMs;
}

/** How long `admits` trusts a usage it read, and for how many users at most. */
const RECENT_MS = REMEMBERED_AT_MOST_MS;
const RECENT_MAX = 10_000;

export class Quotas {
  private readonly recent = new Map<string, { used: QuotaUsageToday; day: string; until: number }>();
  /** Users' limits as read at most RECENT_MS ago (an admin's change shows within a second). */
  private readonly limitsCache = new Map<string, { limits: DailyLimits; until: number }>();
  /**
   * Bumped by `forgetUser`: a read that began before it is used by its caller but not kept, so a
   * read under way when an admin's change was forgotten cannot bring the old limits back.
   */
  private generation = 0;

  constructor(
    private readonly repo: QuotasRepo & Partial<QuotaOverrides>,
    private readonly limits: Config["quotas"],
    private readonly now: () => number = Date.now,
  ) {}

  /** The limits in force for a user: their own where an admin set them, else the server's. */
  async limitsFor(userId: string): Promise<DailyLimits> {
    const now = this.now();
    const hit = this.limitsCache.get(userId);
    if (hit && hit.until > now) return hit.limits;
    const generation = this.generation;
    const own = await this.repo.overridesOf?.(userId);
    const limits = {
      dailyInvocations: own?.dailyInvocations ?? this.limits.dailyInvocations,
      dailyComputeMs: own?.dailyComputeMs ?? this.limits.dailyComputeMs,
    };
    if (generation !== this.generation) return limits;
    this.limitsCache.delete(userId);
    this.limitsCache.set(userId, { limits, until: now + RECENT_MS });
    if (this.limitsCache.size > RECENT_MAX) this.limitsCache.delete(this.limitsCache.keys().next().value!);
    return limits;
  }

  /** An admin changed or removed the user: read their limits again next time. */
  forgetUser(userId: string): void {
    this.generation += 1;
    if (userId === "*") {
      this.limitsCache.clear();
      this.recent.clear();
      return;
    }
    this.limitsCache.delete(userId);
    this.recent.delete(userId);
  }

  /** Today's usage (what `GET /users/me` shows). */
  async usedToday(userId: string): Promise<QuotaUsageToday> {
    return this.repo.usage(userId, utcDay(this.now()));
  }

  /**
   * Today's usage as a batch of `runs` runs starts from: what `admits` trusts (read at most a
   * second ago, plus what this instance counted since) while that is far from the limits, else
   * the stored usage. Far means under half of each limit with the batch counted: what `admits`
   * trusts can be off by the runs that committed during its read, or on other instances within
   * its second, never by half a day's quota, so a batch that could reach a limit is still checked
   * against the stored usage. Saves a read before every batch of a steady stream.
   */
  async usedBeforeRuns(userId: string, runs: number, limits: DailyLimits): Promise<QuotaUsageToday> {
    const now = this.now();
    const hit = this.recent.get(userId);
    if (
      hit &&
      hit.until > now &&
      hit.day === utcDay(now) &&
      (hit.used.invocations + runs) * 2 < limits.dailyInvocations &&
      hit.used.computeMs * 2 < limits.dailyComputeMs
    )
      return { ...hit.used };
    return this.usedToday(userId);
  }

  /** The server's defaults (a user without limits of their own has these). */
  get dailyLimits(): Config["quotas"] {
    return this.limits;
  }

  /**
   * Whether a request may be taken for the user (the HTTP endpoint's 429): today's usage as read
   * at most a second ago, plus what this instance counted since. Saves a read per request under
   * an endpoint's load; a run itself is checked against the stored usage.
   */
  async admits(userId: string): Promise<QuotaCheck> {
    const now = this.now();
    const day = utcDay(now);
    let hit = this.recent.get(userId);
    if (!hit || hit.until <= now || hit.day !== day) {
      const generation = this.generation;
      hit = { used: await this.usedToday(userId), day, until: now + RECENT_MS };
      if (generation === this.generation) {
        this.recent.delete(userId);
        this.recent.set(userId, hit);
        if (this.recent.size > RECENT_MAX) this.recent.delete(this.recent.keys().next().value!);
      }
    }
    return this.verdict(hit.used, await this.limitsFor(userId));
  }

  /**
   * `admits` without waiting: true when what `admits` trusts (usage and limits read less than a
   * second ago) says yes, else undefined (a read is due, or the answer is no: ask `admits`).
   */
  admitsNow(userId: string): true | undefined {
    const now = this.now();
    const hit = this.recent.get(userId);
    const limits = this.limitsCache.get(userId);
    if (!hit || hit.until <= now || hit.day !== utcDay(now) || !limits || limits.until <= now) return undefined;
    return within(hit.used, limits.limits) ? true : undefined;
  }

  /** Whether the user may run one more invocation today. */
  async check(userId: string): Promise<QuotaCheck> {
    return this.verdict(await this.usedToday(userId), await this.limitsFor(userId));
  }

  /**
   * Whether one more invocation fits after `used` under `limits` (the user's, from `limitsFor`;
   * a batch counts its own runs as it goes).
   */
  verdict(used: QuotaUsageToday, limits: DailyLimits = this.limits): QuotaCheck {
    if (used.invocations >= limits.dailyInvocations) {
      quotaRefusals.inc({ quota: "invocations" });
      return { ok: false, message: `daily invocations quota of ${limits.dailyInvocations} is used up (resets at 00:00 UTC)` };
    }
    if (used.computeMs >= limits.dailyComputeMs) {
      quotaRefusals.inc({ quota: "compute_time" });
      return { ok: false, message: `daily compute time quota of ${limits.dailyComputeMs} ms is used up (resets at 00:00 UTC)` };
    }
    return { ok: true };
  }

  /**
   * The count of runs for a job's completion (committed with its results; then call `counted`).
   * `targetId`: the source or workflow that ran, whose stats count them too.
   */
  countFor(userId: string, computeMs: number, invocations = 1, targetId?: string): NonNullable<JobCompletion["usage"]> {
    return { userId, day: utcDay(this.now()), invocations, computeMs: Math.max(0, Math.round(computeMs)), ...(targetId ? { targetId } : {}) };
  }

  /**
   * Counts work that is no queued job (a prop's options() run for the create-source form): it
   * has no results to commit with, so the count is written on its own.
   */
  async record(userId: string, computeMs: number, invocations = 1): Promise<void> {
    const usage = this.countFor(userId, computeMs, invocations);
    await this.repo.add(usage.userId, usage.day, usage.invocations, usage.computeMs);
    this.counted(usage);
  }

  /** A count committed elsewhere (with a job's completion): what `admits` trusts adds it. */
  counted(usage: NonNullable<JobCompletion["usage"]>): void {
    const hit = this.recent.get(usage.userId);
    if (hit?.day === usage.day) {
      hit.used.invocations += usage.invocations;
      hit.used.computeMs += usage.computeMs;
    }
  }
}
