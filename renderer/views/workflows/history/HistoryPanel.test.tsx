// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../../../shared/resources/index.js";
import { FakeBridge, makeWorkflow } from "../../../test/fakeBridge.js";
import { renderWith } from "../../../test/render.js";
import { WorkflowDetail } from "../WorkflowDetail.js";

/** Three versions: 1 created, 2 changes step a's code and adds b, 3 renames the workflow. */
function bridgeWithHistory() {
  const bridge = new FakeBridge();
  const v1: Workflow = makeWorkflow(1, { version: 1, steps: [{ id: "s_0", name: "a", code: "const x = 1;\nreturn x;\n" }] });
  const v2: Workflow = {
    ...v1,
    version: 2,
    steps: [
      { id: "s_0", name: "a", code: "const x = 2;\nreturn x;\n" },
      { id: "s_1", name: "b", code: "return 'b';\n" },
    ],
  };
  const v3: Workflow = { ...v2, version: 3, name: "renamed" };
  bridge.history.record(v1, "create");
  bridge.history.record(v2, "draft", "x is two");
  bridge.history.record(v3, "update", null);
  bridge.workflows = [v3];
  return bridge;
}

async function openHistory(bridge: FakeBridge) {
  renderWith(bridge, <WorkflowDetail id="p_wf1" />);
  await userEvent.click(await screen.findByRole("tab", { name: "History" }));
  return screen.findByRole("table", { name: /Versions of renamed/ });
}

describe("a workflow's history", () => {
  it("lists the versions and diffs any two", async () => {
    const bridge = bridgeWithHistory();
    const table = await openHistory(bridge);
    const rows = within(table).getAllByRole("row").slice(1);
    expect(rows.map((r) => r.querySelector("th")!.textContent)).toEqual(["3 current", "2", "1"]);
    expect(rows[1]!.textContent).toContain("x is two");
    expect(rows[1]!.textContent).toContain("deployed from a draft");
    expect(rows[0]!.textContent).toContain("No message");

    // By default the two newest: only the name changed.
    const compare = await screen.findByRole("region", { name: "Changes from version 2 (A) to version 3 (B)" });
    expect(await within(compare).findByRole("table", { name: /Settings changed/ })).toBeTruthy();
    expect(within(compare).getByRole("row", { name: /name workflow-1 renamed/ })).toBeTruthy();

    await userEvent.click(screen.getByRole("radio", { name: "Version 1 as A" }));
    const diff = await screen.findByRole("region", { name: "Changes from version 1 (A) to version 3 (B)" });
    const a = await within(diff).findByRole("region", { name: "Step a: changed" });
    const lines = [...a.querySelectorAll(".diff-line")].map((l) => [l.className.replace("diff-line ", ""), l.textContent]);
    expect(lines).toEqual([
      ["diff-hunk", "@@ -1,2 +1,2 @@\n"],
      ["diff-del", "-const x = 1;\n"],
      ["diff-add", "+const x = 2;\n"],
      ["diff-same", " return x;\n"],
    ]);
    expect(within(diff).getByRole("region", { name: "Step b: added" }).textContent).toContain("+return 'b';");
  });

  it("restores a version after confirming, with the version it was made against", async () => {
    const bridge = bridgeWithHistory();
    await openHistory(bridge);
    await userEvent.click(screen.getByRole("button", { name: "Restore version 1" }));
    const dialog = await screen.findByRole("dialog", { name: "Restore version 1?" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Restore version 1" }));
    await waitFor(() => expect(bridge.callsOf("restoreWorkflowVersion")).toEqual([["p_wf1", 1, { base_version: 3 }]]));
    const table = await screen.findByRole("table", { name: /Versions of workflow-1/ });
    await waitFor(() => expect(within(table).getAllByRole("row")).toHaveLength(5));
    expect(within(table).getAllByRole("row")[1]!.textContent).toContain("restored from version 1");
    expect(bridge.workflows[0]!.steps.map((s) => s.name)).toEqual(["a"]);
  });

  it("explains a restore refused because the workflow changed meanwhile", async () => {
    const bridge = bridgeWithHistory();
    await openHistory(bridge);
    bridge.workflows[0] = { ...bridge.workflows[0]!, version: 4 };
    await userEvent.click(screen.getByRole("button", { name: "Restore version 2" }));
    await userEvent.click(
      within(await screen.findByRole("dialog", { name: "Restore version 2?" })).getByRole("button", { name: "Restore version 2" }),
    );
    expect(await screen.findByText(/Nothing was restored: the workflow changed since this page loaded version 3/)).toBeTruthy();
    expect(bridge.workflows[0]!.version).toBe(4);
  });
});
