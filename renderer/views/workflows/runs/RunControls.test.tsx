// @vitest-environment happy-dom
import { act, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Run } from "../../../../shared/resources/index.js";
import { FakeBridge, makeWorkflow } from "../../../test/fakeBridge.js";
import { failedRun, makeRun, makeStep, RUN_T0 } from "../../../test/fakeRuns.js";
import { renderWith } from "../../../test/render.js";
import { WorkflowDetail } from "../WorkflowDetail.js";

const WF = "p_wf1";

async function openRunsTab(runs: Run[]) {
  const bridge = new FakeBridge();
  bridge.workflows = [makeWorkflow(1, { http_response: "immediate" })];
  bridge.runs.set(WF, [...runs].reverse());
  renderWith(bridge, <WorkflowDetail id={WF} />);
  await userEvent.click(await screen.findByRole("tab", { name: "Runs" }));
  await waitFor(() => expect(bridge.runWatchOf(WF)).toBeDefined());
  await waitFor(() => expect(rows()).toHaveLength(runs.length));
  return bridge;
}

const grid = () => screen.getByRole("grid", { name: /Runs of p_wf1/ });
const rows = () => within(grid()).getAllByRole("row").slice(1);
const statusCell = (i: number) => within(rows()[i]!).getAllByRole("gridcell")[0]!.textContent;
const inspector = (id: string) => screen.getByRole("complementary", { name: `Run ${id}` });

/** Attempt 1 failed at step b; attempt 2 is due `inMs` from now (`attempt` counts those made). */
function retryingRun(n: number, inMs: number): Run {
  return failedRun(n, {
    status: "retrying",
    attempt: 1,
    ended_at_ms: null,
    duration_ms: null,
    next_attempt_at_ms: Date.now() + inMs,
    attempts: [
      {
        attempt: 1,
        started_at_ms: RUN_T0,
        ended_at_ms: RUN_T0 + 1250,
        status: "error",
        error: { code: "Error", message: "no refunds here", cellId: "c_b", step: "b" },
      },
    ],
  });
}

describe("runs that wait: retrying, delayed, cancelled", () => {
  it("says when a retrying run tries again and when a delayed one resumes", async () => {
    const delayed = makeRun(2, {
      status: "delayed",
      ended_at_ms: null,
      duration_ms: null,
      resume_at_ms: Date.now() + 2 * 3_600_000 + 5000,
      steps: [makeStep("a"), makeStep("b", { status: "pending", started_at_ms: null, duration_ms: null })],
    });
    await openRunsTab([retryingRun(1, 4500), delayed]);
    expect(statusCell(0)).toBe("Delayed · resumes in 2 h");
    expect(statusCell(1)).toMatch(/^Retrying · next attempt in [45] s$/);
    // The exact time, on hover.
    expect(
      within(rows()[1]!)
        .getByText(/next attempt in/)
        .getAttribute("title"),
    ).toMatch(/^[A-Z][a-z]{2} \d{1,2}( \d{4})?, \d\d:\d\d:\d\d$/);
  });

  it("shows a retried run's attempts, and cancels it from the inspector", async () => {
    const bridge = await openRunsTab([makeRun(1), retryingRun(2, 30_000)]);
    await userEvent.click(rows()[0]!);
    const pane = inspector("r_run002");
    expect(within(pane).getByText(/\(next attempt in (29|30) s\)/)).toBeTruthy();
    const table = within(pane).getByRole("table");
    expect(
      within(table)
        .getAllByRole("row")
        .map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent)),
    ).toEqual([
      ["Attempt", "Started", "Took", "Outcome", "Error"],
      ["1", expect.any(String), "1.3 s", "Error", "Step b: no refunds here"],
    ]);

    await userEvent.click(within(pane).getByRole("button", { name: "Cancel run" }));
    await waitFor(() => expect(statusCell(0)).toBe("Cancelled"));
    expect(bridge.callsOf("cancelWorkflowRun")).toEqual([[WF, "r_run002"]]);
    expect(within(inspector("r_run002")).getByRole("heading", { name: /^Run/ }).textContent).toContain(
      "Cancelled",
    );
    expect(within(inspector("r_run002")).queryByRole("button", { name: "Cancel run" })).toBeNull();
  });

  it("offers Cancel only to runs that wait", async () => {
    await openRunsTab([makeRun(1), makeRun(2, { status: "queued", started_at_ms: null, ended_at_ms: null })]);
    await userEvent.click(rows()[0]!);
    expect(within(inspector("r_run002")).getByRole("button", { name: "Cancel run" })).toBeTruthy();
    await userEvent.click(rows()[1]!);
    expect(within(inspector("r_run001")).queryByRole("button", { name: "Cancel run" })).toBeNull();
  });

  it("says clearly when the run already started or ended: a 409", async () => {
    const bridge = await openRunsTab([retryingRun(1, 30_000)]);
    await userEvent.click(rows()[0]!);
    // It started its next attempt on the server before the feed said so.
    bridge.runs.set(WF, [{ ...bridge.runs.get(WF)![0]!, status: "running" }]);
    await userEvent.click(within(inspector("r_run001")).getByRole("button", { name: "Cancel run" }));
    const alert = await within(inspector("r_run001")).findByRole("alert");
    expect(alert.textContent).toContain("The run was not cancelled");
    expect(alert.textContent).toContain("It has already started or ended, so it can no longer be cancelled.");
    // The feed then reports it running: Cancel goes, the row follows.
    act(() =>
      bridge.pushRuns(bridge.runWatchOf(WF)!, [
        { ...retryingRun(1, 0), status: "running", attempt: 2, next_attempt_at_ms: null },
      ]),
    );
    expect(statusCell(0)).toBe("Running · attempt 2");
    expect(within(inspector("r_run001")).queryByRole("button", { name: "Cancel run" })).toBeNull();
  });
});
