/**
 * What keeps `npm install` from being a way to load the server: at most `maxConcurrent` installs
 * run at once server-wide; up to `maxWaiting` more wait their turn for at most `maxWaitMs`, and
 * the rest are refused at once (InstallsBusyError: 503 with Retry-After). And one non-admin user
 * may start at most `perUserHour` installs of packages new to the server per hour
 * (InstallBudgetError: 429 with Retry-After); what is cached costs nothing. Both are counted per
 * instance (several instances on PostgreSQL each have their own).
 */
import type { Requester } from "../../users/requester.js";

/** Too many installs at once: try again in `retryAfterSeconds`. */
export class InstallsBusyError extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super("the server is installing other npm packages; try again shortly");
    this.name = "InstallsBusyError";
  }
}

/** The user started too many installs of new packages in the last hour. */
export class InstallBudgetError extends Error {
  constructor(
    readonly limit: number,
    readonly retryAfterSeconds: number,
  ) {
    super(`at most ${limit} installs of npm packages new to the server per hour per user; try again later`);
    this.name = "InstallBudgetError";
  }
}

export interface InstallGateOptions {
  maxConcurrent: number;
  /** 0: no per-user limit. */
  perUserHour: number;
  maxWaiting?: number;
  maxWaitMs?: number;
  now?: () => number;
}

const HOUR_MS = 3_600_000;

export class InstallGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];
  /** Start times of each user's installs in the last hour. */
  private readonly byUser = new Map<string, number[]>();
  private readonly maxWaiting: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;

  constructor(private readonly o: InstallGateOptions) {
    this.maxWaiting = o.maxWaiting ?? 16;
    this.maxWaitMs = o.maxWaitMs ?? 60_000;
    this.now = o.now ?? Date.now;
  }

  /** Installs in progress and waiting (for the metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  /**
   * Runs `install` once the user's hourly budget and a server-wide slot allow it. The budget is
   * charged when the install starts (a failed install counts: it cost the server as much).
   */
  async run<T>(install: () => Promise<T>, requester?: Requester): Promise<T> {
    this.charge(requester);
    await this.slot();
    try {
      return await install();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  private charge(who: Requester | undefined): void {
    if (!who || who.admin || this.o.perUserHour === 0) return;
    const now = this.now();
    const recent = (this.byUser.get(who.userId) ?? []).filter((t) => t > now - HOUR_MS);
    if (recent.length >= this.o.perUserHour) {
      const retry = Math.max(1, Math.ceil((recent[0]! + HOUR_MS - now) / 1000));
      this.byUser.set(who.userId, recent);
      throw new InstallBudgetError(this.o.perUserHour, retry);
    }
    recent.push(now);
    this.byUser.set(who.userId, recent);
  }

  private async slot(): Promise<void> {
    if (this.running < this.o.maxConcurrent) {
      this.running += 1;
      return;
    }
    if (this.waiting.length >= this.maxWaiting) throw new InstallsBusyError(30);
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        clearTimeout(timer);
        this.running += 1;
        resolve();
      };
      const timer = setTimeout(() => {
        const i = this.waiting.indexOf(wake);
        if (i >= 0) this.waiting.splice(i, 1);
        reject(new InstallsBusyError(30));
      }, this.maxWaitMs);
      timer.unref();
      this.waiting.push(wake);
    });
  }
}
