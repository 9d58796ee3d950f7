// @vitest-environment happy-dom
import { EditorView } from "@codemirror/view";
import { act, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { TestRunBody } from "../../../../../shared/resources/index.js";
import { FakeBridge, makeEvent, makeSource, makeWorkflow } from "../../../../test/fakeBridge.js";
import { makeRun } from "../../../../test/fakeRuns.js";
import { renderWith } from "../../../../test/render.js";
import { WorkflowDetail } from "../../WorkflowDetail.js";

const code = (body: string) =>
  `export default defineComponent({\n  async run({ steps, $ }) {\n    ${body}\n  },\n});\n`;

function bridgeWithWorkflow() {
  const bridge = new FakeBridge();
  const w = makeWorkflow(1, {
    version: 1,
    steps: [
      { id: "s_0", name: "a", code: code("return 1;") },
      { id: "s_1", name: "b", code: code("return 2;") },
    ],
  });
  bridge.workflows = [w];
  bridge.history.record(w, "create");
  return bridge;
}

async function openSteps(bridge: FakeBridge) {
  const view = renderWith(bridge, <WorkflowDetail id="p_wf1" />);
  await userEvent.click(await screen.findByRole("tab", { name: /Steps/ }));
  await screen.findByLabelText("Code of step a");
  return view;
}

const editorOf = (label: string) =>
  EditorView.findFromDOM(screen.getByRole("textbox", { name: label }).closest(".cm-editor") as HTMLElement)!;
function setText(label: string, text: string) {
  const view = editorOf(label);
  act(() => view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } }));
}
const testBodies = (bridge: FakeBridge) => bridge.callsOf("testWorkflow").map((c) => c[1] as TestRunBody);
const result = (step: string) =>
  screen.findByRole("region", { name: new RegExp(`^Test result of step ${step}`) });

