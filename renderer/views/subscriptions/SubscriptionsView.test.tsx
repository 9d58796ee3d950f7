// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, makeSource, makeWorkflow } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { SubscriptionsView } from "./SubscriptionsView.js";

function setup() {
  const bridge = new FakeBridge();
  bridge.sources = [makeSource(1, { name: "Stripe webhooks" }), makeSource(2, { name: "Nightly timer" })];
  bridge.workflows = [makeWorkflow(1, { name: "Notify Slack" })];
  renderWith(bridge, <SubscriptionsView />);
  const form = screen.getByRole("form", { name: "New subscription" });
  return { bridge, form };
}

describe("subscriptions", () => {
  it("picks the emitter and listener by typing part of a name and Enter, and shows the names with their ids", async () => {
    const { bridge, form } = setup();
    const emitter = within(form).getByRole("combobox", { name: "Emitter" });
    await userEvent.type(emitter, "stripe");
    const list = await screen.findByRole("listbox", { name: "Emitter choices" });
    expect(
      within(list)
        .getAllByRole("option")
        .map((o) => o.textContent),
    ).toEqual(["Stripe webhookssourcedc_src1"]);
    await userEvent.keyboard("{Enter}");
    expect((emitter as HTMLInputElement).value).toBe("Stripe webhooks");
    expect(within(form).getByText("dc_src1")).toBeTruthy();

    const listener = within(form).getByRole("combobox", { name: "Listener" });
    await userEvent.type(listener, "slack{Enter}");
    expect((listener as HTMLInputElement).value).toBe("Notify Slack");

    await userEvent.click(within(form).getByRole("button", { name: "Subscribe" }));
    await waitFor(() =>
      expect(bridge.callsOf("createSubscription")).toEqual([
        [{ emitter_id: "dc_src1", listener_id: "p_wf1", event_name: "" }],
      ]),
    );
    // The form is ready for the next one.
    await waitFor(() => expect((emitter as HTMLInputElement).value).toBe(""));
    const row = within(await screen.findByRole("table")).getAllByRole("row")[1]!;
    expect(row.textContent).toContain("Stripe webhooks");
    expect(row.textContent).toContain("Notify Slack");
  });

  it("moves through the choices with the arrows, and Escape closes them", async () => {
    const { form } = setup();
    const emitter = within(form).getByRole("combobox", { name: "Emitter" });
    await userEvent.click(emitter);
    expect(emitter.getAttribute("aria-expanded")).toBe("true");
    const options = within(screen.getByRole("listbox", { name: "Emitter choices" })).getAllByRole("option");
    // Globs first, then sources and workflows.
    expect(options.map((o) => o.querySelector(".combobox-option-label")?.textContent)).toEqual([
      "All sources",
      "All workflows",
      "Stripe webhooks",
      "Nightly timer",
      "Notify Slack",
    ]);
    const active = () =>
      document.getElementById(emitter.getAttribute("aria-activedescendant") ?? "")?.textContent;
    expect(active()).toContain("All sources");
    await userEvent.keyboard("{ArrowDown}{ArrowDown}");
    expect(active()).toContain("Stripe webhooks");
    await userEvent.keyboard("{ArrowUp}");
    expect(active()).toContain("All workflows");
    await userEvent.keyboard("{Escape}");
    expect(emitter.getAttribute("aria-expanded")).toBe("false");
    expect(screen.queryByRole("option")).toBeNull();
  });

  it("takes a pasted id and a glob, on a channel typed by name", async () => {
    const { bridge, form } = setup();
    await userEvent.click(within(form).getByRole("combobox", { name: "Emitter" }));
    await userEvent.paste("p_*");
    await userEvent.click(within(form).getByRole("combobox", { name: "Listener" }));
    await userEvent.paste("dc_src2");
    const channel = within(form).getByRole("combobox", { name: "Channel" });
    await userEvent.clear(channel);
    await userEvent.type(channel, "$err{Enter}");
    await userEvent.click(within(form).getByRole("button", { name: "Subscribe" }));
    await waitFor(() =>
      expect(bridge.callsOf("createSubscription")).toEqual([
        [{ emitter_id: "p_*", listener_id: "dc_src2", event_name: "$errors" }],
      ]),
    );
    const table = await screen.findByRole("table");
    const row = within(table).getAllByRole("row")[1]!;
    expect(row.textContent).toContain("all workflows");
    expect(row.textContent).toContain("Nightly timer");

    await userEvent.click(within(row).getByRole("button", { name: "Delete subscription all workflows to Nightly timer" }));
    // Names, not ids: the ids are on hover.
    expect(within(screen.getByRole("dialog")).getByText(/will no longer/).textContent).toMatch(
      /^Events from all workflows will no longer\s+trigger Nightly timer\.$/,
    );
    expect(within(screen.getByRole("dialog")).getByText("Nightly timer").getAttribute("title")).toBe("dc_src2");
    await userEvent.click(
      within(screen.getByRole("dialog")).getByRole("button", { name: "Delete subscription" }),
    );
    await waitFor(() => expect(screen.getByText("No subscriptions yet.")).toBeTruthy());
    expect(bridge.callsOf("deleteSubscription")).toEqual([
      [{ emitter_id: "p_*", listener_id: "dc_src2", event_name: "$errors" }],
    ]);
  });

  it("refuses an emitter that names nothing, before asking the host", async () => {
    const { bridge, form } = setup();
    await userEvent.type(within(form).getByRole("combobox", { name: "Emitter" }), "sc_component");
    await userEvent.keyboard("{Escape}");
    await userEvent.click(within(form).getByRole("combobox", { name: "Listener" }));
    await userEvent.paste("p_wf1");
    await userEvent.click(within(form).getByRole("button", { name: "Subscribe" }));
    expect(within(form).getByRole("alert").textContent).toContain(
      "Choose the source or workflow whose events trigger: type part of its name",
    );
    expect(bridge.callsOf("createSubscription")).toHaveLength(0);
  });

  it("asks for a name when a field is left empty, not for an id", async () => {
    const { form } = setup();
    await userEvent.click(within(form).getByRole("button", { name: "Subscribe" }));
    const alerts = within(form).getAllByRole("alert").map((a) => a.textContent);
    expect(alerts).toContain("Emitter: Choose the source or workflow whose events trigger: type part of its name and pick it from the list.");
    expect(alerts).toContain("Listener: Choose the source or workflow to trigger: type part of its name and pick it from the list.");
    expect(alerts.join(" ")).not.toMatch(/\bid\b/);
  });
});
