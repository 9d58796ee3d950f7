/**
 * The loop behind sources' timers (timer.ts) and workflows' schedules (workflows/schedules/
 * ticker.ts): fire what is due, then sleep until the next due row, at most `pollMs` (rows other
 * servers wrote are found by then). One pass at a time: a poke while a pass runs is folded into
 * it, since the pass reads the rows again at its end.
 */
export interface DueLoopOptions {
  /** Claims and fires every due row. */
  fire: () => Promise<void>;
  /** When the next row is due (ms since the epoch), or undefined when none is. */
  nextDue: () => Promise<number | undefined>;
  /** Called with what a pass threw; the loop goes on. */
  onError: (err: unknown) => void;
  pollMs?: number;
  /** The shortest sleep between passes, so that a row due now cannot spin the loop. */
  minWaitMs: number;
  now?: () => number;
}

export class DueLoop {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private halted = true;

  constructor(private readonly options: DueLoopOptions) {}

  /** Whether stop() was called (a long pass checks it between batches). */
  get stopped(): boolean {
    return this.halted;
  }

  start(): void {
    this.halted = false;
    this.poke();
  }

  async stop(): Promise<void> {
    this.halted = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Looks for due rows now. */
  poke(): void {
    if (this.halted || this.running) return;
    if (this.timer) clearTimeout(this.timer);
    const { fire, nextDue, onError, minWaitMs } = this.options;
    const pollMs = this.options.pollMs ?? 1000;
    this.running = fire()
      .catch(onError)
      .then(async () => {
        const next = await nextDue().catch(() => undefined);
        const now = this.options.now?.() ?? Date.now();
        const wait = next === undefined ? pollMs : Math.max(minWaitMs, Math.min(pollMs, next - now));
        this.running = undefined;
        if (this.halted) return;
        this.timer = setTimeout(() => this.poke(), wait);
        this.timer.unref();
      });
  }
}
