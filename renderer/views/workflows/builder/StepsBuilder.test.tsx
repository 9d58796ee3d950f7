// @vitest-environment happy-dom
import { EditorView } from "@codemirror/view";
import { act, fireEvent, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { afterEach, describe, expect, it, vi } from "vitest";
import { FakeBridge, makeWorkflow } from "../../../test/fakeBridge.js";
import { renderWith } from "../../../test/render.js";
import { WorkflowDetail } from "../WorkflowDetail.js";

const code = (body: string) => `export default defineComponent({\n  async run({ steps, $ }) {\n    ${body}\n  },\n});\n`;

function bridgeWithWorkflow() {
  const bridge = new FakeBridge();
  const w = makeWorkflow(1, {
    version: 2,
    steps: [
      { id: "s_0", name: "a", code: code("return 1;") },
      { id: "s_1", name: "b", code: code("return 2;") },
    ],
  });
  bridge.workflows = [w];
  bridge.history.record({ ...w, version: 1 }, "create");
  bridge.history.record(w, "update", "second");
  return bridge;
}

async function openSteps(bridge: FakeBridge) {
  const view = renderWith(bridge, <WorkflowDetail id="p_wf1" />);
  await userEvent.click(await screen.findByRole("tab", { name: /Steps/ }));
  await screen.findByLabelText("Code of step a");
  return view;
}

/** Replaces the code in a step's editor, as typing would. */
function setCode(step: string, text: string) {
  const content = screen.getByLabelText(`Code of step ${step}`);
  const view = EditorView.findFromDOM(content.closest(".cm-editor") as HTMLElement)!;
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }));
}

const codeOf = (step: string) =>
  EditorView.findFromDOM(screen.getByLabelText(`Code of step ${step}`).closest(".cm-editor") as HTMLElement)!.state.doc.toString();

const savedSteps = (bridge: FakeBridge) =>
  bridge.callsOf("updateWorkflowDraft").map((c) => (c[1] as { steps: { name: string }[] }).steps);

afterEach(() => vi.useRealTimers());

