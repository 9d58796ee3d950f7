// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { RunComparison } from "../../../../shared/resources/index.js";
import { FakeBridge, makeWorkflow } from "../../../test/fakeBridge.js";
import { failedRun, makeRun, RUN_T0 } from "../../../test/fakeRuns.js";
import { renderWith } from "../../../test/render.js";
import { WorkflowDetail } from "../WorkflowDetail.js";

const WF = "p_wf1";

/** r_run002 failed at step b after a deploy; r_run001 was the last good run. */
const COMPARISON: RunComparison = {
  run: {
    id: "r_run002",
    status: "error",
    test: false,
    version: 2,
    code_of: "version",
    started_at_ms: RUN_T0 + 2000,
    duration_ms: 1250,
    error: null,
  },
  with: {
    id: "r_run001",
    status: "success",
    test: false,
    version: 1,
    code_of: "version",
    started_at_ms: RUN_T0 + 1000,
    duration_ms: 40,
    error: null,
  },
  steps: [
    {
      name: "a",
      run: { status: "success", duration_ms: 12, position: 1 },
      with: { status: "success", duration_ms: 10, position: 1 },
      status_changed: false,
      code_changed: false,
      code_diff: null,
      differing_paths: ["$return_value.items[2].id", "exports.total"],
      paths_truncated: false,
    },
    {
      name: "b",
      run: { status: "error", duration_ms: 3, position: 2 },
      with: { status: "success", duration_ms: 2, position: 2 },
      status_changed: true,
      code_changed: true,
      code_diff:
        "--- b in r_run001 (version 1)\n+++ b in r_run002 (version 2)\n@@ -1 +1 @@\n-return 1;\n+throw new Error();\n",
      differing_paths: null,
      paths_truncated: false,
    },
    {
      name: "c",
      run: null,
      with: { status: "success", duration_ms: 1, position: 3 },
      status_changed: true,
      code_changed: true,
      code_diff: "--- c in r_run001 (version 1)\n+++ c in r_run002 (version 2)\n@@ -1 +0,0 @@\n-return 3;\n",
      differing_paths: null,
      paths_truncated: false,
    },
  ],
};

async function openInspector(bridge: FakeBridge) {
  bridge.workflows = [makeWorkflow(1)];
  bridge.runs.set(WF, [failedRun(2, { version: 2 }), makeRun(1, { version: 1 })]);
  renderWith(bridge, <WorkflowDetail id={WF} />);
  await userEvent.click(await screen.findByRole("tab", { name: "Runs" }));
  const grid = await screen.findByRole("grid", { name: /Runs of p_wf1/ });
  await waitFor(() => expect(within(grid).getAllByRole("row")).toHaveLength(3));
  await userEvent.click(within(grid).getAllByRole("row")[1]!);
  return screen.getByRole("complementary", { name: "Run r_run002" });
}

describe("comparing a run with the last good run", () => {
  it("shows both runs' steps, the code that changed and the values that differ", async () => {
    const bridge = new FakeBridge();
    bridge.comparisons.set("r_run002", COMPARISON);
    const pane = await openInspector(bridge);
    await userEvent.click(within(pane).getByRole("button", { name: "Compare with the last good run" }));
    const dialog = await screen.findByRole("dialog", { name: "Compare with the last good run" });
    const table = await within(dialog).findByRole("table");
    expect(bridge.callsOf("compareWorkflowRuns")).toEqual([[WF, "r_run002", "last_success"]]);
    expect(
      within(table)
        .getAllByRole("row")
        .map((r) => [...r.querySelectorAll("th, td")].map((c) => c.textContent)),
    ).toEqual([
      ["Step", "This run", "Last good run", "Code", "Values that differ"],
      ["a", "Success 12 ms", "Success 10 ms", "same", "$return_value.items[2].idexports.total"],
      ["b", "Error 3 ms", "Success 2 ms", "changed", "not compared"],
      ["c", "not in this run", "Success 1 ms", "removed", "not compared"],
    ]);
    expect(within(dialog).getByText("This run", { selector: "dt" }).nextElementSibling!.textContent).toMatch(
      /^Error r_run002, version 2/,
    );
    expect(
      within(dialog).getByText("Last good run", { selector: "dt" }).nextElementSibling!.textContent,
    ).toMatch(/^Success r_run001, version 1/);
    const diff = within(dialog).getByLabelText("Changes of step b's code since the last good run");
    expect([...diff.querySelectorAll(".diff-add")].map((l) => l.textContent)).toEqual([
      "+throw new Error();\n",
    ]);
    expect([...diff.querySelectorAll(".diff-del")].map((l) => l.textContent)).toEqual(["-return 1;\n"]);
    expect(within(dialog).getByRole("region", { name: "Code of step c" }).textContent).toContain(
      "only in the last good run",
    );
    expect(within(dialog).queryByRole("region", { name: "Code of step a" })).toBeNull();

    await userEvent.keyboard("{Escape}");
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("says so when there is no other good run", async () => {
    const pane = await openInspector(new FakeBridge());
    await userEvent.click(within(pane).getByRole("button", { name: "Compare with the last good run" }));
    const dialog = await screen.findByRole("dialog", { name: "Compare with the last good run" });
    expect((await within(dialog).findByRole("status")).textContent).toBe(
      "This workflow has no other successful run to compare this run with yet.",
    );
    expect(within(dialog).queryByRole("alert")).toBeNull();
  });
});
