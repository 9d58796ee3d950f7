/**
 * `$.interface.timer`: each armed source has a row with its next_run_at. A loop looks for due
 * rows and claims each tick with a compare-and-set (store/repos/timers.ts), enqueueing the
 * tick's job in the same transaction; so with several servers on one database exactly one
 * fires each tick. Cron expressions are evaluated in UTC (cron-parser).
 */
import { CronExpressionParser } from "cron-parser";
import type { TimerRow, TimersRepo } from "../../store/repos/timers.js";
import type { TimerSetting } from "../catalog.js";
import { DueLoop } from "./due-loop.js";

export class InvalidTimerError extends Error {}

/** Throws InvalidTimerError for a cron expression cron-parser does not accept. */
export function validateTimer(setting: TimerSetting): void {
  if (setting.cron) {
    try {
      CronExpressionParser.parse(setting.cron, { tz: "UTC" });
    } catch (e) {
      throw new InvalidTimerError(`invalid cron expression "${setting.cron}": ${(e as Error).message}`);
    }
  } else if (!setting.intervalSeconds || setting.intervalSeconds < 1) {
    throw new InvalidTimerError("a timer needs intervalSeconds of at least 1, or cron");
  }
}

/** The first run strictly after `afterMs`. */
export function nextRunAt(setting: TimerSetting, afterMs: number): number {
  if (setting.cron) {
    return CronExpressionParser.parse(setting.cron, { currentDate: new Date(afterMs), tz: "UTC" })
      .next()
      .getTime();
  }
  return afterMs + setting.intervalSeconds! * 1000;
}

/** The timer event of a tick, as the hosted service sends it. */
export function timerEvent(
  row: Pick<TimerRow, "next_run_at" | "interval_seconds" | "cron">,
): Record<string, unknown> {
  const timestamp = Math.floor(row.next_run_at / 1000);
  return row.cron ? { timestamp, cron: row.cron } : { timestamp, interval_seconds: row.interval_seconds };
}

export interface TimerSchedulerOptions {
  pollMs?: number;
  /** Called after ticks were enqueued (wakes the queue). */
  onFired: () => void;
  log?: (msg: string, err?: unknown) => void;
}

export class TimerScheduler {
  private readonly loop: DueLoop;

  constructor(
    private readonly repo: TimersRepo,
    private readonly options: TimerSchedulerOptions,
  ) {
    this.loop = new DueLoop({
      fire: () => this.fireDue(),
      nextDue: () => this.repo.nextDue(),
      onError: (err) => this.options.log?.("timers: tick failed", err),
      pollMs: options.pollMs,
      minWaitMs: 10,
    });
  }

  async arm(sourceId: string, ownerId: string, setting: TimerSetting): Promise<void> {
    validateTimer(setting);
    await this.repo.arm({
      source_id: sourceId,
      owner_id: ownerId,
      interval_seconds: setting.cron ? null : setting.intervalSeconds,
      cron: setting.cron,
      next_run_at: nextRunAt(setting, Date.now()),
    });
    this.poke();
  }

  async disarm(sourceId: string): Promise<void> {
    await this.repo.disarm(sourceId);
  }

  start(): void {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Looks for due ticks now. */
  poke(): void {
    this.loop.poke();
  }

  private async fireDue(): Promise<void> {
    const now = Date.now();
    let fired = false;
    for (const row of await this.repo.due(now, 200)) {
      const setting: TimerSetting = { intervalSeconds: row.interval_seconds, cron: row.cron };
      let next: number;
      if (setting.cron) {
        next = nextRunAt(setting, Math.max(now, row.next_run_at));
      } else {
        // Skip ticks missed while no server ran, keeping the phase.
        const step = setting.intervalSeconds! * 1000;
        next = row.next_run_at + step * Math.max(1, Math.ceil((now - row.next_run_at + 1) / step));
      }
      const won = await this.repo.claimTick(row, next, {
        targetId: row.source_id,
        ownerId: row.owner_id,
        trigger: "timer",
        payload: JSON.stringify({ event: timerEvent(row) }),
      });
      fired ||= won;
    }
    if (fired) this.options.onFired();
  }
}
