// @vitest-environment happy-dom
/** The Actions view and action steps against the fake bridge: find, fill, run, result; steps. */
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Action } from "../../../shared/resources/index.js";
import { FakeBridge, makeWorkflow } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { WorkflowDetail } from "../workflows/WorkflowDetail.js";
import { ActionsView } from "./ActionsView.js";
import { actionDescriptors, buildStepProps } from "./actionForm.js";
import { initialState } from "../sources/propsForm.js";

const decode: Action = {
  key: "helper_functions-base64-decode-string",
  name: "Base64 Decode String",
  description: "Accepts a base64-encoded string, returns a decoded UTF-8 string",
  version: "0.0.1",
  app: "helper_functions",
  props: [
    { name: "helper_functions", type: "app", app: "helper_functions" },
    { name: "data", type: "string", label: "Data" },
  ],
};
const random: Action = {
  key: "helper_functions-random-integer",
  name: "Random Integer",
  description: null,
  version: "0.0.1",
  app: "helper_functions",
  props: [
    { name: "min", type: "integer", label: "Min" },
    { name: "channel", type: "string", label: "Channel", options: true, optional: true },
  ],
};

function bridgeWithActions(): FakeBridge {
  const bridge = new FakeBridge();
  bridge.actions = { helper_functions: [decode, random] };
  return bridge;
}

describe("actions: rules", () => {
  it("maps options: true to remote choices, and lets a step's value be a {{ }} reference", () => {
    const d = actionDescriptors(random);
    expect(d[1]).toMatchObject({ name: "channel", remoteOptions: true });
    expect(d[1]!.options).toBeUndefined();
    const state = { ...initialState(d), min: "{{steps.trigger.event.body.min}}" };
    expect(buildStepProps(d, state)).toEqual({
      ok: true,
      value: { min: "{{steps.trigger.event.body.min}}" },
    });
    expect(buildStepProps(d, { ...state, min: "x" })).toEqual({
      ok: false,
      errors: { min: "must be a whole number" },
    });
    expect(buildStepProps(d, { ...state, min: "3" })).toEqual({ ok: true, value: { min: 3 } });
  });
});

describe("Actions view", () => {
  it("finds an app's actions, runs one with its props and shows the result", async () => {
    const bridge = bridgeWithActions();
    bridge.actionResult = {
      ret: { decoded: "hello" },
      exports: { $summary: "Decoded" },
      summary: "Decoded 5 characters",
      logs: [{ level: "log", message: "decoding" }],
      error: null,
      duration_ms: 42,
    };
    renderWith(bridge, <ActionsView />);
    expect(screen.getByRole("heading", { name: "Actions", level: 1 })).toBeTruthy();
    await userEvent.type(screen.getByLabelText("App"), "helper_functions");
    await userEvent.type(screen.getByLabelText("Search actions"), "base64");
    // The list follows the typing (each search answers after its debounce): wait for the filtered
    // one, the app's list without its other actions, before picking from it.
    await waitFor(() => {
      expect(screen.getByRole("button", { name: /Base64 Decode String/ })).toBeTruthy();
      expect(screen.queryByRole("button", { name: /Random Integer/ })).toBeNull();
    });
    const item = screen.getByRole("button", { name: /Base64 Decode String/ });
    await userEvent.click(item);
    // The form comes with the action's details, fetched on the click.
    await userEvent.click(await screen.findByRole("button", { name: "Run" }));
    expect(await screen.findByText("Data: required")).toBeTruthy();
    await userEvent.type(screen.getByLabelText("Data"), "aGVsbG8=");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    expect(await screen.findByText("Decoded 5 characters")).toBeTruthy();
    expect(bridge.callsOf("runAction").at(-1)).toEqual([
      {
        key: decode.key,
        configured_props: { helper_functions: { $auth: {} }, data: "aGVsbG8=" },
      },
    ]);
    expect(screen.getByText(/42 ms/)).toBeTruthy();
    expect(within(screen.getByRole("tree", { name: "Return value" })).getByText(/hello/)).toBeTruthy();
    expect(screen.getByRole("tree", { name: "Exports" })).toBeTruthy();
    expect(screen.getByLabelText("Logs").textContent).toBe("[log] decoding");
  });

  it("shows the action's error, and loads a prop's choices from the action", async () => {
    const bridge = bridgeWithActions();
    bridge.actionResult = {
      ret: undefined,
      exports: {},
      summary: null,
      logs: [],
      error: { name: "TypeError", message: "min is not a number" },
      duration_ms: 3,
    };
    bridge.actionChoices = { channel: { options: [{ label: "General", value: "C1" }], context: null } };
    renderWith(bridge, <ActionsView />);
    await userEvent.type(screen.getByLabelText("App"), "helper_functions");
    await userEvent.click(await screen.findByRole("button", { name: /Random Integer/ }));
    await userEvent.click(await screen.findByRole("button", { name: "Load choices for Channel" }));
    await userEvent.selectOptions(await screen.findByLabelText("Channel: choices"), "General");
    expect(bridge.callsOf("actionOptions")[0]![0]).toMatchObject({ key: random.key, prop_name: "channel" });
    await userEvent.type(screen.getByLabelText("Min"), "1");
    await userEvent.click(screen.getByRole("button", { name: "Run" }));
    expect(await screen.findByText("The action failed: TypeError")).toBeTruthy();
    expect(screen.getByText("min is not a number")).toBeTruthy();
    expect(bridge.callsOf("runAction").at(-1)![0]).toMatchObject({
      configured_props: { min: 1, channel: "C1" },
    });
  });
});

describe("workflow steps from an action", () => {
  it("shows action steps as such and adds one with {{ }} props", async () => {
    const bridge = bridgeWithActions();
    bridge.workflows = [
      makeWorkflow(1, {
        steps: [
          { id: "s_0", name: "code_step", code: "export default {}" },
          { id: "s_1", name: "decode", code: "// action", action: decode.key, props: { data: "abc" } },
        ],
      }),
    ];
    renderWith(bridge, <WorkflowDetail id="p_wf1" />);
    await userEvent.click(await screen.findByRole("tab", { name: /Steps/ }));
    expect(await screen.findByText(decode.key, { selector: "code" })).toBeTruthy();
    expect(screen.getByRole("tree", { name: "Props of step decode" })).toBeTruthy();
    expect(screen.getAllByLabelText(/Code of step/)).toHaveLength(1);

    await userEvent.click(screen.getByRole("button", { name: "Add step from an action" }));
    const dialog = await screen.findByRole("dialog", { name: "Add step from an action" });
    await userEvent.type(within(dialog).getByLabelText("App"), "helper_functions");
    await userEvent.click(await within(dialog).findByRole("button", { name: /Random Integer/ }));
    await userEvent.type(
      await within(dialog).findByRole("textbox", { name: "Min" }),
      "{{{{steps.trigger.event.body.min}}",
    );
    await userEvent.click(within(dialog).getByRole("button", { name: "Add step" }));
    // The step joins the draft (saved within a second), not the deployed version.
    await waitFor(() => expect(bridge.callsOf("updateWorkflowDraft")).toHaveLength(1), { timeout: 3000 });
    expect(bridge.callsOf("updateWorkflow")).toHaveLength(0);
    expect(bridge.callsOf("updateWorkflowDraft")[0]).toEqual([
      "p_wf1",
      {
        steps: [
          { name: "code_step", code: "export default {}" },
          { name: "decode", action: decode.key, props: { data: "abc" } },
          { name: "step_3", action: random.key, props: { min: "{{steps.trigger.event.body.min}}" } },
        ],
      },
    ]);
  });
});
