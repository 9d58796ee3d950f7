// @vitest-environment happy-dom
import { screen, waitFor } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, makeWorkflow } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { WorkflowDetail } from "./WorkflowDetail.js";

async function openSettings(over: Parameters<typeof makeWorkflow>[1] = { http_response: "immediate" }) {
  const bridge = new FakeBridge();
  bridge.workflows = [makeWorkflow(1, over)];
  renderWith(bridge, <WorkflowDetail id="p_wf1" />);
  await userEvent.click(await screen.findByRole("tab", { name: "Settings" }));
  return bridge;
}

describe("a workflow's settings", () => {
  it("shows how HTTP callers are answered and changes it", async () => {
    const bridge = await openSettings();
    const select = screen.getByRole("combobox", { name: "Answer HTTP callers" });
    expect((select as HTMLSelectElement).selectedOptions[0]?.textContent).toBe("At once");
    expect(select.getAttribute("aria-describedby")).toBeTruthy();
    expect(screen.getByText(/answers 200 \{"success":true\}/)).toBeTruthy();
    await userEvent.selectOptions(select, "With the workflow's $.respond");
    await waitFor(() =>
      expect(bridge.callsOf("updateWorkflow")).toEqual([["p_wf1", { http_response: "workflow" }]]),
    );
    expect(await screen.findByText(/The caller waits for the run's \$\.respond/)).toBeTruthy();
    expect(bridge.workflows[0]!.http_response).toBe("workflow");
  });

  it("puts the setting back and says why when the server refuses it", async () => {
    const bridge = await openSettings();
    bridge.fail("updateWorkflow", {
      status: 400,
      code: "validation_failed",
      message: "http_response: not allowed",
    });
    const select = screen.getByRole("combobox", { name: "Answer HTTP callers" }) as HTMLSelectElement;
    await userEvent.selectOptions(select, "With the workflow's $.respond");
    expect((await screen.findByRole("alert")).textContent).toContain("http_response: not allowed");
    expect(select.selectedOptions[0]?.textContent).toBe("At once");
  });

  it("on a server without the setting, says its callers are answered at once", async () => {
    await openSettings({});
    expect(screen.queryByRole("combobox", { name: "Answer HTTP callers" })).toBeNull();
    expect(screen.getByText(/answers the endpoint's callers at once/)).toBeTruthy();
  });
});
