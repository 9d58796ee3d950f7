/**
 * Who follows a workflow's runs (the runs stream, a re-run waiting for its end) learns of each
 * run's start and end here. A run that this instance runs is told at once, after the write that
 * records it; with several instances on one PostgreSQL, a workflow followed here is also looked
 * up every POLL_MS for runs that changed elsewhere (rows whose `updated_ms` moved), so a follower
 * hears of every run within a second wherever it ran, at any rate: each look reads the versions
 * of every run changed in its window, a page at a time, and the rows of those not told yet (a
 * run changed twice between two looks is told once, at its latest). Nothing is polled for a
 * workflow nobody follows.
 */
import type { Db } from "../../store/db.js";
import type { RunRow } from "../../store/repos/runs.js";
import { runsOfIds, runVersionsSince, type RunVersion } from "../../store/repos/run-versions.js";

export type RunListener = (row: RunRow) => void;

/** How often workflows followed here are looked up for runs of other instances. */
export const POLL_MS = 400;
/**
 * How far before the newest version seen each look starts: two instances' clocks and commits do
 * not line up, so a run may commit a version older than one already seen.
 */
const OVERLAP_MS = 2000;
/** Versions read per page, and rows per read. */
const VERSION_PAGE = 500;
const ROW_PAGE = 50;
/** Versions told kept per workflow when nothing prunes them (one instance: no looks). */
const MAX_TOLD = 2000;

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

  /** How many follow the workflow's runs here (a stream each, a re-run waiting for its end). */
  followers(workflowId: string): number {
    return this.listeners.get(workflowId)?.size ?? 0;
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
    // Alone on its database, the versions told only order a run's start and end here: keep a
    // few. With others, each look prunes those it can no longer see again (`look`).
    if (!this.shared && seen.told.size > MAX_TOLD) seen.told.delete(seen.told.keys().next().value!);
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
      for (const [workflowId, seen] of this.seen) await this.look(workflowId, seen);
    } catch (err) {
      this.log("looking for runs of other instances failed", err);
    } finally {
      this.polling = false;
    }
  }

  /** Tells the followers of one workflow of every run changed in its window and not told yet. */
  private async look(workflowId: string, seen: { sinceMs: number; told: Map<string, number> }): Promise<void> {
    const from = seen.sinceMs - OVERLAP_MS;
    let newest = seen.sinceMs;
    let after: RunVersion | undefined;
    for (;;) {
      const versions = await runVersionsSince(this.db, workflowId, from, after, VERSION_PAGE);
      const fresh = versions.filter((v) => (seen.told.get(v.id) ?? -1) < v.updated_ms).map((v) => v.id);
      for (let i = 0; i < fresh.length; i += ROW_PAGE) {
        const rows = await runsOfIds(this.db, workflowId, fresh.slice(i, i + ROW_PAGE));
        rows.sort((a, b) => Number(a.updated_ms) - Number(b.updated_ms));
        for (const row of rows) this.changed(row);
        // Unfollowed meanwhile: nothing more to tell.
        if (this.seen.get(workflowId) !== seen) return;
      }
      for (const v of versions) newest = Math.max(newest, v.updated_ms);
      if (versions.length < VERSION_PAGE) break;
      after = versions[versions.length - 1];
    }
    seen.sinceMs = newest;
    // Versions before the next look's window are never read again: no need to remember them.
    const forget = newest - OVERLAP_MS;
    for (const [id, version] of seen.told) if (version <= forget) seen.told.delete(id);
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.listeners.clear();
    this.seen.clear();
  }
}
