/**
 * Tables owned by the runtime concern; created by 0003_runtime.
 * Conventions (see db.ts): times are integers (ms unless named otherwise), JSON is TEXT.
 */

/** `this.db` of a source: one row per key, the value as JSON text. */
export interface SourceStateTable {
  source_id: string;
  key: string;
  value: string;
}

/** Dedupe memory of a source: JSON `{unique?: id[], greatest?: id, last?: id}`. */
export interface SourceDedupeTable {
  source_id: string;
  state: string;
}

/**
 * Armed timers. `next_run_at` is claimed with a compare-and-set UPDATE, so when several
 * servers share one database exactly one of them fires each tick.
 */
export interface TimersTable {
  source_id: string;
  owner_id: string;
  interval_seconds: number | null;
  cron: string | null;
  next_run_at: number;
  updated_ms: number;
}

/**
 * The durable invocation queue. `id` sorts in enqueue order; jobs of one target run one at a
 * time, oldest first. A job is deleted when it has run (or given up).
 */
export interface JobsTable {
  id: string;
  target_id: string;
  owner_id: string;
  trigger: string;
  /** JSON `{event, origin?}`. */
  payload: string;
  attempts: number;
  /** Not before this time (backoff after a platform failure). */
  run_after: number;
  created_ms: number;
}

/**
 * One row per target that has had jobs: the lease that makes "one job at a time per target"
 * hold across server instances. Free when `lease_until` has passed.
 */
export interface JobTargetsTable {
  target_id: string;
  lease_owner: string | null;
  lease_until: number;
}

/** Daily usage per user; `day` is the UTC date `YYYY-MM-DD`. Counted with `SET x = x + ?`. */
export interface QuotaUsageTable {
  user_id: string;
  day: string;
  invocations: number;
  compute_ms: number;
}

export interface RuntimeTables {
  source_state: SourceStateTable;
  source_dedupe: SourceDedupeTable;
  timers: TimersTable;
  jobs: JobsTable;
  job_targets: JobTargetsTable;
  quota_usage: QuotaUsageTable;
}
