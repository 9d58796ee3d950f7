/**
 * A run's record (decisions.md "Workflow runs"), from what the sandbox reported of its steps:
 * each step's status, duration, values, console lines and error, cut at the limits (RUN_LIMITS:
 * the rest goes, `truncated` says so, the run is not failed for it), and its stacks kept to the
 * component's own frames. Pure functions: the runner stores what they make.
 */
import type {
  Run,
  RunAttempt,
  RunError,
  RunLogLine,
  RunResponse,
  RunStatus,
  RunStep,
  RunTrigger,
} from "../../../shared/resources/index.js";
import { RUN_LIMITS } from "../../../shared/resources/index.js";
import { utf8Prefix } from "../../events/summaries.js";
import { componentStack, scrubServerPaths } from "../../runtime/stacks.js";
import type { ReusedResults, RunWorkflowStepsResult, StepLogLine } from "../../runtime/workflow-steps.js";
import type { WorkflowStep } from "../../../shared/resources/index.js";
import type { RunHeadRow, RunRow, RunRowBytes } from "../../store/repos/runs.js";
import { storableJson, storableText } from "../../store/storable-text.js";

/** What a run is told of the step list: the workflow's steps, and which of them are reused. */
export interface PlannedStep extends WorkflowStep {
  reused?: ReusedResults | undefined;
  /** The step's record from an earlier part of the same run (it goes on after a retry or a delay): shown as it was. */
  kept?: RunStep | undefined;
}

const LEVELS = new Set<string>(["log", "info", "warn", "error"]);

/** Steps as a run shows them before they ran: reused ones with their results, the rest pending. */
export function plannedSteps(steps: PlannedStep[]): RunStep[] {
  return steps.map(
    (s): RunStep =>
      s.kept ?? {
        id: s.id,
        name: s.name,
        status: s.reused ? "reused" : "pending",
        started_at_ms: null,
        duration_ms: null,
        return_value: s.reused ? (s.reused.return_value ?? null) : null,
        exports: s.reused?.exports ?? {},
        logs: [],
        error: null,
      },
  );
}

/** Cuts a value to what is left of the run's budget: `{truncated, size, preview}` past it. */
class ValueBudget {
  constructor(public left: number = RUN_LIMITS.valueBytes) {}
  cut(value: unknown): { value: unknown; truncated: boolean } {
    if (value === undefined) return { value: null, truncated: false };
    const text = JSON.stringify(value) ?? "null";
    const size = Buffer.byteLength(text);
    if (size <= this.left) {
      this.left -= size;
      return { value, truncated: false };
    }
    const preview = utf8Prefix(text, Math.min(1024, Math.max(0, this.left)));
    this.left = Math.max(0, this.left - Buffer.byteLength(preview));
    return { value: { truncated: true, size, preview }, truncated: true };
  }
}

/** A step's console lines, cut at RUN_LIMITS (lines and bytes). */
function stepLogs(lines: StepLogLine[]): { logs: RunLogLine[]; truncated: boolean } {
  const logs: RunLogLine[] = [];
  let bytes = 0;
  for (const raw of lines) {
    if (logs.length >= RUN_LIMITS.logLines) return { logs, truncated: true };
    // A logged error prints its stack: the component's frames only, as everywhere (a path has a "/").
    const line = raw.message.includes("/") ? { ...raw, message: componentStack(raw.message) } : raw;
    const size = Buffer.byteLength(line.message);
    if (bytes + size > RUN_LIMITS.logBytes) {
      const rest = RUN_LIMITS.logBytes - bytes;
      if (rest > 0)
        logs.push({ ts_ms: line.ts_ms, level: levelOf(line.level), message: utf8Prefix(line.message, rest) });
      return { logs, truncated: true };
    }
    bytes += size;
    logs.push({ ts_ms: line.ts_ms, level: levelOf(line.level), message: line.message });
  }
  return { logs, truncated: false };
}

const levelOf = (level: string): RunLogLine["level"] =>
  LEVELS.has(level) ? (level as RunLogLine["level"]) : "log";

export interface FinishedRun {
  status: RunStatus;
  steps: RunStep[];
  error: RunError | null;
  exitReason: string | null;
  /** Bytes of the run's values budget its steps left: its recorded response's body counts there too. */
  valuesLeft?: number;
  /** Hides the run's credential values in a value it recorded (its response), as in its steps' values. */
  hide?: <T>(value: T) => T;
}

/**
 * A step's record. Made field by field, not spread from a common base: a run's end is on every
 * run's path, and spreading objects of varying shapes showed in profiles as the largest part of it.
 */
function stepRecord(
  s: PlannedStep,
  status: RunStep["status"],
  started: number | null,
  duration: number | null,
  returnValue: unknown,
  exports: unknown,
  logs: { logs: RunLogLine[]; truncated: boolean },
  error: RunStep["error"],
  valuesCut: boolean,
): RunStep {
  const step: RunStep = {
    id: s.id,
    name: s.name,
    status,
    started_at_ms: started,
    duration_ms: duration,
    return_value: returnValue,
    exports: exports as Record<string, unknown>,
    logs: logs.logs,
    error,
  };
  if (logs.truncated || valuesCut) step.truncated = true;
  return step;
}