describe("the builder", () => {
  it("saves the draft at most once a second while typing, and a reload finds it", async () => {
    const bridge = bridgeWithWorkflow();
    const first = await openSteps(bridge);
    expect(screen.getByText("Deployed version 2")).toBeTruthy();

    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const name = screen.getByRole("textbox", { name: "Name of step 2" });
    fireEvent.change(name, { target: { value: "bb" } });
    setCode("a", code("return 10;"));
    fireEvent.change(name, { target: { value: "second" } });
    expect(screen.getByText("Draft, not deployed")).toBeTruthy();
    await act(async () => vi.advanceTimersByTime(999));
    expect(bridge.callsOf("updateWorkflowDraft")).toHaveLength(0);
    await act(async () => vi.advanceTimersByTime(1));
    vi.useRealTimers();
    await waitFor(() => expect(bridge.callsOf("updateWorkflowDraft")).toHaveLength(1));
    expect(savedSteps(bridge)[0]).toEqual([
      { name: "a", code: code("return 10;") },
      { name: "second", code: code("return 2;") },
    ]);
    expect(await screen.findByText("Saved")).toBeTruthy();

    first.unmount();
    await openSteps(bridge);
    expect(screen.getByText("Draft, not deployed")).toBeTruthy();
    expect((screen.getByRole("textbox", { name: "Name of step 2" }) as HTMLInputElement).value).toBe("second");
    expect(codeOf("a")).toContain("return 10;");
  });

  it("keeps a name that is no identifier on the page, unsaved, until it is fixed", async () => {
    const bridge = bridgeWithWorkflow();
    await openSteps(bridge);
    const name = screen.getByRole("textbox", { name: "Name of step 1" });
    await userEvent.clear(name);
    await userEvent.type(name, "b");
    // Both steps named b say so.
    expect(await screen.findAllByText(/Another step is named b\. Not saved until it is fixed\./)).toHaveLength(2);
    await userEvent.type(name, "2");
    await waitFor(() => expect(savedSteps(bridge).at(-1)?.map((s) => s.name)).toEqual(["b2", "b"]));
    expect(savedSteps(bridge).every((steps) => steps[0]!.name !== "b")).toBe(true);
  });

  it("reorders steps with the buttons and with Alt+arrows, and deletes one", async () => {
    const bridge = bridgeWithWorkflow();
    await openSteps(bridge);
    await userEvent.click(screen.getByRole("button", { name: "Move step b up" }));
    const names = () =>
      screen.getAllByRole("textbox", { name: /^Name of step/ }).map((i) => (i as HTMLInputElement).value);
    expect(names()).toEqual(["b", "a"]);
    expect((screen.getByRole("button", { name: "Move step b up" }) as HTMLButtonElement).disabled).toBe(true);
    await waitFor(() => expect(savedSteps(bridge).at(-1)?.map((s) => s.name)).toEqual(["b", "a"]));

    screen.getByRole("textbox", { name: "Name of step 1" }).focus();
    await userEvent.keyboard("{Alt>}{ArrowDown}{/Alt}");
    expect(names()).toEqual(["a", "b"]);

    await userEvent.click(screen.getByRole("button", { name: "Delete step a" }));
    await userEvent.click(within(await screen.findByRole("dialog", { name: "Delete step a?" })).getByRole("button", { name: "Delete step" }));
    expect(names()).toEqual(["b"]);
    // The focus goes on to the step that took its place, not to the page.
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole("textbox", { name: "Name of step 1" })));
    await waitFor(() => expect(savedSteps(bridge).at(-1)?.map((s) => s.name)).toEqual(["b"]));
  });

  it("shows a draft's problems at its step, and a refused deploy's", async () => {
    const bridge = bridgeWithWorkflow();
    await openSteps(bridge);
    setCode("b", code("return @@;"));
    const problems = await screen.findByRole("list", { name: "Problems of step b" }, { timeout: 3000 });
    expect(problems.textContent).toBe("Line 3, column 12: Unexpected token");
    await userEvent.click(screen.getByRole("button", { name: "Deploy" }));
    expect(await screen.findByText(/Not deployed: a step's code does not parse/)).toBeTruthy();
    expect(bridge.callsOf("deployWorkflowDraft")).toEqual([["p_wf1", { base_version: 2 }]]);
    expect(bridge.workflows[0]!.version).toBe(2);
  });

  it("explains a version conflict and reloads", async () => {
    const bridge = bridgeWithWorkflow();
    await openSteps(bridge);
    setCode("a", code("return 11;"));
    // Meanwhile, version 3 is deployed elsewhere.
    bridge.workflows[0] = { ...bridge.workflows[0]!, version: 3 };
    await userEvent.type(screen.getByRole("textbox", { name: "Message" }), "eleven");
    await userEvent.click(screen.getByRole("button", { name: "Deploy" }));
    const alert = await screen.findByText(/changed elsewhere since this page loaded version 2: nothing was deployed/);
    expect(bridge.callsOf("deployWorkflowDraft")).toEqual([["p_wf1", { message: "eleven", base_version: 2 }]]);
    await userEvent.click(within(alert.closest("[role=alert]") as HTMLElement).getByRole("button", { name: "Reload" }));
    // The draft was first saved on the deploy, so from version 3; it is kept.
    expect(await screen.findByText(/from version 3/)).toBeTruthy();
    expect(codeOf("a")).toContain("return 11;");
    await userEvent.click(screen.getByRole("button", { name: "Deploy" }));
    expect(await screen.findByText("Deployed version 4")).toBeTruthy();
    expect(bridge.callsOf("deployWorkflowDraft").at(-1)).toEqual(["p_wf1", { message: "eleven", base_version: 3 }]);
  });

  it("adds a code step and discards the draft", async () => {
    const bridge = bridgeWithWorkflow();
    await openSteps(bridge);
    await userEvent.click(screen.getByRole("button", { name: "Add a code step" }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole("textbox", { name: "Name of step 3" })));
    await waitFor(() => expect(savedSteps(bridge).at(-1)?.map((s) => s.name)).toEqual(["a", "b", "step_3"]));
    await userEvent.click(screen.getByRole("button", { name: "Discard" }));
    await userEvent.click(within(await screen.findByRole("dialog")).getByRole("button", { name: "Discard draft" }));
    expect(await screen.findByText("Deployed version 2")).toBeTruthy();
    expect(screen.queryByRole("textbox", { name: "Name of step 3" })).toBeNull();
    expect(bridge.history.drafts.size).toBe(0);
  });
});
