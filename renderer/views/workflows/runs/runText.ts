/** Words for runs: statuses, triggers, durations, and which step a run should open on. */
import {
  ENDED_RUN_STATUSES,
  type Run,
  type RunStatus,
  type RunStep,
} from "../../../../shared/resources/index.js";
import { formatDuration } from "../../../state/format.js";

export const RUN_STATUS_LABELS: Record<RunStatus, string> = {
  queued: "Queued",
  running: "Running",
  success: "Success",
  error: "Error",
  exited: "Exited",
  retrying: "Retrying",
  delayed: "Delayed",
  cancelled: "Cancelled",
};

export const STEP_STATUS_LABELS: Record<RunStep["status"], string> = {
  success: "Success",
  error: "Error",
  exited: "Exited",
  skipped: "Skipped",
  reused: "Reused",
  running: "Running",
  pending: "Pending",
};

/** The chip's colour class: one family per outcome (the label always says it in words too). */
export function statusTone(status: RunStatus | RunStep["status"]): "ok" | "bad" | "busy" | "quiet" {
  if (status === "success") return "ok";
  if (status === "error") return "bad";
  if (status === "running" || status === "queued" || status === "retrying" || status === "delayed")
    return "busy";
  return "quiet";
}

export function isEnded(run: Pick<Run, "status">): boolean {
  return ENDED_RUN_STATUSES.includes(run.status);
}

/**
 * "HTTP request", "Event from Orders webhook" (the emitter's name when `names` has it, else its
 * id), "Re-run of r_x from b".
 */
export function triggerText(run: Run, names?: ReadonlyMap<string, string>): string {
  const t = run.trigger;
  const emitter = t.emitter_id ? (names?.get(t.emitter_id) ?? t.emitter_id) : undefined;
  switch (t.type) {
    case "HTTP":
      return "HTTP request";
    case "SOURCE":
      return emitter ? `Event from ${emitter}` : "Event from a source";
    case "WORKFLOW":
      return emitter ? `Event from ${emitter}` : "Event from a workflow";
    case "RERUN":
      return `Re-run of ${t.rerun_of ?? "a run"}${t.from_step ? ` from ${t.from_step}` : ""}`;
    case "TEST":
      return "Test run";
    case "SCHEDULE":
      return `Schedule ${(t.schedule ?? 0) + 1}`;
    case "MANUAL":
      return "Run now";
  }
}

/** A run's duration, or what it is waiting for when it has none yet. */
export function durationText(run: Run, nowMs: number): string {
  if (run.duration_ms !== null) return formatDuration(run.duration_ms);
  if (run.status === "running" && run.started_at_ms !== null)
    return `${formatDuration(Math.max(0, nowMs - run.started_at_ms))} so far`;
  return "—";
}

/** Statuses of a run that waits, which the server can still cancel (decisions.md "Execution controls"). */
export function isCancellable(run: Pick<Run, "status">): boolean {
  return run.status === "queued" || run.status === "retrying" || run.status === "delayed";
}

/**
 * How long until `ms`, to the second under a minute ("in 4 s"): retries wait seconds, and the
 * list's relative times say "now" for anything under a minute. "any moment" once it is due
 * (the server starts it within its next look at due runs).
 */
export function untilText(ms: number, nowMs: number): string {
  const s = Math.ceil((ms - nowMs) / 1000);
  if (s <= 0) return "any moment";
  if (s < 60) return `in ${s} s`;
  const m = Math.round(s / 60);
  if (m < 60) return `in ${m} min`;
  const h = Math.round(m / 60);
  return h < 48 ? `in ${h} h` : `in ${Math.round(h / 24)} days`;
}

/** What a waiting run waits for, with when: "next attempt in 4 s", "resumes in 2 h"; else null. */
export function waitText(run: Run, nowMs: number): { text: string; at: number } | null {
  if (run.status === "retrying" && run.next_attempt_at_ms != null)
    return { text: `next attempt ${untilText(run.next_attempt_at_ms, nowMs)}`, at: run.next_attempt_at_ms };
  if (run.status === "delayed" && run.resume_at_ms != null)
    return { text: `resumes ${untilText(run.resume_at_ms, nowMs)}`, at: run.resume_at_ms };
  return null;
}

/**
 * The step an inspector opens on: the failed one of a failed run (by the run's error, else the
 * first step in error), else the one running, else the step a re-run started from, else the
 * first.
 */
export function initialStepId(run: Run): string | null {
  const byError = run.error?.cellId ? run.steps.find((s) => s.id === run.error?.cellId) : undefined;
  const failed = byError ?? run.steps.find((s) => s.status === "error");
  const running = run.steps.find((s) => s.status === "running");
  const from = run.trigger.from_step;
  const rerunFrom = from ? run.steps.find((s) => s.name === from || s.id === from) : undefined;
  return (failed ?? running ?? rerunFrom ?? run.steps[0])?.id ?? null;
}

/** The trigger event as the list cuts it (over 1 KB): `{truncated: true, size, preview}`. */
export function isCutEvent(event: unknown): event is { truncated: true; size: number; preview: string } {
  return (
    typeof event === "object" &&
    event !== null &&
    (event as { truncated?: unknown }).truncated === true &&
    typeof (event as { size?: unknown }).size === "number"
  );
}

/** Newest first: run ids sort by the time their invocation was queued. */
export function newestFirst(a: Run, b: Run): number {
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/**
 * Which copy of a run to keep when two arrive (the list's and the stream's, in either order):
 * the newer one, except that an ended run never goes back to a status before its end (a list
 * answer read before it ended can land after the stream said so).
 */
export function newerCopy(kept: Run | undefined, incoming: Run): Run {
  if (!kept) return incoming;
  if (isEnded(kept) && !isEnded(incoming)) return kept;
  return incoming;
}
