/**
 * Workflow runs for people: a table row and a live line per run (`runs`, `runs -f`), and the
 * whole of one run (`runs show`, `runs rerun`, `runs cancel`): each step with its status,
 * duration, log lines, return value and exports (and a test run's recorded emits), the error with
 * its stack, what the HTTP caller was answered, and for a retried run each attempt. A run that waits (`retrying`, `delayed`)
 * says when it goes on. Values are shown as compact JSON cut to a line's worth; `--json` has
 * them whole.
 */
import type { Run, RunAttempt, RunStep, Workflow } from "../../shared/resources/index.js";
import type { Column } from "./table.js";
import type { Style } from "./style.js";
import { clockTime, relativeTime, untilTime, whenText } from "./time.js";
import { renderFields } from "./table.js";

/** Most characters of a value shown on one line. */
const VALUE_CHARS = 200;

export function statusText(status: string, style: Style): string {
  if (status === "success") return style.green(status);
  if (status === "error") return style.red(status);
  if (status === "exited" || status === "cancelled" || status === "skipped" || status === "reused")
    return style.dim(status);
  return style.yellow(status); // queued, running, retrying, delayed, pending: not over yet
}

export function triggerText(run: Run): string {
  const t = run.trigger;
  if (t.type === "RERUN") return `RERUN of ${t.rerun_of ?? "?"}${t.from_step ? ` from ${t.from_step}` : ""}`;
  if (t.type === "HTTP") return "HTTP";
  return t.emitter_id ? `${t.type} ${t.emitter_id}` : t.type;
}

export const durationText = (ms: number | null | undefined) =>
  ms === null || ms === undefined ? "-" : ms < 10_000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;

/** Steps that did their work (run, or reused from the earlier run) out of all. */
function stepsDone(run: Run): string {
  const done = run.steps.filter(
    (s) => s.status === "success" || s.status === "reused" || s.status === "exited",
  ).length;
  return `${done}/${run.steps.length}`;
}

/**
 * When a waiting run goes on: a `retrying` run's next attempt, a `delayed` run's resumption
 * (empty for any other run, and for a server that does not say).
 */
function waitText(run: Run, now: number): string {
  if (run.status === "retrying" && typeof run.next_attempt_at_ms === "number")
    return `attempt ${run.attempt + 1} ${whenText(run.next_attempt_at_ms, now)}`;
  if (run.status === "delayed" && typeof run.resume_at_ms === "number")
    return `resumes ${whenText(run.resume_at_ms, now)}`;
  return "";
}

/**
 * The one thing to know about where it stands: when a waiting run goes on, then the error (of
 * the attempt that failed, for a run being retried), the exit reason, or the HTTP answer.
 */
function outcomeText(run: Run, style: Style, now = Date.now()): string {
  const wait = waitText(run, now);
  const ended = endText(run, style);
  return wait ? [style.yellow(wait), ended].filter((t) => t !== "").join("; ") : ended;
}

function endText(run: Run, style: Style): string {
  if (run.error)
    return style.red(
      `${run.error.step ? `step ${run.error.step}: ` : ""}${run.error.code}: ${run.error.message}`,
    );
  // (The status column already says `exited`: the reason is what is left to tell.)
  if (run.status === "exited") return run.exit_reason ? style.dim(JSON.stringify(run.exit_reason)) : "";
  if (run.response) return `answered ${run.response.status}`;
  return "";
}

export function runColumns(style: Style): Column<Run>[] {
  return [
    { header: "ID", cell: (r) => r.id },
    { header: "STATUS", cell: (r) => statusText(r.status, style) },
    { header: "TRIGGER", cell: (r) => triggerText(r) },
    {
      header: "STARTED",
      cell: (r) => (r.started_at_ms === null ? style.dim("not yet") : relativeTime(r.started_at_ms)),
    },
    { header: "DURATION", cell: (r) => durationText(r.duration_ms) },
    { header: "STEPS", cell: (r) => stepsDone(r) },
    { header: "RESULT", cell: (r) => outcomeText(r, style) },
  ];
}

/** A run as one line of `runs -f`: when it last changed, its id, status, trigger, and how it ended. */
export function runLine(run: Run, style: Style, now = Date.now()): string {
  const at = run.ended_at_ms ?? run.started_at_ms ?? now;
  const parts = [style.dim(clockTime(at)), run.id, statusText(run.status, style), triggerText(run)];
  if (run.ended_at_ms !== null) parts.push(durationText(run.duration_ms), `${stepsDone(run)} steps`);
  if (run.attempt > 1) parts.push(style.yellow(`attempt ${run.attempt}`));
  const outcome = outcomeText(run, style, now);
  if (outcome) parts.push(outcome);
  return parts.join("  ").replace(/\s*\n\s*/g, " ");
}

/** Compact JSON of a value, cut to VALUE_CHARS with its full size said. */
export function shortJson(value: unknown, max = VALUE_CHARS): string {
  let json: string;
  try {
    json = JSON.stringify(value) ?? "undefined";
  } catch {
    json = String(value);
  }
  return json.length <= max
    ? json
    : `${json.slice(0, max)}… (${json.length} characters; --json shows it whole)`;
}

/**
 * The trigger event on one line. A request to the endpoint is mostly headers: it is shown as
 * its method, path and body (`--json` has the headers).
 */
