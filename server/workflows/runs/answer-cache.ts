/**
 * The JSON bytes of ended runs, most recently read first, within a byte budget. An ended run
 * never changes again (a re-run is a new run; retention and deleting its workflow remove it), and
 * the ones read are read again and again: the dashboard's inspector refetches the run it shows on
 * every change of the workflow's runs, an agent polls `get_run`. A run at the limits is megabytes
 * (50 steps × 64 KB of logs): reading it from the database each time allocates that much, and the
 * garbage collector's work for it costs more than the read (profiled: 2.9 ms of GC per 3.5 MB
 * answer). The cache never decides who may read: every read checks the run's row first
 * (RunService.detail) and uses an entry only if it was made from the same version of the row.
 */
export class RunAnswerCache {
  private readonly entries = new Map<string, { version: number; bytes: Buffer }>();
  private bytes = 0;

  constructor(
    private readonly budgetBytes: number,
    /** Bigger answers are not kept: one of them would push out everything else. */
    private readonly maxEntryBytes = budgetBytes / 4,
  ) {}

  get(runId: string, version: number): Buffer | undefined {
    const entry = this.entries.get(runId);
    if (!entry) return undefined;
    this.entries.delete(runId);
    if (entry.version !== version) {
      this.bytes -= entry.bytes.length;
      return undefined;
    }
    this.entries.set(runId, entry); // now the most recent
    return entry.bytes;
  }

  set(runId: string, version: number, bytes: Buffer): void {
    this.delete(runId);
    if (bytes.length > this.maxEntryBytes) return;
    this.entries.set(runId, { version, bytes });
    this.bytes += bytes.length;
    for (const [id, entry] of this.entries) {
      if (this.bytes <= this.budgetBytes) break;
      this.entries.delete(id);
      this.bytes -= entry.bytes.length;
    }
  }

  delete(runId: string): void {
    const entry = this.entries.get(runId);
    if (!entry) return;
    this.entries.delete(runId);
    this.bytes -= entry.bytes.length;
  }

  get size(): { entries: number; bytes: number } {
    return { entries: this.entries.size, bytes: this.bytes };
  }
}
