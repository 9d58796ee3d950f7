// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, makeSource } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { SubscriptionsView } from "./SubscriptionsView.js";

describe("subscriptions", () => {
  it("creates one from a glob emitter on a channel, lists it by name, and deletes it after confirmation", async () => {
    const bridge = new FakeBridge();
    bridge.sources = [makeSource(1, { name: "listener source" })];
    renderWith(bridge, <SubscriptionsView />);
    const form = screen.getByRole("form", { name: "New subscription" });
    await userEvent.type(within(form).getByLabelText("Emitter"), "p_*");
    await userEvent.type(within(form).getByLabelText("Listener"), "dc_src1");
    await userEvent.selectOptions(within(form).getByLabelText("Channel"), "$errors");
    await userEvent.click(within(form).getByRole("button", { name: "Subscribe" }));
    await waitFor(() =>
      expect(bridge.callsOf("createSubscription")).toEqual([
        [{ emitter_id: "p_*", listener_id: "dc_src1", event_name: "$errors" }],
      ]),
    );
    const table = await screen.findByRole("table");
    const row = within(table).getAllByRole("row")[1]!;
    expect(row.textContent).toContain("all workflows");
    expect(row.textContent).toContain("listener source");
    expect(row.textContent).toContain("$errors");

    await userEvent.click(within(row).getByRole("button", { name: "Delete subscription p_* to dc_src1" }));
    await userEvent.click(
      within(screen.getByRole("dialog")).getByRole("button", { name: "Delete subscription" }),
    );
    await waitFor(() => expect(screen.getByText("No subscriptions yet.")).toBeTruthy());
    expect(bridge.callsOf("deleteSubscription")).toEqual([
      [{ emitter_id: "p_*", listener_id: "dc_src1", event_name: "$errors" }],
    ]);
  });

  it("refuses an emitter that is not a source, a workflow or a glob, before asking the host", async () => {
    const bridge = new FakeBridge();
    renderWith(bridge, <SubscriptionsView />);
    const form = screen.getByRole("form", { name: "New subscription" });
    await userEvent.type(within(form).getByLabelText("Emitter"), "sc_component");
    await userEvent.type(within(form).getByLabelText("Listener"), "p_abc");
    await userEvent.click(within(form).getByRole("button", { name: "Subscribe" }));
    expect(within(form).getByRole("alert").textContent).toContain("must be a workflow or source id");
    expect(bridge.callsOf("createSubscription")).toHaveLength(0);
  });
});
