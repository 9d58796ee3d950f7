/**
 * Tables owned by the events concern (events, subscriptions, delivery outbox, workflows).
 * Created by migrations/0002_events.ts. Times are integers, booleans 0/1, JSON is TEXT.
 */

/** One retained event. Its order within an emitter is `sort_key` (fixed-width `<ms>-<seq>`). */
export interface EventsTable {
  emitter_id: string;
  channel: string;
  /** eventSortKey(id): string order equals event order. */
  sort_key: string;
  /** The public id `<ms>-<seq>`. */
  id: string;
  owner_id: string;
  indexed_at_ms: number;
  emit_id: string;
  /** The event as JSON text. */
  event_json: string;
  /** Byte length of event_json (UTF-8), for truncation without re-encoding. */
  size: number;
  /** `$emit` options as JSON text: {id?, summary?, ts?}. */
  meta_json: string;
  /** How many subscription hops led to this event (cycle bound). */
  hops: number;
}

/** The last id handed out per emitter, so ids keep increasing across restarts. */
export interface EventEmittersTable {
  emitter_id: string;
  last_ms: number;
  last_seq: number;
}

/** Retained events per emitter and channel (retention and total_count without a scan). */
export interface EventChannelsTable {
  emitter_id: string;
  channel: string;
  count: number;
}

/** Counts per emitter and minute (event inspection stats; migrations/0006). */
export interface EventStatsTable {
  emitter_id: string;
  /** Start of the minute, ms. */
  minute_ms: number;
  events: number;
  errors: number;
  logs: number;
  invocations: number;
  compute_ms: number;
}

export interface SubscriptionsTable {
  id: string;
  owner_id: string;
  /** A workflow or source id, or the glob `p_*` / `dc_*` (the owner's own emitters only). */
  emitter_id: string;
  listener_id: string;
  channel: string;
  created_at: number;
}

export interface AutoSubscriptionsTable {
  id: string;
  owner_id: string;
  listener_id: string;
  channel: string;
  created_at: number;
}

/**
 * The delivery outbox: one row per appended event that a subscription may route, written in
 * the append transaction, removed once its jobs are durably queued.
 */
export interface DeliveryOutboxTable {
  emitter_id: string;
  sort_key: string;
  event_id: string;
  channel: string;
  owner_id: string;
  hops: number;
  /** The event as JSON text: kept here so retention cannot drop it before delivery. */
  event_json: string;
  created_at_ms: number;
}

export interface WorkflowsTable {
  id: string;
  owner_id: string;
  name: string;
  deployment_id: string;
  /** JSON text: [{id, name, code}]. */
  steps_json: string;
  active: number;
  /** "immediate" | "workflow": how its endpoint answers (0011). */
  http_response?: string;
  /** JSON {retry?, concurrency?, throttle?}: execution controls (0012); NULL: the defaults. */
  controls_json?: string | null;
  /** Orders lists newest first (strictly increasing within one process). */
  created_ms: number;
  created_at: number;
  updated_at: number;
  /** Its current version (0014): 1 on create, +1 on each change of its content. */
  version?: number;
  /** JSON {schedules?, http_auth?} as its content has them (0015); NULL: neither. */
  triggers_json?: string | null;
}

/** One schedule of an active workflow with its next tick (0015). */
export interface WorkflowSchedulesTable {
  workflow_id: string;
  /** Its index in the workflow's `schedules`. */
  idx: number;
  owner_id: string;
  /** The schedule as the workflow has it: {cron, timezone} | {interval_seconds}. */
  spec_json: string;
  next_run_at: number;
}

/** A workflow's version (0014): its content as deployed, immutable while the workflow exists. */
export interface WorkflowVersionsTable {
  /** `wv_<workflow id's suffix><version, 10 digits>`: sorts as the versions do (lists' cursors). */
  id: string;
  workflow_id: string;
  version: number;
  owner_id: string;
  created_ms: number;
  /** "create" | "update" | "draft" | "restore" | "push". */
  origin: string;
  message: string | null;
  restored_from: number | null;
  /** JSON of the versioned fields (workflows/versions/content.ts). */
  content_json: string;
}

/** A workflow's draft (0014): at most one, the versioned fields as it would deploy them. */
export interface WorkflowDraftsTable {
  workflow_id: string;
  owner_id: string;
  /** The version the draft was started from. */
  base_version: number;
  updated_ms: number;
  content_json: string;
}

/** A workflow's run (0011, decisions.md "Workflow runs"); JSON columns hold the Run's parts. */
export interface RunsTable {
  /** `r_` and its job's id without dashes: a job's run has one row, however often it starts. */
  id: string;
  workflow_id: string;
  owner_id: string;
  status: string;
  trigger_json: string;
  attempt: number;
  created_ms: number;
  started_ms: number | null;
  ended_ms: number | null;
  updated_ms: number;
  event_json: string;
  steps_json: string;
  response_json: string | null;
  error_json: string | null;
  exit_reason: string | null;
  /** The job a waiting run (retrying, delayed, queued) resumes with: what a cancel deletes (0012). */
  pending_job_id?: string | null;
  /** When a waiting run is due (its next attempt, or the end of its delay). */
  next_at_ms?: number | null;
  /** JSON RunAttempt[]: its attempts so far. */
  attempts_json?: string | null;
  /** The workflow's version it runs (0014); NULL for runs made before versions. */
  version?: number | null;
}

/** Start times a workflow's throttle scheduled (0012), pruned once older than its period. */
export interface WorkflowStartsTable {
  workflow_id: string;
  start_ms: number;
}

export interface EventTables {
  events: EventsTable;
  event_emitters: EventEmittersTable;
  event_channels: EventChannelsTable;
  event_stats: EventStatsTable;
  subscriptions: SubscriptionsTable;
  auto_subscriptions: AutoSubscriptionsTable;
  delivery_outbox: DeliveryOutboxTable;
  workflows: WorkflowsTable;
  runs: RunsTable;
  workflow_starts: WorkflowStartsTable;
  workflow_versions: WorkflowVersionsTable;
  /** Test runs (0014): the columns of `runs`. */
  test_runs: RunsTable;
  workflow_drafts: WorkflowDraftsTable;
  workflow_schedules: WorkflowSchedulesTable;
}
