// @vitest-environment happy-dom
/**
 * The Triggers section in a workflow's settings, over the fake bridge: a schedule saved with the
 * version it was edited at, a bad one refused beside its row before anything is sent, the next
 * ticks listed, a generated token shown once and only its being set kept; Run now's event.
 */
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, makeWorkflow } from "../../../test/fakeBridge.js";
import { renderWith } from "../../../test/render.js";
import { WorkflowDetail } from "../WorkflowDetail.js";

async function openTriggers(over: Parameters<typeof makeWorkflow>[1] = {}) {
  const bridge = new FakeBridge();
  bridge.workflows = [makeWorkflow(1, { schedules: [], http_auth: { type: "none" }, version: 4, ...over })];
  renderWith(bridge, <WorkflowDetail id="p_wf1" />);
  await userEvent.click(await screen.findByRole("tab", { name: "Settings" }));
  return { bridge, section: screen.getByRole("region", { name: "Triggers" }) };
}

describe("a workflow's triggers", () => {
  it("saves an interval with the version it was edited at, then lists the next ticks", async () => {
    const { bridge, section } = await openTriggers();
    await userEvent.click(within(section).getByRole("button", { name: "Add interval" }));
    const every = within(section).getByRole("textbox", { name: /Every \(seconds, schedule 1\)/ });
    await userEvent.clear(every);
    await userEvent.type(every, "0");
    await userEvent.click(within(section).getByRole("button", { name: "Save schedules" }));
    expect((await within(section).findByRole("alert")).textContent).toContain("at least 1");
    expect(bridge.callsOf("updateWorkflow")).toEqual([]);
    await userEvent.clear(every);
    await userEvent.type(every, "90");
    await userEvent.click(within(section).getByRole("button", { name: "Save schedules" }));
    await waitFor(() =>
      expect(bridge.callsOf("updateWorkflow")).toEqual([
        ["p_wf1", { schedules: [{ interval_seconds: 90 }], base_version: 4 }],
      ]),
    );
    const ticks = await within(section).findByRole("list", { name: "Next ticks" });
    await waitFor(() => expect(within(ticks).getAllByRole("listitem")).toHaveLength(5));
  });

  it("generates a token, shows it once, and keeps only that one is set", async () => {
    const { bridge, section } = await openTriggers();
    expect(within(section).getByText(/No token/)).toBeTruthy();
    await userEvent.click(within(section).getByRole("button", { name: "Generate token" }));
    const dialog = await screen.findByRole("dialog", { name: "The endpoint's new token" });
    const token = dialog.querySelector("code.token-once")?.textContent ?? "";
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(bridge.callsOf("updateWorkflow")).toEqual([
      ["p_wf1", { http_auth: { type: "bearer", token }, base_version: 4 }],
    ]);
    await userEvent.click(within(dialog).getByRole("button", { name: "Done" }));
    expect(await within(section).findByText(/Token set/)).toBeTruthy();
    expect(document.body.innerHTML).not.toContain(token);
    expect(within(section).getByRole("button", { name: "Rotate token" })).toBeTruthy();
  });

  it("Run now sends the event typed, and refuses text that is not JSON", async () => {
    const { bridge } = await openTriggers();
    await userEvent.click(screen.getByRole("button", { name: "Run now" }));
    const dialog = await screen.findByRole("dialog", { name: /Run .* now/ });
    const event = within(dialog).getByLabelText("Event (JSON, optional)");
    await userEvent.type(event, "nope");
    await userEvent.click(within(dialog).getByRole("button", { name: "Run now" }));
    expect((await within(dialog).findByRole("alert")).textContent).toContain("not JSON");
    expect(bridge.callsOf("runWorkflow")).toEqual([]);
    await userEvent.clear(event);
    await userEvent.click(within(dialog).getByRole("button", { name: "Run now" }));
    await waitFor(() => expect(bridge.callsOf("runWorkflow")).toEqual([["p_wf1", { event: {} }]]));
    expect(bridge.runs.get("p_wf1")?.[0]?.trigger).toEqual({ type: "MANUAL" });
  });
});
