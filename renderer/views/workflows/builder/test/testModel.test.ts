import { describe, expect, it } from "vitest";
import type { Run } from "../../../../../shared/resources/index.js";
import { makeRun, makeStep } from "../../../../test/fakeRuns.js";
import type { EditStep } from "../draftModel.js";
import {
  adoptResults,
  eventKey,
  mergeRun,
  planStepTest,
  staleness,
  stalenessText,
  stepContent,
  stepValues,
  type SentTest,
} from "./testModel.js";

const steps = (...codes: [string, string][]): EditStep[] =>
  codes.map(([name, code]) => ({ key: `k_${name}`, name, code }));
const sentOf = (s: EditStep[], event: unknown, toIndex: number | null = null): SentTest => ({
  steps: s.map((x) => ({ key: x.key, name: x.name, content: stepContent(x) })),
  eventKey: eventKey(event),
  toIndex,
});
const EV = { n: 1 };
const three = steps(["a", "return 1"], ["b", "return 2"], ["c", "return 3"]);
const ran = (over: Partial<Run> = {}) =>
  makeRun(5, {
    id: "r_t1",
    steps: [
      makeStep("a", { return_value: { x: 1 } }),
      makeStep("b", { return_value: 2, exports: { total: 9 } }),
      makeStep("c", { return_value: 3 }),
    ],
    response: { status: 201, headers: {}, body: "ok" },
    ...over,
  });

describe("test results in the builder", () => {
  it("gives each step its result; the run's answer goes to the last step it ran", () => {
    const r = mergeRun(new Map(), ran(), sentOf(three, EV));
    expect([...r.keys()]).toEqual(["k_a", "k_b", "k_c"]);
    expect(r.get("k_b")!.step.exports).toEqual({ total: 9 });
    expect(r.get("k_c")!.response?.status).toBe(201);
    expect(r.get("k_a")!.response).toBeUndefined();
  });

  it("keeps results of steps a test up to a step did not reach, but not of steps an error skipped", () => {
    const first = mergeRun(new Map(), ran(), sentOf(three, EV));
    const upToA = mergeRun(
      first,
      ran({
        id: "r_t2",
        steps: [makeStep("a"), makeStep("b", { status: "skipped" }), makeStep("c", { status: "skipped" })],
      }),
      sentOf(three, EV, 0),
    );
    expect(upToA.get("k_a")!.runId).toBe("r_t2");
    expect(upToA.get("k_b")!.runId).toBe("r_t1");
    const failed = mergeRun(
      first,
      ran({
        id: "r_t3",
        steps: [
          makeStep("a", { status: "error" }),
          makeStep("b", { status: "skipped" }),
          makeStep("c", { status: "skipped" }),
        ],
      }),
      sentOf(three, EV),
    );
    expect(failed.get("k_c")!.step.status).toBe("skipped");
    // A reused step keeps the result it had (with its logs).
    const reused = mergeRun(
      first,
      ran({ id: "r_t4", steps: [makeStep("a", { status: "reused" }), makeStep("b"), makeStep("c")] }),
      sentOf(three, EV),
    );
    expect(reused.get("k_a")!.runId).toBe("r_t1");
  });

  it("marks results stale when a step's code, an earlier step, the order or the event changes", () => {
    const r = mergeRun(new Map(), ran(), sentOf(three, EV));
    const key = eventKey(EV);
    const at = (s: EditStep[], i: number, ev: string | null = key) => staleness(r.get(s[i]!.key)!, s, i, ev);
    expect([0, 1, 2].map((i) => at(three, i))).toEqual([null, null, null]);
    const editedB = three.map((s) => (s.name === "b" ? { ...s, code: "return 22" } : s));
    expect([0, 1, 2].map((i) => at(editedB, i))).toEqual([
      null,
      { kind: "own" },
      { kind: "earlier", step: "b" },
    ]);
    expect(stalenessText({ kind: "earlier", step: "b" })).toBe("Stale: step b changed since this test.");
    const renamedA = three.map((s) => (s.name === "a" ? { ...s, name: "first" } : s));
    expect([0, 1].map((i) => at(renamedA, i))).toEqual([null, { kind: "order" }]);
    const swapped = [three[1]!, three[0]!, three[2]!];
    expect(staleness(r.get("k_b")!, swapped, 0, key)).toEqual({ kind: "order" });
    expect(at(three, 0, eventKey({ n: 2 }))).toEqual({ kind: "event" });
    // Typed JSON that does not parse yet leaves the event out.
    expect(at(three, 0, null)).toBeNull();
  });

  it("reuses earlier results for Test step only while the step before has a fresh, completed result", () => {
    const key = eventKey(EV);
    expect(planStepTest(new Map(), three, 2, key)).toEqual({ to_step: "c" });
    const r = mergeRun(new Map(), ran(), sentOf(three, EV));
    expect(planStepTest(r, three, 2, key)).toEqual({ to_step: "c", from_step: "c", run_id: "r_t1" });
    expect(planStepTest(r, three, 0, key)).toEqual({ to_step: "a" });
    const editedA = three.map((s) => (s.name === "a" ? { ...s, code: "return 0" } : s));
    expect(planStepTest(r, editedA, 2, key)).toEqual({ to_step: "c" });
    expect(planStepTest(r, three, 2, eventKey({ other: true }))).toEqual({ to_step: "c" });
    const failedB = mergeRun(
      new Map(),
      ran({
        steps: [makeStep("a"), makeStep("b", { status: "error" }), makeStep("c", { status: "skipped" })],
      }),
      sentOf(three, EV),
    );
    expect(planStepTest(failedB, three, 2, key)).toEqual({ to_step: "c" });
  });

  it("gives results to the steps read again under new keys, by the name they were tested under", () => {
    const r = mergeRun(new Map(), ran(), sentOf(three, EV));
    const again = three.map((s) => ({ ...s, key: `new_${s.name}` }));
    const adopted = adoptResults(r, again);
    expect([...adopted.keys()].sort()).toEqual(["new_a", "new_b", "new_c"]);
    expect(adoptResults(adopted, again)).toBe(adopted);
  });

  it("completes steps.<name> with the return value and exports of each step's latest result", () => {
    const r = mergeRun(new Map(), ran(), sentOf(three, EV));
    expect(stepValues(r, three, EV)).toEqual({
      trigger: { event: EV },
      a: { $return_value: { x: 1 } },
      b: { $return_value: 2, total: 9 },
      c: { $return_value: 3 },
    });
  });
});
