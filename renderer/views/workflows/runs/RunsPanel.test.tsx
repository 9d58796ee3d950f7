// @vitest-environment happy-dom
import { act, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, makeWorkflow } from "../../../test/fakeBridge.js";
import { failedRun, makeRun, makeStep } from "../../../test/fakeRuns.js";
import { renderWith } from "../../../test/render.js";
import { WorkflowDetail } from "../WorkflowDetail.js";

const WF = "p_wf1";

async function openRunsTab(runs = [makeRun(1), failedRun(2)]) {
  const bridge = new FakeBridge();
  bridge.workflows = [makeWorkflow(1, { http_response: "immediate" })];
  bridge.runs.set(WF, [...runs].reverse());
  renderWith(bridge, <WorkflowDetail id={WF} />);
  await userEvent.click(await screen.findByRole("tab", { name: "Runs" }));
  await waitFor(() => expect(bridge.runWatchOf(WF)).toBeDefined());
  return bridge;
}

const grid = () => screen.getByRole("grid", { name: /Runs of p_wf1/ });
/** Each run row's cells as text: status, trigger, started, duration. */
const rowTexts = () =>
  within(grid())
    .getAllByRole("row")
    .slice(1)
    .map((r) =>
      within(r)
        .getAllByRole("gridcell")
        .map((c) => c.textContent),
    );
const inspector = (id: string) => screen.getByRole("complementary", { name: `Run ${id}` });

