/**
 * Who follows a workflow's runs (the runs stream, a re-run waiting for its end) learns of each
 * run's start and end here. A run that this instance runs is told at once, after the write that
 * records it; with several instances on one PostgreSQL, a workflow followed here is also looked
 * up every POLL_MS for runs that changed elsewhere (rows whose `updated_ms` moved), so a follower
 * hears of every run within a second wherever it ran. Nothing is polled for a workflow nobody
 * follows.
 */
import type { Db } from "../../store/db.js";
import { runsChangedSince, type RunRow } from "../../store/repos/runs.js";

export type RunListener = (row: RunRow) => void;

/** How often workflows followed here are looked up for runs of other instances. */
export const POLL_MS = 400;

export class RunChanges {
  private readonly listeners = new Map<string, Set<RunListener>>();
  /** Per followed workflow: the newest `updated_ms` seen, and the version of each run told. */
  private readonly seen = new Map<string, { sinceMs: number; told: Map<string, number> }>();
  private timer: NodeJS.Timeout | undefined;
  private polling = false;

  constructor(
    private readonly db: Db,
    /** Other instances write runs too (PostgreSQL): look for their changes. */
    private readonly shared: boolean,
    private readonly log: (msg: string, err?: unknown) => void = () => undefined,
  ) {}

  /** Calls `listener` with each change of the workflow's runs; returns the unsubscribe. */
  follow(workflowId: string, listener: RunListener): () => void {
    let set = this.listeners.get(workflowId);
    if (!set) {
      this.listeners.set(workflowId, (set = new Set()));
      this.seen.set(workflowId, { sinceMs: Date.now() - POLL_MS, told: new Map() });
    }
    set.add(listener);
    if (this.shared && !this.timer) {
      this.timer = setInterval(() => void this.poll(), POLL_MS);
      this.timer.unref();
    }
    return () => {
      const s = this.listeners.get(workflowId);
      if (!s) return;
      s.delete(listener);
      if (s.size > 0) return;
      this.listeners.delete(workflowId);
      this.seen.delete(workflowId);
      if (this.listeners.size === 0 && this.timer) {
        clearInterval(this.timer);
        this.timer = undefined;
      }
    };
  }

  /** Whether anyone here follows the workflow's runs (so a run's row need not be made for them). */
  follows(workflowId: string): boolean {
    return this.listeners.has(workflowId);
  }

  /** A run's row was written (committed) here. */
  changed(row: RunRow): void {
    const set = this.listeners.get(row.workflow_id);
    if (!set) return;
    const seen = this.seen.get(row.workflow_id)!;
    const version = Number(row.updated_ms);
    if ((seen.told.get(row.id) ?? -1) >= version) return;
    seen.told.set(row.id, version);
    // The versions told are only needed for runs that may still change: keep the map small.
    if (seen.told.size > 2000) seen.told.delete(seen.told.keys().next().value!);
    for (const listener of [...set]) {
      try {
        listener(row);
      } catch (err) {
        this.log("a runs listener failed", err);
      }
    }
  }

  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const [workflowId, seen] of this.seen) {
        // A little before the newest seen: two instances' clocks and commits do not line up.
        const rows = await runsChangedSince(this.db, workflowId, seen.sinceMs - 2000);
        for (const row of rows) {
          seen.sinceMs = Math.max(seen.sinceMs, Number(row.updated_ms));
          this.changed(row);
        }
      }
    } catch (err) {
      this.log("looking for runs of other instances failed", err);
    } finally {
      this.polling = false;
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
    this.seen.clear();
  }
}
