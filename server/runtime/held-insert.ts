/**
 * The insert of a request's job handed to its target's waiting runner (queue.ts `handOver`),
 * put off so that the run's results can take it over: the transaction that stores what the run
 * produced is then the job's whole stored life (it is neither inserted nor deleted), and the
 * request is acknowledged once that transaction has committed, strictly after the event and
 * what it produced are durable. One commit per request instead of two, and no commit of the
 * server's own while the worker runs: measured as the largest wait left on a steady endpoint's
 * path (docs/benchmarks.md, 26 Nov).
 *
 * The job is inserted alone, as any other (and the request acknowledged after that commit), when:
 * - its run's results are not ready to commit within HOLD_MS (a slow run must not hold the
 *   request's acknowledgement for long);
 * - the batch ended without taking it over (an inactive source, a handler's error, a platform
 *   failure: the queue settles every hold before it goes on, so a retry finds the row);
 * - the transaction that took it over failed (nothing of the run is stored: it runs again);
 * - the queue stopped before the runner took it.
 * Exactly once holds as for any job: a taken-over job exists in no table, so nothing can run it
 * again; until that commit the request is not acknowledged, and a crash leaves nothing of it.
 */

/** How long a run's results may take to be ready before the job is inserted alone. */
export const HOLD_MS = 20;

export interface Hold {
  /**
   * The run's commit takes the insert over: true when nothing was inserted yet (that
   * transaction then neither inserts nor deletes the job); false when the insert was made or is
   * under way (the job is then deleted with the results, after `durable`, as usual).
   */
  takeOver(): boolean;
  /** The transaction that took the insert over committed: the request is acknowledged. */
  committed(): void;
  /** It failed: the job is inserted alone, to run again. Resolves once that is settled. */
  failed(): Promise<void>;
}

export class HeldInsert implements Hold {
  /** Resolves with the job's id once it is durable (inserted, or its results committed). */
  readonly durable: Promise<string[]>;
  private state: "held" | "taken" | "inserting" = "held";
  private done = false;
  private resolve!: (ids: string[]) => void;
  private reject!: (err: unknown) => void;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly id: string,
    private readonly insertAlone: () => Promise<string[]>,
  ) {
    this.durable = new Promise<string[]>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    // The request awaits `durable` and answers a failure; a handler may await it too.
    this.durable.catch(() => undefined);
    this.timer = setTimeout(() => void this.insert(), HOLD_MS);
  }

  takeOver(): boolean {
    if (this.state !== "held") return false;
    this.state = "taken";
    clearTimeout(this.timer);
    return true;
  }

  committed(): void {
    if (this.state !== "taken" || this.done) return;
    this.done = true;
    this.resolve([this.id]);
  }

  failed(): Promise<void> {
    if (this.state === "taken" && !this.done) this.state = "held";
    return this.insert();
  }

  /**
   * Inserts the job alone unless something took it over; resolves (never rejects) once the
   * job's fate is settled. A hold taken over by a batch that has ended without saying how its
   * commit went is treated as failed: the job runs again rather than being lost.
   */
  settle(): Promise<void> {
    return this.state === "taken" && !this.done ? this.failed() : this.insert();
  }

  private insert(): Promise<void> {
    if (this.state === "held") {
      this.state = "inserting";
      clearTimeout(this.timer);
      this.insertAlone().then(
        (ids) => {
          this.done = true;
          this.resolve(ids);
        },
        (err: unknown) => {
          this.done = true;
          this.reject(err);
        },
      );
    }
    return this.durable.then(
      () => undefined,
      () => undefined,
    );
  }
}
