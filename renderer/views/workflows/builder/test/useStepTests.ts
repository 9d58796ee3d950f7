/**
 * Test runs from the builder: "Test workflow" and "Test step", on the chosen event. A test runs
 * the draft, so what is waiting to be saved is saved first (the test runs what is on screen);
 * then `POST /workflows/{id}/test` (answered once the run ended, or as it is after ~60 s: then
 * it is followed until it ends). Each step keeps the result of the latest test that ran it.
 * The state lives above the builder's steps, so a deploy or a reload of the steps keeps it.
 */
import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useRef, useState } from "react";
import { ENDED_RUN_STATUSES, type Run, type TestRunBody } from "../../../../../shared/resources/index.js";
import { BridgeCallError, call } from "../../../../state/bridge.js";
import type { EditStep } from "../draftModel.js";
import { testRunsKey } from "./eventChoices.js";
import { adoptResults, mergeRun, planStepTest, stepContent, type StepResult } from "./testModel.js";
import { useTestEvent } from "./useTestEvent.js";

/** How often a test still going after the server's wait is read again. */
export const FOLLOW_MS = 1000;

export type Running = { kind: "workflow" } | { kind: "step"; key: string } | null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function useStepTests(workflowId: string) {
  const qc = useQueryClient();
  const event = useTestEvent(workflowId);
  const [results, setResults] = useState<ReadonlyMap<string, StepResult>>(new Map());
  const [running, setRunning] = useState<Running>(null);
  const [lastRun, setLastRun] = useState<Run | null>(null);
  const [error, setError] = useState<unknown>(null);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => void (alive.current = false);
  }, []);

  /** Gives the results to the steps as the builder has them after reading them again (new keys). */
  const adopt = useCallback((steps: readonly EditStep[]) => setResults((r) => adoptResults(r, steps)), []);

  /** The run once it has ended (a test the server answered 202 for is read until then). */
  const follow = useCallback(
    async (run: Run): Promise<Run> => {
      let r = run;
      while (!ENDED_RUN_STATUSES.includes(r.status) && alive.current) {
        await sleep(FOLLOW_MS);
        r = await call("getWorkflowRun", workflowId, r.id);
      }
      return r;
    },
    [workflowId],
  );

  /**
   * Tests the whole workflow (`index` null) or up to the step at `index`. `save` saves what is
   * waiting and says whether the draft now holds what is on screen.
   */
  const start = async (steps: readonly EditStep[], index: number | null, save: () => Promise<boolean>) => {
    const ev = event.resolved;
    if (running || !ev.ok) return;
    setRunning(index === null ? { kind: "workflow" } : { kind: "step", key: steps[index]!.key });
    setError(null);
    try {
      if (!(await save()))
        throw new Error("The draft could not be saved, so the test did not run. Try again.");
      const sent = {
        steps: steps.map((s) => ({ key: s.key, name: s.name, content: stepContent(s) })),
        eventKey: ev.key,
        toIndex: index,
      };
      const plan: TestRunBody = index === null ? {} : planStepTest(results, steps, index, ev.key);
      let run: Run;
      try {
        run = await call("testWorkflow", workflowId, { event: ev.event, ...plan });
      } catch (err) {
        // The run whose results were to be reused is gone (the newest 50 are kept): from the start.
        if (!(plan.run_id && err instanceof BridgeCallError && err.status === 404)) throw err;
        run = await call("testWorkflow", workflowId, { event: ev.event, to_step: plan.to_step });
      }
      run = await follow(run);
      if (!alive.current) return;
      setResults((r) => mergeRun(r, run, sent));
      setLastRun(run);
      void qc.invalidateQueries({ queryKey: testRunsKey(workflowId) });
    } catch (err) {
      if (alive.current) setError(err);
    } finally {
      if (alive.current) setRunning(null);
    }
  };

  return { workflowId, event, results, running, lastRun, error, start, adopt };
}

export type StepTests = ReturnType<typeof useStepTests>;
