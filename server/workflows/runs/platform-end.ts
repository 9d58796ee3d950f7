/**
 * A run the platform could not carry to its end (decisions.md "Runs under faults": every run
 * ends): its results refused by the database, or the platform failing its last attempt (a worker
 * that kept dying, a database step that kept failing, after which the queue gives the job up).
 * It ends `error` with a platform code and its one `$errors` event, committed with its job's
 * delete as any run's end, so no run stays `queued` or `running` with nothing left to move it.
 */
import type { RunStep } from "../../../shared/resources/index.js";
import { scrubServerPaths } from "../../runtime/stacks.js";
import type { RunRow } from "../../store/repos/runs.js";
import { storableJson } from "../../store/storable-text.js";
import type { RunHeader } from "./record.js";

/** The `error.code` of a run the platform ended. */
export const PLATFORM_END_CODES = {
  /** The database refused what the run produced (and would refuse it again). */
  refused: "STORAGE_ERROR",
  /** The platform failed the run on each of its attempts. */
  failed: "PLATFORM_ERROR",
} as const;
export type PlatformEndCode = (typeof PLATFORM_END_CODES)[keyof typeof PLATFORM_END_CODES];

/**
 * Whether the database refused a write for what it holds, not for a passing reason: committing
 * the same results again would fail the same way. PostgreSQL's data exceptions (class 22: an
 * invalid byte sequence, a value out of range), integrity violations (23) and program limits
 * (54: a row or an index entry too large); SQLite's too-big, mismatch and constraint errors; and
 * an error of the values themselves while the statement was built (a TypeError, a RangeError).
 * A lost connection, a deadlock or a full disk is passing: the queue retries the job.
 */
export function isRefusal(err: unknown): boolean {
  if (err instanceof TypeError || err instanceof RangeError) return true;
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== "string") return false;
  if (/^(22|23|54)[0-9A-Z]{3}$/.test(code)) return true;
  return /^SQLITE_(TOOBIG|MISMATCH|CONSTRAINT|RANGE)/.test(code);
}

/** What a user is told of the platform's failure: its kind, and the database's words without a path of the server's. */
export function platformEndMessage(code: PlatformEndCode, cause: unknown): string {
  const why = scrubServerPaths(cause instanceof Error ? cause.message : String(cause)).slice(0, 500);
  return code === PLATFORM_END_CODES.refused
    ? `the run's results could not be stored (${why}); nothing it emitted was kept`
    : `the platform failed this run on every attempt (${why})`;
}

/** The steps that never ran are skipped; those that ended keep their records. */
export function stepsEnded(steps: RunStep[]): RunStep[] {
  return steps.map((s) => (s.status === "pending" || s.status === "running" ? { ...s, status: "skipped" } : s));
}

/** The run's row as the platform ended it. */
export function platformEndRow(
  h: RunHeader,
  steps: RunStep[],
  code: PlatformEndCode,
  message: string,
  stored: RunRow | undefined,
  now: number,
): RunRow {
  return {
    id: h.id,
    workflow_id: h.workflowId,
    owner_id: h.ownerId,
    status: "error",
    trigger_json: JSON.stringify(h.trigger),
    attempt: h.attempt,
    created_ms: h.createdMs,
    started_ms: stored?.started_ms ?? now,
    ended_ms: now,
    updated_ms: Math.max(now, Number(stored?.updated_ms ?? 0) + 1),
    event_json: storableJson(h.eventJson),
    steps_json: storableJson(JSON.stringify(steps)),
    response_json: stored?.response_json ?? null,
    error_json: storableJson(JSON.stringify({ code, message, cellId: "", step: null })),
    exit_reason: null,
    pending_job_id: null,
    next_at_ms: null,
    attempts_json: stored?.attempts_json ?? null,
    version: h.version ?? null,
  };
}