describe("the Runs tab", () => {
  it("lists runs newest first, and shows a run the live feed reports as it starts and ends", async () => {
    const bridge = await openRunsTab();
    await waitFor(() => expect(rowTexts()).toHaveLength(2));
    expect(rowTexts().map((r) => [r[0], r[1], r[3]])).toEqual([
      ["Error", "HTTP request", "40 ms"],
      ["Success", "HTTP request", "40 ms"],
    ]);
    expect(screen.getByText("2 runs")).toBeTruthy();

    const started = makeRun(3, {
      status: "running",
      ended_at_ms: null,
      duration_ms: null,
      started_at_ms: Date.now(),
    });
    act(() => bridge.pushRuns(bridge.runWatchOf(WF)!, [started]));
    expect(rowTexts()[0]![0]).toBe("Running");
    expect(rowTexts()[0]![3]).toMatch(/so far$/);
    act(() =>
      bridge.pushRuns(bridge.runWatchOf(WF)!, [{ ...started, status: "success", duration_ms: 1250 }]),
    );
    expect(rowTexts()[0]).toEqual(["Success", "HTTP request", "now", "1.3 s"]);
    expect(bridge.callsOf("listWorkflowRuns")).toHaveLength(1);
  });

  it("opens a failed run on its failed step: logs with their level, the error and its stack", async () => {
    await openRunsTab();
    await waitFor(() => expect(rowTexts()).toHaveLength(2));
    await userEvent.click(within(grid()).getAllByRole("row")[1]!);
    const pane = inspector("r_run002");
    expect(within(pane).getByRole("tab", { selected: true }).textContent).toContain("b");
    expect(within(pane).getByRole("note").textContent).toContain("Step b failed: no refunds here");
    const error = within(pane).getByRole("region", { name: "Error of step b" });
    expect(error.textContent).toContain("Error: no refunds here");
    expect(within(error).getByLabelText("Stack of step b").textContent).toContain("at b (step b:2:11)");
    const logs = within(pane).getByRole("region", { name: "Logs of step b" });
    expect(
      within(logs)
        .getAllByRole("listitem")
        .map((li) => li.textContent?.replace(/^[\d:.]+/, "")),
    ).toEqual(["infocharging the card", "warnamount is negative"]);

    // Step a: its return value and exports, in JSON trees.
    await userEvent.click(within(pane).getByRole("tab", { name: /a/ }));
    expect(within(pane).getByRole("tree", { name: "Return value of step a" }).textContent).toContain(
      "checked",
    );
    expect(within(pane).getByRole("tree", { name: "Exports of step a" }).textContent).toContain("total");
    expect(within(pane).getByRole("tree", { name: "Trigger event" }).textContent).toContain("POST");
  });

  it("moves with the arrow keys, opens with Enter and closes with Escape; steps follow the arrows too", async () => {
    await openRunsTab();
    await waitFor(() => expect(rowTexts()).toHaveLength(2));
    grid().focus();
    await userEvent.keyboard("{ArrowDown}{ArrowDown}");
    expect(screen.queryByRole("complementary")).toBeNull();
    await userEvent.keyboard("{Enter}");
    expect(inspector("r_run001")).toBeTruthy();
    await userEvent.keyboard("{ArrowUp}{Enter}");
    const pane = inspector("r_run002");
    within(pane).getByRole("tab", { selected: true }).focus();
    await userEvent.keyboard("{ArrowUp}");
    expect(within(pane).getByRole("tab", { selected: true }).textContent).toContain("a");
    expect(document.activeElement?.textContent).toContain("a");
    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("complementary")).toBeNull();
  });

  it("filters by status on the server, and shows a live run only once it has that status", async () => {
    const bridge = await openRunsTab();
    await waitFor(() => expect(rowTexts()).toHaveLength(2));
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Status" }), "Error");
    await waitFor(() => expect(rowTexts().map((r) => r[0])).toEqual(["Error"]));
    expect(bridge.callsOf("listWorkflowRuns").at(-1)).toEqual([WF, { limit: 50, status: "error" }]);
    const run = makeRun(5, { status: "running", ended_at_ms: null, duration_ms: null });
    act(() => bridge.pushRuns(bridge.runWatchOf(WF)!, [run]));
    expect(rowTexts()).toHaveLength(1);
    act(() => bridge.pushRuns(bridge.runWatchOf(WF)!, [{ ...run, status: "error" }]));
    expect(rowTexts().map((r) => r[0])).toEqual(["Error", "Error"]);
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Status" }), "Cancelled");
    await waitFor(() => expect(screen.getByText("No cancelled run.")).toBeTruthy());
  });

  it("re-runs from a step: the new run opens, the steps before it reused", async () => {
    const bridge = await openRunsTab([makeRun(1), failedRun(2, { version: 3 })]);
    await waitFor(() => expect(rowTexts()).toHaveLength(2));
    await userEvent.click(within(grid()).getAllByRole("row")[1]!);
    // The run names the workflow's version it ran.
    expect(within(inspector("r_run002")).getByText("version 3")).toBeTruthy();
    await userEvent.click(
      within(inspector("r_run002")).getByRole("button", { name: "Re-run from this step" }),
    );
    const pane = await screen.findByRole("complementary", { name: "Run r_run901" });
    expect(bridge.callsOf("rerunWorkflowRun")).toEqual([[WF, "r_run002", { from_step: "b" }]]);
    expect(within(pane).getByText("Re-run of r_run002 from b")).toBeTruthy();
    const tabs = within(pane)
      .getAllByRole("tab")
      .map((t) => t.textContent);
    expect(tabs).toEqual([expect.stringMatching(/a.*Reused/), expect.stringMatching(/b.*Success/)]);
    // It opens on the step it started from.
    expect(within(pane).getByRole("tab", { selected: true }).textContent).toContain("b");
    expect(rowTexts()[0]![1]).toBe("Re-run of r_run002 from b");

    await userEvent.click(within(pane).getByRole("button", { name: "Re-run" }));
    await screen.findByRole("complementary", { name: "Run r_run902" });
    expect(bridge.callsOf("rerunWorkflowRun").at(-1)).toEqual([WF, "r_run901", {}]);
  });

  it("says why when a re-run is refused, and keeps the run open", async () => {
    const bridge = await openRunsTab();
    await waitFor(() => expect(rowTexts()).toHaveLength(2));
    await userEvent.click(within(grid()).getAllByRole("row")[1]!);
    bridge.fail("rerunWorkflowRun", {
      status: 429,
      code: "quota_exceeded",
      message: "Daily invocations used up.",
    });
    await userEvent.click(within(inspector("r_run002")).getByRole("button", { name: "Re-run" }));
    const alert = await within(inspector("r_run002")).findByRole("alert");
    expect(alert.textContent).toContain("Daily invocations used up.");
  });

  it("reads a run whole: an event the list cut shows in full, and the HTTP caller's answer", async () => {
    const big = makeRun(7, {
      event: { body: { note: "x".repeat(2000) } },
      response: { status: 201, headers: { "content-type": "application/json" }, body: { ok: true } },
    });
    const bridge = await openRunsTab([big]);
    await waitFor(() => expect(rowTexts()).toHaveLength(1));
    await userEvent.click(within(grid()).getAllByRole("row")[1]!);
    const pane = inspector("r_run007");
    await waitFor(() =>
      expect(within(pane).getByRole("tree", { name: "Trigger event" }).textContent).toContain("xxxx"),
    );
    expect(bridge.callsOf("getWorkflowRun")).toEqual([[WF, "r_run007"]]);
    expect(within(pane).getByText("Answered")).toBeTruthy();
    expect(within(pane).getByText("201")).toBeTruthy();
    expect(within(pane).getByRole("tree", { name: "Response body" }).textContent).toContain("ok");
  });

  it("follows an open run that fails live to its failed step", async () => {
    const running = makeRun(4, {
      status: "running",
      ended_at_ms: null,
      duration_ms: null,
      steps: [makeStep("a", { status: "running" }), makeStep("b", { status: "pending" })],
    });
    const bridge = await openRunsTab([running]);
    await waitFor(() => expect(rowTexts()).toHaveLength(1));
    await userEvent.click(within(grid()).getAllByRole("row")[1]!);
    expect(within(inspector("r_run004")).getByRole("tab", { selected: true }).textContent).toContain("a");
    const failed = failedRun(4);
    bridge.runs.set(WF, [failed]);
    act(() => bridge.pushRuns(bridge.runWatchOf(WF)!, [failed]));
    await waitFor(() =>
      expect(within(inspector("r_run004")).getByRole("tab", { selected: true }).textContent).toContain("b"),
    );
  });

  it("on a server without runs, says so instead of failing", async () => {
    const bridge = new FakeBridge();
    bridge.workflows = [makeWorkflow(1)];
    bridge.fail("listWorkflowRuns", {
      status: 404,
      code: "not_found",
      message: "Route GET:/v1/workflows/p_wf1/runs not found",
    });
    renderWith(bridge, <WorkflowDetail id={WF} />);
    await userEvent.click(await screen.findByRole("tab", { name: "Runs" }));
    expect(await screen.findByRole("heading", { name: "This server keeps no runs" })).toBeTruthy();
    expect(screen.queryByRole("grid")).toBeNull();
  });

  it("says so when the live feed is refused", async () => {
    const bridge = await openRunsTab();
    act(() =>
      bridge.pushState({
        watchId: bridge.runWatchOf(WF)!,
        state: "unauthorized",
        status: 401,
        message: "The API key was refused.",
      }),
    );
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("The live feed was refused");
    expect(screen.getByText("Key refused")).toBeTruthy();
  });
});
