/**
 * When a run's commit also cuts its workflow's runs to the newest HEADWATER_RUN_RETENTION
 * (store/repos/runs.ts `pruneRunsIn`). Finding the edge reads `keep` index entries, so a busy
 * workflow does it every `keep / 50` of its runs here, not with each: the list holds at most 2 %
 * more than `keep` for a moment. A small retention is applied with every run.
 */
export class RetentionTurns {
  private readonly counts = new Map<string, number>();

  constructor(private readonly keep: number) {}

  /** The retention to apply with this run of the workflow, or undefined for none this time. */
  next(workflowId: string): number | undefined {
    const every = Math.max(1, Math.floor(this.keep / 50));
    const n = ((this.counts.get(workflowId) ?? 0) + 1) % every;
    this.counts.delete(workflowId);
    this.counts.set(workflowId, n);
    // Insertion order is recency: forgetting the oldest only prunes that workflow a little early.
    if (this.counts.size > 10_000) this.counts.delete(this.counts.keys().next().value!);
    return n === 0 ? this.keep : undefined;
  }
}
