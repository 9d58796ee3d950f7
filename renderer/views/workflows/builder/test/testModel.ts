/**
 * Test results in the builder, without React: each step keeps the result of the latest test that
 * ran it, with what it was tested on (the steps up to it, by name and content, and the event).
 * A result is stale once that changed: its own code, an earlier step (its code, its name, the
 * steps' order), or the chosen event. "Test step" reuses the earlier steps' results only when
 * they are fresh (planStepTest).
 */
import type { Run, RunResponse, RunStep, TestRunBody } from "../../../../../shared/resources/index.js";
import type { EditStep } from "../draftModel.js";

/** What a step is, for staleness: its code, or its action and props. */
export function stepContent(s: Pick<EditStep, "code" | "action" | "props">): string {
  return s.action ? `action ${s.action} ${JSON.stringify(s.props ?? {})}` : s.code;
}

export interface TestedStep {
  name: string;
  content: string;
}

export interface StepResult {
  step: RunStep;
  runId: string;
  /** The steps up to and including this one when the test was sent. */
  basis: TestedStep[];
  /** The event it ran on (`eventKey`). */
  eventKey: string;
  /** The run's recorded answer (`$.respond`), on the last step the run ran. */
  response?: RunResponse | null;
}

/** Results by step key (the key outlives renames and moves). */
export type Results = ReadonlyMap<string, StepResult>;

export type Staleness =
  { kind: "own" } | { kind: "earlier"; step: string } | { kind: "order" } | { kind: "event" } | null;

/** One canonical text per event: two choices of the same event are the same test input. */
export const eventKey = (event: unknown): string => JSON.stringify(event) ?? "null";

/**
 * Whether `result`, of the step at `index` of `steps`, still says what that step does now.
 * `currentEvent` null (typed JSON that does not parse yet) leaves the event out.
 */
export function staleness(
  result: StepResult,
  steps: readonly EditStep[],
  index: number,
  currentEvent: string | null,
): Staleness {
  if (result.basis.length !== index + 1) return { kind: "order" };
  if (result.basis[index]!.content !== stepContent(steps[index]!)) return { kind: "own" };
  for (let j = 0; j < index; j++) {
    if (result.basis[j]!.name !== steps[j]!.name) return { kind: "order" };
    if (result.basis[j]!.content !== stepContent(steps[j]!)) return { kind: "earlier", step: steps[j]!.name };
  }
  if (currentEvent !== null && result.eventKey !== currentEvent) return { kind: "event" };
  return null;
}

export function stalenessText(s: NonNullable<Staleness>): string {
  switch (s.kind) {
    case "own":
      return "Stale: its code changed since this test.";
    case "earlier":
      return `Stale: step ${s.step} changed since this test.`;
    case "order":
      return "Stale: the steps before it changed since this test.";
    case "event":
      return "Stale: it was tested on another event.";
  }
}

/** What a test was sent with: the steps as they were (keys, names, contents), the event, where it stops. */
export interface SentTest {
  steps: { key: string; name: string; content: string }[];
  eventKey: string;
  /** The index of `to_step` (null: the whole workflow). */
  toIndex: number | null;
}

const ENDED_STEP = new Set<RunStep["status"]>(["success", "error", "exited"]);

/**
 * The results after `run`: every step the run ran takes its result; a reused step keeps the one
 * it had; a step left out because the test stopped before it (`to_step`) keeps its own, while a
 * step skipped because an earlier one failed or exited says so.
 */
export function mergeRun(results: Results, run: Run, sent: SentTest): Map<string, StepResult> {
  const next = new Map(results);
  const lastRan = run.steps.reduce((last, s, i) => (ENDED_STEP.has(s.status) ? i : last), -1);
  sent.steps.forEach((s, i) => {
    const step = run.steps[i];
    if (!step || step.name !== s.name) return;
    const kept = next.get(s.key);
    if (step.status === "reused" && kept) return;
    if ((step.status === "skipped" || step.status === "pending") && sent.toIndex !== null && i > sent.toIndex)
      return;
    next.set(s.key, {
      step,
      runId: run.id,
      basis: sent.steps.slice(0, i + 1).map(({ name, content }) => ({ name, content })),
      eventKey: sent.eventKey,
      ...(i === lastRan ? { response: run.response } : {}),
    });
  });
  return next;
}

/**
 * The results re-attached to `steps` after the builder read its steps again (a deploy, a
 * discard, a reload give every step a new key): a result whose key is gone goes to the step of
 * the name it was tested under, if that step has none. `results` itself when nothing moved.
 */
export function adoptResults(results: Results, steps: readonly EditStep[]): Results {
  const keys = new Set(steps.map((s) => s.key));
  const orphans = [...results].filter(([k]) => !keys.has(k));
  if (orphans.length === 0) return results;
  const next = new Map([...results].filter(([k]) => keys.has(k)));
  for (const [, r] of orphans) {
    const name = r.basis[r.basis.length - 1]!.name;
    const s = steps.find((x) => x.name === name && !next.has(x.key));
    if (s) next.set(s.key, r);
  }
  return next;
}

/**
 * The body of "Test step" on the step at `index`: up to that step; from it, reusing the earlier
 * steps' results, when the step before it has a fresh result that completed (then every step
 * before it completed in that run, on this event, with today's code), named by that run's id
 * (another window or the CLI may have tested since, so not the server's "latest").
 */
export function planStepTest(
  results: Results,
  steps: readonly EditStep[],
  index: number,
  event: string,
): Pick<TestRunBody, "to_step" | "from_step" | "run_id"> {
  const to_step = steps[index]!.name;
  const before = index > 0 ? results.get(steps[index - 1]!.key) : undefined;
  const reusable =
    before !== undefined &&
    (before.step.status === "success" || before.step.status === "reused") &&
    staleness(before, steps, index - 1, event) === null;
  return reusable ? { to_step, from_step: to_step, run_id: before.runId } : { to_step };
}

/**
 * What `steps` holds for completion in the step editors: the trigger's event, and each step's
 * return value and exports from its latest result (a stale one is still the best guess of the
 * shape).
 */
export function stepValues(
  results: Results,
  steps: readonly EditStep[],
  event: unknown,
): Record<string, unknown> {
  const out: Record<string, unknown> = { trigger: { event } };
  for (const s of steps) {
    const r = results.get(s.key)?.step;
    if (!r || (r.status !== "success" && r.status !== "reused" && r.status !== "exited")) continue;
    out[s.name] = { ...r.exports, $return_value: r.return_value };
  }
  return out;
}