function eventText(event: unknown): string {
  const e = event as { method?: unknown; path?: unknown; query?: unknown; body?: unknown } | null;
  if (e && typeof e === "object" && typeof e.method === "string" && typeof e.path === "string") {
    const q =
      e.query && typeof e.query === "object"
        ? new URLSearchParams(e.query as Record<string, string>).toString()
        : "";
    return `${e.method} ${e.path}${q ? `?${q}` : ""}${e.body !== undefined && e.body !== "" ? ` ${shortJson(e.body)}` : ""}`;
  }
  return shortJson(event);
}

/** The whole of one run, as lines. */
export function runDetails(run: Run, workflow: Workflow | undefined, style: Style): string {
  const { bold, dim, red } = style;
  const fields: Array<[string, string]> = [
    ["run", run.id],
    ["workflow", workflow ? `${workflow.name} (${workflow.id})` : run.workflow_id],
    ["status", statusText(run.status, style) + (run.exit_reason ? ` (${run.exit_reason})` : "")],
    ["trigger", triggerText(run) + (run.trigger.event_id ? ` event ${run.trigger.event_id}` : "")],
  ];
  const now = Date.now();
  if (run.status === "retrying" && typeof run.next_attempt_at_ms === "number")
    fields.push(["next attempt", `#${run.attempt + 1}, ${futureText(run.next_attempt_at_ms, now)}`]);
  if (run.status === "delayed" && typeof run.resume_at_ms === "number")
    fields.push(["resumes", futureText(run.resume_at_ms, now)]);
  const attempts = run.attempts ?? [];
  // One attempt is the run itself, already shown, unless it failed and a retry waits.
  const showAttempts = attempts.length > 1 || (attempts.length === 1 && run.status === "retrying");
  if (!showAttempts && run.attempt > 1) fields.push(["attempt", String(run.attempt)]);
  fields.push([
    "started",
    run.started_at_ms === null
      ? "not yet"
      : `${new Date(run.started_at_ms).toISOString()} (${relativeTime(run.started_at_ms)})`,
  ]);
  fields.push(["duration", durationText(run.duration_ms)]);
  if (showAttempts)
    attempts.forEach((a, i) => fields.push([i === 0 ? "attempts" : "", attemptText(a, style)]));
  fields.push(["event", eventText(run.event)]);
  if (run.error) {
    const where = run.error.step ? `step ${run.error.step}` : "the run";
    fields.push(["error", red(`${run.error.code} in ${where}: ${run.error.message}`)]);
  }
  if (run.response) {
    // A test run's answer was recorded, never sent.
    fields.push([run.test ? "response (recorded)" : "response", `${run.response.status} ${shortJson(run.response.body)}`]);
    const headers = Object.entries(run.response.headers);
    if (headers.length > 0) fields.push(["", dim(headers.map(([k, v]) => `${k}: ${v}`).join(", "))]);
  }
  const lines = [renderFields(fields, style).trimEnd(), "", bold("steps")];
  if (run.steps.length === 0) lines.push(dim("  (none)"));
  run.steps.forEach((step, i) => lines.push(...stepLines(step, i + 1, style)));
  return lines.join("\n") + "\n";
}

const futureText = (ms: number, now: number) => `${new Date(ms).toISOString()} (${untilTime(ms, now)})`;

/** One attempt of a retried run: its number, status, start, duration and error. */
function attemptText(a: RunAttempt, style: Style): string {
  const parts = [`#${a.attempt}`, statusText(a.status, style), clockTime(a.started_at_ms)];
  if (a.ended_at_ms !== null) parts.push(durationText(a.ended_at_ms - a.started_at_ms));
  if (a.error)
    parts.push(
      style.red(`${a.error.step ? `step ${a.error.step}: ` : ""}${a.error.code}: ${a.error.message}`),
    );
  return parts.join("  ").replace(/\s*\n\s*/g, " ");
}

function stepLines(step: RunStep, n: number, style: Style): string[] {
  const { bold, dim, red, yellow } = style;
  const head = [`${n}.`, bold(step.name), statusText(step.status, style)];
  if (step.duration_ms !== null) head.push(dim(durationText(step.duration_ms)));
  if (step.truncated) head.push(yellow("(logs or values cut at the run's limits)"));
  const out = ["  " + head.join("  ")];
  const indent = "       ";
  for (const log of step.logs) {
    const tag =
      log.level === "error" || log.level === "warn" ? yellow(`[${log.level}]`) : dim(`[${log.level}]`);
    // A message of several lines keeps them, each indented under the step.
    out.push(`${indent}${tag} ${log.message.replace(/\n/g, `\n${indent}  `)}`);
  }
  const ran = step.status === "success" || step.status === "reused" || step.status === "exited";
  if (ran && step.return_value !== undefined && step.return_value !== null)
    out.push(`${indent}${dim("returned")} ${shortJson(step.return_value)}`);
  for (const [name, value] of Object.entries(step.exports))
    out.push(`${indent}${dim("export")} ${name} = ${shortJson(value)}`);
  // A test run's emits: recorded on the step, never stored or delivered.
  for (const e of step.emits ?? [])
    out.push(`${indent}${dim(`emit${e.channel === "default" ? "" : ` on ${e.channel}`}`)} ${shortJson(e.data)}`);
  if (step.error) {
    out.push(`${indent}${red(`${step.error.name}: ${step.error.message}`)}`);
    // The stack's first line repeats the name and message just shown; the frames follow.
    const stack = step.error.stack.split("\n").filter((l) => l.trim() !== "");
    if (stack[0] !== undefined && !/^\s*at /.test(stack[0]) && stack[0].includes(step.error.message))
      stack.shift();
    for (const frame of stack) out.push(`${indent}  ${dim(frame.trim())}`);
  }
  return out;
}
