/**
 * What the builder shows of tests, from its steps as they are now: the test panel, and for each
 * step its "Test step" button, its latest result (stale or not), and what its editor completes
 * after `steps.`. Kept out of StepsBuilder so that the builder only places these.
 */
import { useEffect, useRef, type ReactNode } from "react";
import type { StepProblem } from "../../../../../shared/resources/index.js";
import { nameProblem, type EditStep } from "../draftModel.js";
import { StepTestResult } from "./StepTestResult.js";
import { TestPanel, testReasonId } from "./TestPanel.js";
import { staleness, stepValues, type Staleness } from "./testModel.js";
import type { StepTests } from "./useStepTests.js";

/** Why the steps up to `index` (all: null) cannot be tested now, or null. */
export function blockedReason(
  steps: readonly EditStep[],
  problems: readonly StepProblem[],
  index: number | null,
): string | null {
  if (steps.length === 0) return "Add a step to test.";
  const upTo = index === null ? steps : steps.slice(0, index + 1);
  if (steps.some((s) => nameProblem(steps, s))) return "A step's name cannot be saved: fix it to test.";
  const first = upTo.find((s) => problems.some((p) => p.step === s.name));
  if (first) {
    const p = problems.find((x) => x.step === first.name)!;
    // A prop's value the server refuses blocks a test as it blocks a deploy (StepProps.tsx).
    if (p.prop !== undefined) return `Step ${first.name}: ${p.message}. Fix it to test.`;
    return `The code of step ${first.name} does not parse${p.line !== null ? ` (line ${p.line})` : ""}: fix it to test.`;
  }
  return null;
}

export interface StepTestView {
  headActions: ReactNode;
  result: ReactNode;
  stepValues: Record<string, unknown>;
  onRun: () => void;
}

export function useBuilderTests(p: {
  tests: StepTests;
  steps: readonly EditStep[];
  problems: readonly StepProblem[];
  flush: () => Promise<boolean>;
}) {
  const { tests, steps, problems } = p;
  // Results tested before the builder read its steps again (new keys) go to their steps.
  const initial = useRef(steps);
  const { adopt } = tests;
  useEffect(() => adopt(initial.current), [adopt]);

  const resolved = tests.event.resolved;
  const current = resolved.ok ? resolved.key : null;
  const stale: Staleness[] = steps.map((s, i) => {
    const r = tests.results.get(s.key);
    return r ? staleness(r, steps, i, current) : null;
  });
  const values = stepValues(tests.results, steps, resolved.ok ? resolved.event : {});
  const reasonFor = (index: number | null) =>
    blockedReason(steps, problems, index) ?? (resolved.ok ? null : resolved.reason);
  const run = (index: number | null) => {
    if (tests.running || reasonFor(index)) return;
    void tests.start(steps, index, p.flush);
  };

  const panel = (
    <TestPanel
      tests={tests}
      blocked={blockedReason(steps, problems, null)}
      staleSteps={steps.filter((_, i) => stale[i]).map((s) => s.name)}
      onTestWorkflow={() => run(null)}
    />
  );

  const forStep = (index: number): StepTestView => {
    const s = steps[index]!;
    const reason = reasonFor(index);
    const result = tests.results.get(s.key);
    const busy = tests.running?.kind === "step" && tests.running.key === s.key;
    return {
      stepValues: values,
      onRun: () => run(index),
      headActions: (
        <button
          type="button"
          className="btn small"
          aria-label={`${busy ? "Testing" : "Test"} step ${s.name}`}
          title={reason ?? "Run the draft up to this step on the test event (Ctrl+Enter in its code)"}
          disabled={tests.running !== null || reason !== null}
          aria-describedby={reason && !tests.running ? testReasonId(tests.workflowId) : undefined}
          onClick={() => run(index)}
        >
          {busy ? "Testing…" : "Test step"}
        </button>
      ),
      result: result ? <StepTestResult name={s.name} result={result} stale={stale[index] ?? null} /> : null,
    };
  };

  return { panel, forStep };
}
