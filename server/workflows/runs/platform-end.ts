/**
 * A run the platform could not carry to its end (decisions.md "Runs under faults": every run
 * ends): its results refused by the database, or the platform failing its last attempt (a worker
 * that kept dying, a database step that kept failing, after which the queue gives the job up).
 * It ends `error` with a platform code and its one `$errors` event, committed with its job's
 * delete as any run's end, so no run stays `queued` or `running` with nothing left to move it.
 */
import { randomUUID } from "node:crypto";
import type { RunStep, WorkflowStep } from "../../../shared/resources/index.js";
import { errorEvent } from "../../delivery/error-event.js";
import { PlatformFailure } from "../../runtime/platform-failure.js";
import { scrubServerPaths } from "../../runtime/stacks.js";
import type { EmitInput, EventStore } from "../../services.js";
import type { Db } from "../../store/db.js";
import { JobAlreadyCompletedError } from "../../store/repos/completions.js";
import { findRun, type RunRow } from "../../store/repos/runs.js";
import type { WorkflowRow } from "../../store/repos/workflows.js";
import { storableJson } from "../../store/storable-text.js";
import { workflowOfTarget } from "../targets.js";
import type { RunChanges } from "./changes.js";
import { planSteps } from "./continue.js";
import { plannedSteps, type RunHeader } from "./record.js";
import type { CallerAnswers } from "./respond.js";
import { headerOf, sourceType, type JobOfRun } from "./trigger.js";

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

/** The $errors event of a run that failed, as the workflow's listeners get it. */
export function errorsInput(
  job: JobOfRun,
  wf: WorkflowRow,
  contextId: string,
  error: { code: string; message: string; cellId: string; stack: string },
  attempts: number,
): EmitInput {
  return {
    emitterId: wf.id,
    ownerId: wf.owner_id,
    channel: "$errors",
    hops: job.origin?.hops ?? 0,
    event: errorEvent({
      listenerId: wf.id,
      deploymentId: wf.deployment_id,
      ownerId: wf.owner_id,
      originalEvent: job.event,
      contextId,
      sourceType: sourceType(job),
      ...error,
      attempts,
      now: new Date(),
    }),
  };
}

export interface PlatformEndDeps {
  db: Db;
  events: EventStore;
  read: (id: string) => Promise<{ row: WorkflowRow; steps: WorkflowStep[] } | undefined>;
  changes?: Pick<RunChanges, "changed">;
  answers?: CallerAnswers;
  log: (msg: string, err?: unknown) => void;
}

/**
 * Ends a job's run `error` with a platform code and its `$errors` event, in the commit that
 * deletes its job; a caller that waits is answered 502. Throws PlatformFailure when even that
 * cannot be stored.
 */
export function platformEnder(d: PlatformEndDeps) {
  return async (job: JobOfRun, code: PlatformEndCode, cause: unknown): Promise<{ committed: boolean }> => {
    const caller = job.respondTo;
    try {
      const runnable = await d.read(workflowOfTarget(job.targetId));
      const wf = runnable?.row;
      if (!wf || wf.owner_id !== job.ownerId || !job.id) return { committed: false };
      const resumed = job.resume ? await findRun(d.db, job.resume.runId) : undefined;
      const header = headerOf(job, wf, resumed);
      const stored = resumed ?? (await findRun(d.db, header.id));
      const steps = stepsEnded(
        stored ? (JSON.parse(stored.steps_json) as RunStep[]) : plannedSteps(planSteps(runnable.steps, job, resumed)),
      );
      const message = platformEndMessage(code, cause);
      const row = platformEndRow(header, steps, code, message, stored, Date.now());
      const contextId = job.origin?.eventId ?? randomUUID();
      const errors = errorsInput(job, wf, contextId, { code, message, cellId: "", stack: "" }, header.attempt);
      await d.events.commit([errors], { jobIds: [job.id], run: { row } });
      d.log(`run ${header.id} of ${wf.id} ended with ${code}`, cause);
      d.changes?.changed(row);
      if (caller && d.answers) d.answers.respond(caller, d.answers.unanswered(header.id, "error"));
      return { committed: true };
    } catch (err) {
      // Its job is gone: another instance ended the run, or its workflow was deleted.
      if (err instanceof JobAlreadyCompletedError) return { committed: true };
      throw new PlatformFailure(`ending a run the platform failed: ${err instanceof Error ? err.message : String(err)}`);
    } finally {
      d.answers?.finish(caller);
    }
  };
}
