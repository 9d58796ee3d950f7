// @vitest-environment happy-dom
/**
 * The Components view as a newcomer meets it: the components their sources run are listed (not
 * "No saved components yet" while sources use the registry's), and a component's page creates a
 * source from it.
 */
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Component } from "../../../shared/resources/index.js";
import { FakeBridge, makeSource, TIMER_COMPONENT } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { ComponentsView } from "./ComponentsView.js";

const HTTP: Component = {
  ...TIMER_COMPONENT,
  id: "sc_http",
  key: "http-new-requests",
  name: "New Requests",
  configurable_props: [{ name: "http", type: "$.interface.http" }],
  published: true,
};

describe("components view", () => {
  it("lists the components in use by the sources, and says none of one's own is saved", async () => {
    const bridge = new FakeBridge();
    // The account saved no component: its sources run the registry's.
    bridge.components = [];
    bridge.registry = [HTTP];
    bridge.sources = [makeSource(1, { component_id: "sc_http" }), makeSource(2, { component_id: "sc_http" })];
    renderWith(bridge, <ComponentsView selectedId={null} />);
    const inUse = await screen.findByRole("list", { name: "Components in use" });
    expect(within(inUse).getByRole("link").textContent).toBe("New Requestshttp-new-requests · 2 sources");
    expect(screen.getByText(/You have saved no component of your own yet/)).toBeTruthy();
    expect(screen.queryByText(/No saved components yet/)).toBeNull();
  });

  it("creates a source from a component's page, by its registry key", async () => {
    const bridge = new FakeBridge();
    bridge.registry = [HTTP];
    renderWith(bridge, <ComponentsView selectedId="sc_http" />);
    await userEvent.click(await screen.findByRole("button", { name: "Create source" }));
    const dialog = await screen.findByRole("dialog", { name: "New source from New Requests" });
    await userEvent.type(within(dialog).getByLabelText("Name"), "Orders webhook");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
    await waitFor(() =>
      expect(bridge.callsOf("createSource")).toEqual([[{ key: "http-new-requests", name: "Orders webhook", configured_props: {} }]]),
    );
    await waitFor(() => expect(window.location.hash).toMatch(/^#\/sources\/dc_/));
  });
});