const NO_LINES: StepLogLine[] = [];

/** The steps and outcome of a run that ended, from the sandbox's report. */
export function finishedRun(planned: PlannedStep[], result: RunWorkflowStepsResult): FinishedRun {
  const budget = new ValueBudget();
  const byId = new Map(result.steps.map((o) => [o.id, o]));
  const logsByStep = new Map<number, StepLogLine[]>();
  for (const line of result.logs) {
    // Lines written outside any step (while the run is set up) go with its first run step.
    const at = line.step ?? planned.findIndex((s) => !s.reused && !s.kept);
    let list = logsByStep.get(at);
    if (!list) logsByStep.set(at, (list = []));
    list.push(line);
  }
  const failedId =
    result.error?.cellId || (result.stoppedAt !== undefined ? planned[result.stoppedAt]?.id : undefined);
  const steps = planned.map((s, i): RunStep => {
    if (s.kept) {
      budget.cut(s.kept.return_value);
      budget.cut(s.kept.exports);
      return s.kept;
    }
    const logs = stepLogs(logsByStep.get(i) ?? NO_LINES);
    if (s.reused) {
      const rv = budget.cut(s.reused.return_value);
      const ex = budget.cut(s.reused.exports ?? {});
      return stepRecord(s, "reused", null, null, rv.value, ex.value, logs, null, false);
    }
    const o = byId.get(s.id);
    if (!o) {
      // Stopped while it ran (timeout, memory) or failed before it started (loading): its error.
      if (s.id === failedId && result.error) {
        const error = {
          name: result.error.code,
          message: scrubServerPaths(result.error.message),
          stack: componentStack(result.error.stack),
        };
        return stepRecord(s, "error", null, null, null, {}, logs, error, false);
      }
      // Before the step a run was stopped in (timeout, memory), a step ended well: the worker
      // had gone on, but was stopped before it told what the step returned. After a
      // `$.flow.delay` the rest is still to come; after an error or an exit it never runs.
      const endedBefore = result.stoppedAt !== undefined && i < result.stoppedAt;
      const status = endedBefore ? "success" : result.delay ? "pending" : "skipped";
      return stepRecord(s, status, null, null, null, {}, logs, null, false);
    }
    const rv = budget.cut(o.return_value);
    const ex = budget.cut(o.exports ?? {});
    const error = o.error
      ? { name: o.error.name, message: scrubServerPaths(o.error.message), stack: componentStack(o.error.stack) }
      : null;
    const cut = rv.truncated || ex.truncated;
    return stepRecord(s, o.status, o.started_at_ms, o.duration_ms, rv.value, ex.value, logs, error, cut);
  });
  const error = result.error
    ? {
        code: result.error.code,
        message: scrubServerPaths(result.error.message),
        cellId: result.error.cellId,
        step: planned.find((s) => s.id === result.error!.cellId)?.name ?? null,
      }
    : null;
  const status: RunStatus = error ? "error" : result.exit ? "exited" : result.delay ? "delayed" : "success";
  return {
    status,
    steps,
    error,
    exitReason: result.exit ? result.exit.reason : null,
    valuesLeft: budget.left,
    ...(result.hide ? { hide: result.hide } : {}),
  };
}

/**
 * The response as a run records it: its credential values hidden, its body cut to what is left
 * of the run's values budget (`{truncated, size, preview}`, and `truncated` on the response).
 * The caller was answered in full; a response recorded earlier (a run going on) is cut again.
 */
export function recordedResponse(response: RunResponse, run: FinishedRun): RunResponse {
  const { status, headers, body } = run.hide ? run.hide(response) : response;
  const budget = new ValueBudget(run.valuesLeft ?? RUN_LIMITS.valueBytes);
  // The headers count first: they are small, or cut with the body when they are not.
  const h = budget.cut(headers);
  const b = budget.cut(body);
  const cut = h.truncated || b.truncated || response.truncated === true;
  return { status, headers: h.truncated ? {} : headers, body: b.value, ...(cut ? { truncated: true } : {}) };
}

/** The parts of a row that a run's start and end both write. */
export interface RunHeader {
  id: string;
  workflowId: string;
  ownerId: string;
  trigger: RunTrigger;
  attempt: number;
  createdMs: number;
  eventJson: string;
  /** The workflow's version the run runs (decisions.md "Building workflows"). */
  version?: number | undefined;
}

