/**
 * Runs for renderer tests (shared/resources/run.ts): a run and its steps as the server answers
 * them, and what the fake bridge answers to a re-run (the server's rule: steps before
 * `from_step` are `reused`, with their values).
 */
import { RUN_LIMITS, type RerunBody, type Run, type RunStep } from "../../shared/resources/index.js";

export const RUN_T0 = 1_700_000_000_000;

export function makeStep(name: string, over: Partial<RunStep> = {}): RunStep {
  return {
    id: `c_${name}`,
    name,
    status: "success",
    started_at_ms: RUN_T0,
    duration_ms: 12,
    return_value: null,
    exports: {},
    logs: [],
    error: null,
    ...over,
  };
}

/** A run of `p_wf1` by default; `n` orders ids (a higher n is newer). */
export function makeRun(n: number, over: Partial<Run> = {}): Run {
  return {
    id: `r_run${String(n).padStart(3, "0")}`,
    workflow_id: "p_wf1",
    status: "success",
    trigger: { type: "HTTP" },
    attempt: 1,
    started_at_ms: RUN_T0 + n * 1000,
    ended_at_ms: RUN_T0 + n * 1000 + 40,
    duration_ms: 40,
    event: { method: "POST", path: "/", body: { n } },
    steps: [makeStep("a")],
    response: null,
    error: null,
    exit_reason: null,
    ...over,
  };
}

/** A failed two-step run: `a` succeeded, `b` threw. */
export function failedRun(n: number, over: Partial<Run> = {}): Run {
  return makeRun(n, {
    status: "error",
    steps: [
      makeStep("a", { return_value: { checked: true }, exports: { total: 3 } }),
      makeStep("b", {
        status: "error",
        logs: [
          { ts_ms: RUN_T0 + 1, level: "info", message: "charging the card" },
          { ts_ms: RUN_T0 + 2, level: "warn", message: "amount is negative" },
        ],
        error: {
          name: "Error",
          message: "no refunds here",
          stack: "Error: no refunds here\n    at b (step b:2:11)",
        },
      }),
    ],
    error: { code: "Error", message: "no refunds here", cellId: "c_b", step: "b" },
    ...over,
  });
}

/** The run a re-run makes: a new id, trigger RERUN, the steps before `from_step` reused. */
export function rerunOf(run: Run, body: RerunBody, id: string): Run {
  const from = body.from_step
    ? run.steps.findIndex((s) => s.name === body.from_step || s.id === body.from_step)
    : 0;
  if (from < 0) throw { status: 400, code: "bad_request", message: `no step ${body.from_step}` };
  return {
    ...run,
    id,
    status: "success",
    trigger: { type: "RERUN", rerun_of: run.id, ...(body.from_step ? { from_step: body.from_step } : {}) },
    steps: run.steps.map((s, i) =>
      i < from ? { ...s, status: "reused" } : { ...s, status: "success", error: null },
    ),
    error: null,
  };
}

/** A run as lists show it: its event over 1 KB of JSON cut to `{truncated, size, preview}`. */
export function cutEvent(run: Run): Run {
  const json = JSON.stringify(run.event) ?? "null";
  if (json.length <= RUN_LIMITS.listEventBytes) return run;
  return {
    ...run,
    event: { truncated: true, size: json.length, preview: json.slice(0, RUN_LIMITS.listEventBytes) },
  };
}
