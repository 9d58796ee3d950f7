// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../../shared/resources/index.js";
import { FakeBridge, makeWorkflow } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { WorkflowDetail } from "./WorkflowDetail.js";

/** A workflow as this server answers it: every control, at its defaults unless overridden. */
const CONTROLS: Partial<Workflow> = {
  http_response: "immediate",
  retry: { max_attempts: 1, initial_delay_seconds: 5, max_delay_seconds: 3600 },
  concurrency: 1,
  throttle: null,
};

async function openSettings(over: Partial<Workflow> = CONTROLS) {
  const bridge = new FakeBridge();
  bridge.workflows = [makeWorkflow(1, over)];
  renderWith(bridge, <WorkflowDetail id="p_wf1" />);
  await userEvent.click(await screen.findByRole("tab", { name: "Settings" }));
  return bridge;
}

const input = (name: string) => screen.getByRole("spinbutton", { name }) as HTMLInputElement;
const retype = async (name: string, text: string) => {
  await userEvent.clear(input(name));
  if (text) await userEvent.type(input(name), text);
};
const saveButton = () => screen.getByRole("button", { name: "Save controls" });

describe("a workflow's execution controls", () => {
  it("shows each control with its range and what it does, and saves only what changed", async () => {
    const bridge = await openSettings();
    expect(input("Attempts per run").value).toBe("1");
    expect(input("First retry after (seconds)").value).toBe("5");
    expect(input("Longest delay between attempts (seconds)").value).toBe("3600");
    expect(input("Runs at once").value).toBe("1");
    expect(screen.getByRole("checkbox", { name: "Limit how often runs start" })).toHaveProperty(
      "checked",
      false,
    );
    // The ranges and the meaning of 1, read with each input.
    const hintOf = (el: HTMLElement) =>
      (el.getAttribute("aria-describedby") ?? "")
        .split(" ")
        .map((id) => document.getElementById(id)?.textContent)
        .join(" ");
    expect(hintOf(input("Attempts per run"))).toMatch(
      /1 to 10, counting the first\. 1: a failed run is not retried/,
    );
    expect(hintOf(input("Longest delay between attempts (seconds)"))).toContain("1 to 86,400 s");
    expect(hintOf(input("Runs at once"))).toMatch(/1 to 100\. At 1, runs go one at a time, in the order/);
    expect(screen.getByText(/they hold across its restarts and on every instance/)).toBeTruthy();
    expect(saveButton()).toHaveProperty("disabled", true);

    await retype("Attempts per run", "3");
    await retype("First retry after (seconds)", "1");
    // Typed back to what it was: not a change.
    await retype("Runs at once", "1");
    await userEvent.click(saveButton());
    await waitFor(() =>
      expect(bridge.callsOf("updateWorkflow")).toEqual([
        ["p_wf1", { retry: { max_attempts: 3, initial_delay_seconds: 1 } }],
      ]),
    );
    expect(await screen.findByText("No unsaved changes.")).toBeTruthy();
    expect(input("Attempts per run").value).toBe("3");
    expect(bridge.workflows[0]!.retry).toEqual({
      max_attempts: 3,
      initial_delay_seconds: 1,
      max_delay_seconds: 3600,
    });
  });

  it("says what is wrong next to a value out of range, takes the keyboard there, and sends nothing", async () => {
    const bridge = await openSettings();
    await retype("Runs at once", "101");
    await retype("First retry after (seconds)", "");
    await userEvent.click(saveButton());
    expect(bridge.callsOf("updateWorkflow")).toEqual([]);
    const delay = input("First retry after (seconds)");
    await waitFor(() => expect(document.activeElement).toBe(delay));
    expect(delay.getAttribute("aria-invalid")).toBe("true");
    expect(
      screen.getByText("First retry after (seconds): Enter a whole number from 1 to 3,600."),
    ).toBeTruthy();
    expect(screen.getByText("Runs at once: Must be from 1 to 100.")).toBeTruthy();
    // Fixing a field clears its error; the other stays until it is fixed too.
    await userEvent.type(delay, "2");
    expect(delay.getAttribute("aria-invalid")).toBeNull();
    expect(screen.getByText("Runs at once: Must be from 1 to 100.")).toBeTruthy();
  });

  it("turns a throttle on (limit and period whole) and off (null)", async () => {
    const bridge = await openSettings();
    expect(screen.queryByRole("spinbutton", { name: "Runs per period" })).toBeNull();
    await userEvent.click(screen.getByRole("checkbox", { name: "Limit how often runs start" }));
    await userEvent.click(saveButton());
    expect(await screen.findByText("Runs per period: Enter a whole number from 1 to 10,000.")).toBeTruthy();
    await userEvent.type(input("Runs per period"), "10");
    await userEvent.type(input("Period (seconds)"), "60");
    await userEvent.click(saveButton());
    await waitFor(() =>
      expect(bridge.callsOf("updateWorkflow").at(-1)).toEqual([
        "p_wf1",
        { throttle: { limit: 10, period_seconds: 60 } },
      ]),
    );
    await screen.findByText("No unsaved changes.");
    expect(input("Runs per period").value).toBe("10");

    await userEvent.click(screen.getByRole("checkbox", { name: "Limit how often runs start" }));
    await userEvent.click(saveButton());
    await waitFor(() =>
      expect(bridge.callsOf("updateWorkflow").at(-1)).toEqual(["p_wf1", { throttle: null }]),
    );
  });

  it("shows the server's 400 details next to the fields they name, and the rest in the form's note", async () => {
    const bridge = await openSettings();
    bridge.fail("updateWorkflow", {
      status: 400,
      code: "validation_failed",
      message: "invalid body.retry.max_delay_seconds: Too small",
      details: [
        { path: "body.retry.max_delay_seconds", message: "Too small: expected number to be >=60 here" },
        { path: "body.steps", message: "the workflow's steps changed meanwhile" },
      ],
    });
    await retype("Longest delay between attempts (seconds)", "30");
    await userEvent.click(saveButton());
    expect(
      await screen.findByText(
        "Longest delay between attempts (seconds): Too small: expected number to be >=60 here",
      ),
    ).toBeTruthy();
    expect(input("Longest delay between attempts (seconds)").getAttribute("aria-invalid")).toBe("true");
    const note = screen
      .getAllByRole("alert")
      .find((a) => a.textContent?.includes("The controls were not saved"))!;
    expect(within(note).getByText(/the workflow's steps changed meanwhile/)).toBeTruthy();
    expect(note.textContent).not.toContain("expected number to be >=60");
    // What was typed stays, to fix and send again.
    expect(input("Longest delay between attempts (seconds)").value).toBe("30");
  });

  it("on a server without controls (the hosted service), says so instead of the form", async () => {
    await openSettings({});
    expect(screen.getByRole("heading", { name: "Execution controls" })).toBeTruthy();
    expect(screen.getByText(/This server does not offer execution controls/)).toBeTruthy();
    expect(screen.queryByRole("spinbutton")).toBeNull();
    expect(screen.queryByRole("button", { name: "Save controls" })).toBeNull();
  });
});