export function runningRow(h: RunHeader, steps: RunStep[], startedMs: number): RunRow {
  return {
    id: h.id,
    workflow_id: h.workflowId,
    owner_id: h.ownerId,
    status: "running",
    trigger_json: JSON.stringify(h.trigger),
    attempt: h.attempt,
    created_ms: h.createdMs,
    started_ms: startedMs,
    ended_ms: null,
    updated_ms: startedMs,
    event_json: storableJson(h.eventJson),
    steps_json: storableJson(JSON.stringify(steps)),
    response_json: null,
    error_json: null,
    exit_reason: null,
    pending_job_id: null,
    next_at_ms: null,
    version: h.version ?? null,
  };
}

/** A re-run's row while it waits in the queue. */
export function queuedRow(h: RunHeader, steps: RunStep[]): RunRow {
  return { ...runningRow(h, steps, h.createdMs), status: "queued", started_ms: null };
}

/** A run that waits to go on (retrying, delayed): the job it goes on with, and when. */
export interface Waiting {
  jobId: string;
  dueMs: number;
}

export function endedRow(
  h: RunHeader,
  run: FinishedRun,
  startedMs: number,
  endedMs: number,
  response: RunResponse | null,
  attempts: RunAttempt[] = [],
  waiting?: Waiting,
): RunRow {
  return {
    id: h.id,
    workflow_id: h.workflowId,
    owner_id: h.ownerId,
    status: run.status,
    trigger_json: JSON.stringify(h.trigger),
    attempt: h.attempt,
    created_ms: h.createdMs,
    started_ms: startedMs,
    ended_ms: waiting ? null : endedMs,
    updated_ms: endedMs,
    // Strings a run produced are stored on both databases: NULs and lone surrogates as U+FFFD.
    event_json: storableJson(h.eventJson),
    steps_json: storableJson(JSON.stringify(run.steps)),
    response_json: response ? storableJson(JSON.stringify(recordedResponse(response, run))) : null,
    error_json: run.error ? storableJson(JSON.stringify(run.error)) : null,
    exit_reason: run.exitReason === null ? null : storableText(run.exitReason),
    pending_job_id: waiting?.jobId ?? null,
    next_at_ms: waiting?.dueMs ?? null,
    attempts_json: attempts.length === 0 ? "[]" : storableJson(JSON.stringify(attempts)),
    version: h.version ?? null,
  };
}

/** A run's fields before its event and steps (`runOfRow` and `runJsonOfRow` keep the Run's field order). */
function runHead(row: RunHeadRow) {
  const started = row.started_ms === null ? null : Number(row.started_ms);
  const ended = row.ended_ms === null ? null : Number(row.ended_ms);
  return {
    id: row.id,
    workflow_id: row.workflow_id,
    status: row.status as RunStatus,
    trigger: JSON.parse(row.trigger_json) as RunTrigger,
    attempt: Number(row.attempt),
    version: row.version == null ? null : Number(row.version),
    started_at_ms: started,
    ended_at_ms: ended,
    duration_ms: started !== null && ended !== null ? ended - started : null,
  };
}

/** A run's fields after its event and steps. */
function runTail(row: RunHeadRow) {
  return {
    response: row.response_json ? (JSON.parse(row.response_json) as RunResponse) : null,
    error: row.error_json ? (JSON.parse(row.error_json) as RunError) : null,
    exit_reason: row.exit_reason,
    next_attempt_at_ms: row.status === "retrying" && row.next_at_ms != null ? Number(row.next_at_ms) : null,
    resume_at_ms: row.status === "delayed" && row.next_at_ms != null ? Number(row.next_at_ms) : null,
    attempts: row.attempts_json ? (JSON.parse(row.attempts_json) as RunAttempt[]) : [],
  };
}

/** The Run resource of a row; in lists (`cutEvent`) an event over 1 KB is `{truncated, size, preview}`. */
export function runOfRow(row: RunRow, cutEvent: boolean): Run {
  const eventBytes = cutEvent ? Buffer.byteLength(row.event_json) : 0;
  const event =
    eventBytes > RUN_LIMITS.listEventBytes
      ? { truncated: true, size: eventBytes, preview: utf8Prefix(row.event_json, RUN_LIMITS.listEventBytes) }
      : (JSON.parse(row.event_json) as unknown);
  return {
    ...runHead(row),
    event,
    steps: JSON.parse(row.steps_json) as RunStep[],
    ...runTail(row),
  };
}

/**
 * The JSON text of `runOfRow(row, false)` as UTF-8, made without parsing the event and steps: they
 * are stored as JSON text, and a run's steps can hold megabytes of logs and values that a read
 * would otherwise parse only to stringify again.
 */
export function runJsonBytes(row: RunRowBytes, before?: Buffer, after?: Buffer): Buffer {
  const head = JSON.stringify(runHead(row));
  const tail = JSON.stringify(runTail(row));
  return Buffer.concat([
    ...(before ? [before] : []),
    Buffer.from(`${head.slice(0, -1)},"event":`),
    row.event_bytes,
    Buffer.from(`,"steps":`),
    row.steps_bytes,
    Buffer.from(`,${tail.slice(1)}`),
    ...(after ? [after] : []),
  ]);
}
