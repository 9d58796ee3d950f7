/**
 * The `running` rows of runs that go on past a moment (runner.ts START_ROW_MS), with one timer
 * for all of them: a timer set and cleared for each run was on the path of every run, and most
 * runs end before it. Runs are added as they start, so the map's order is their due order.
 */
export class StartRows {
  private readonly pending = new Map<object, { dueMs: number; write: () => void }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly afterMs: number) {}

  /** `write` runs once the run has gone on `afterMs`, unless `cancel(key)` came first. */
  add(write: () => void): object {
    const key = {};
    this.pending.set(key, { dueMs: Date.now() + this.afterMs, write });
    if (!this.timer) this.arm(this.afterMs);
    return key;
  }

  cancel(key: object): void {
    this.pending.delete(key);
  }

  private arm(ms: number): void {
    // Unref'd: a run still going holds the process anyway.
    this.timer = setTimeout(() => this.fire(), ms);
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    const now = Date.now();
    for (const [key, p] of this.pending) {
      if (p.dueMs > now) return this.arm(p.dueMs - now);
      this.pending.delete(key);
      p.write();
    }
  }
}
