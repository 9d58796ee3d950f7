/**
 * The fake bridge's test runs (decisions.md "Building workflows", "Test runs"): the draft's steps
 * (else the workflow's) run on the event given, or that of `run_id`; `to_step` stops after that
 * step (the rest `skipped`), `from_step` reuses the earlier steps' results of `run_id` (default:
 * the latest test run), and the server's 400s and 404s when it cannot. What a step does is
 * `behaviour(step, event, earlier)`: by default it returns `{step: <name>}`; a test sets its own.
 */
import type { BridgeError } from "../../shared/bridge.js";
import type { Run, RunStep, TestRunBody, Workflow } from "../../shared/resources/index.js";
import { makeStep } from "./fakeRuns.js";

export type StepBehaviour = (
  step: Workflow["steps"][number],
  event: unknown,
  earlier: Record<string, unknown>,
) => Partial<RunStep>;

const bad = (message: string, status = 400): BridgeError => ({
  status,
  code: status === 404 ? "not_found" : "bad_request",
  message,
});

export class FakeTests {
  /** Test runs per workflow, newest first. */
  runs = new Map<string, Run[]>();
  behaviour: StepBehaviour = (step) => ({ return_value: { step: step.name } });
  private seq = 0;

  run(w: Workflow, steps: Workflow["steps"], body: TestRunBody, production: readonly Run[]): Run {
    const mine = this.runs.get(w.id) ?? [];
    const named = body.run_id ? [...mine, ...production].find((r) => r.id === body.run_id) : undefined;
    if (body.run_id && !named) throw bad(`run ${body.run_id}`, 404);
    const at = (ref: string | undefined, what: string) => {
      if (ref === undefined) return undefined;
      const i = steps.findIndex((s) => s.name === ref);
      if (i < 0) throw bad(`${what}: no step "${ref}"`);
      return i;
    };
    const upTo = at(body.to_step, "to_step") ?? steps.length - 1;
    const from = at(body.from_step, "from_step") ?? 0;
    const earlier = named ?? mine[0];
    const event = body.event !== undefined ? body.event : (named?.event ?? {});
    const values: Record<string, unknown> = { trigger: { event } };
    let ended = false;
    const out = steps.map((s, i): RunStep => {
      if (i < from) {
        const was = earlier?.steps.find((x) => x.name === s.name);
        if (!was || (was.status !== "success" && was.status !== "reused"))
          throw bad(`from_step: step "${s.name}" did not complete in an earlier run`);
        values[s.name] = { ...was.exports, $return_value: was.return_value };
        return { ...was, status: "reused", logs: [] };
      }
      if (ended || i > upTo)
        return makeStep(s.name, { id: s.id, status: "skipped", started_at_ms: null, duration_ms: null });
      const r = makeStep(s.name, { id: s.id, ...this.behaviour(s, event, values) });
      if (r.status !== "success") ended = true;
      values[s.name] = { ...r.exports, $return_value: r.return_value };
      return r;
    });
    const failed = out.find((s) => s.status === "error");
    // Now, and later than the last: lists of runs sort by start.
    const now = Math.max(Date.now(), (mine[0]?.started_at_ms ?? 0) + 1);
    const run: Run = {
      id: `r_test${String(++this.seq).padStart(3, "0")}`,
      workflow_id: w.id,
      status: failed ? "error" : out.some((s) => s.status === "exited") ? "exited" : "success",
      trigger: { type: "TEST" },
      attempt: 1,
      version: w.version ?? 1,
      started_at_ms: now,
      ended_at_ms: now + 30,
      duration_ms: 30,
      event,
      steps: out,
      response: null,
      error: failed
        ? { code: "Error", message: failed.error?.message ?? "failed", cellId: failed.id, step: failed.name }
        : null,
      exit_reason: null,
      test: true,
    };
    this.runs.set(w.id, [run, ...mine]);
    return run;
  }
}