describe("testing in the builder", () => {
  it("tests a step on typed JSON and shows its result under it; the next test of a later step reuses it", async () => {
    const bridge = bridgeWithWorkflow();
    bridge.tests.behaviour = (s, event) =>
      s.name === "a"
        ? {
            return_value: { got: event },
            exports: { total: 3 },
            logs: [{ ts_ms: 1, level: "info", message: "adding up" }],
            emits: [{ channel: "", data: { raw_event: 1 } }],
          }
        : { return_value: 2 };
    await openSteps(bridge);
    // No run and no trigger: typed JSON, `{}` to start with.
    expect((screen.getByRole("radio", { name: "JSON typed here" }) as HTMLInputElement).checked).toBe(true);
    setText("Test event (JSON)", '{"order": 7}');
    await userEvent.click(screen.getByRole("button", { name: "Test step a" }));

    const a = await result("a");
    expect(within(a).getByText("Success")).toBeTruthy();
    expect(within(a).getByRole("tree", { name: "Return value of step a" }).textContent).toContain("got");
    expect(within(a).getByRole("tree", { name: "Exports of step a" }).textContent).toContain("total");
    expect(within(a).getByRole("list", { name: "Logs of step a" }).textContent).toContain("adding up");
    expect(within(a).getByText("Would emit (1, not sent)")).toBeTruthy();
    expect(screen.queryByRole("region", { name: /^Test result of step b/ })).toBeNull();
    expect(testBodies(bridge)).toEqual([{ event: { order: 7 }, to_step: "a" }]);

    await userEvent.click(screen.getByRole("button", { name: "Test step b" }));
    expect(within(await result("b")).getByText("Success")).toBeTruthy();
    expect(testBodies(bridge)[1]).toEqual({
      event: { order: 7 },
      to_step: "b",
      from_step: "b",
      run_id: "r_test001",
    });
    // a's result stays the one that ran it (not the reused copy).
    expect(within(await result("a")).getByText("r_test001")).toBeTruthy();
  });

  it("marks later results stale when an earlier step changes, in words a screen reader reads", async () => {
    const bridge = bridgeWithWorkflow();
    await openSteps(bridge);
    await userEvent.click(screen.getByRole("button", { name: "Test workflow" }));
    await result("b");
    expect(screen.queryByText(/^Stale/)).toBeNull();

    setText("Code of step a", code("return 10;"));
    const b = await result("b");
    expect(b.getAttribute("aria-label")).toBe("Test result of step b (stale)");
    expect(within(b).getByText(/Stale: step a changed since this test\./)).toBeTruthy();
    expect(within(await result("a")).getByText(/Stale: its code changed since this test\./)).toBeTruthy();
    expect(screen.getByText("Stale results (changed since their test): step a, step b.")).toBeTruthy();

    // Back as it was tested: fresh again.
    setText("Code of step a", code("return 1;"));
    await waitFor(() => expect(screen.queryByText(/^Stale:/)).toBeNull());
  });

  it("saves what is waiting before the test, so the test runs what is on screen", async () => {
    const bridge = bridgeWithWorkflow();
    await openSteps(bridge);
    setText("Code of step b", code("return 'new';"));
    await userEvent.click(screen.getByRole("button", { name: "Test step b" }));
    await result("b");
    const order = bridge.calls
      .map((c) => c.method)
      .filter((m) => m === "updateWorkflowDraft" || m === "testWorkflow");
    expect(order).toEqual(["updateWorkflowDraft", "testWorkflow"]);
    expect(bridge.history.drafts.get("p_wf1")!.workflow.steps[1]!.code).toContain("'new'");
  });

  it("disables the test with the reason while the typed JSON does not parse", async () => {
    const bridge = bridgeWithWorkflow();
    await openSteps(bridge);
    setText("Test event (JSON)", '{"a": }');
    const test = screen.getByRole("button", { name: "Test workflow" }) as HTMLButtonElement;
    await waitFor(() => expect(test.disabled).toBe(true));
    const reason = document.getElementById(test.getAttribute("aria-describedby")!)!;
    expect(reason.textContent).toMatch(/^The test event is not valid JSON \(line 1, column 7: /);
    expect((screen.getByRole("button", { name: "Test step a" }) as HTMLButtonElement).disabled).toBe(true);
    setText("Test event (JSON)", '{"a": 1}');
    await waitFor(() => expect(test.disabled).toBe(false));
  });

  it("offers recent trigger events (of its sources and its runs) and runs' events", async () => {
    const bridge = bridgeWithWorkflow();
    bridge.sources = [makeSource(1, { name: "orders" })];
    bridge.subscriptions = [
      { id: "sub_1", emitter_id: "dc_src1", listener_id: "p_wf1", event_name: "", created_at: 1 } as never,
    ];
    bridge.events.set("dc_src1", [
      { ...makeEvent("dc_src1", Date.now() - 1000, 1), event: { order: "from source" } },
    ]);
    bridge.runs.set("p_wf1", [
      makeRun(1, {
        event: { method: "POST", path: "/", body: { via: "http" } },
        started_at_ms: Date.now() - 5000,
      }),
    ]);
    await openSteps(bridge);
    const pick = await screen.findByRole("combobox", { name: "Recent trigger event" });
    const options = within(pick)
      .getAllByRole("option")
      .map((o) => o.textContent);
    expect(options).toHaveLength(2);
    expect(options[0]).toMatch(/orders · event /);
    expect(options[1]).toMatch(/HTTP request · POST \/ {"via":"http"}$/);
    await userEvent.selectOptions(pick, options[1]!);
    await userEvent.click(screen.getByRole("button", { name: "Test workflow" }));
    await result("b");
    expect(testBodies(bridge)[0]).toEqual({ event: { method: "POST", path: "/", body: { via: "http" } } });

    // A run's event: the test run just made is among the runs now.
    await userEvent.click(screen.getByRole("radio", { name: "A run's event" }));
    const runs = await screen.findByRole("combobox", { name: "Run" });
    await waitFor(() =>
      expect(within(runs).getAllByRole("option")[0]!.textContent).toMatch(/Test run · Success · r_test001/),
    );
  });

  it("shows a failed step's error with its stack, and the test's error when it could not run", async () => {
    const bridge = bridgeWithWorkflow();
    bridge.tests.behaviour = (s) =>
      s.name === "b"
        ? {
            status: "error",
            error: {
              name: "TypeError",
              message: "x is undefined",
              stack: "TypeError: x is undefined\n    at b (step b:3:5)",
            },
          }
        : {};
    await openSteps(bridge);
    await userEvent.click(screen.getByRole("button", { name: "Test workflow" }));
    const b = await result("b");
    expect(b.querySelector(".run-error-line")!.textContent).toBe("TypeError: x is undefined");
    expect(within(b).getByLabelText("Stack of step b").textContent).toContain("at b (step b:3:5)");

    bridge.fail("testWorkflow", {
      status: 400,
      code: "invalid_step",
      message: "step b: line 3: Unexpected token",
    });
    await userEvent.click(screen.getByRole("button", { name: "Test workflow" }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("The test did not run");
    expect(alert.textContent).toContain("Unexpected token");
  });
});
