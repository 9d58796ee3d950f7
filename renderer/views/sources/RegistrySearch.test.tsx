// @vitest-environment happy-dom
/**
 * The new-source picker as a newcomer meets it: it opens on the registry, searched as you type;
 * an app's word lists its components and says "Did you mean …"; the app's vendor package answers
 * its sources, or says npm has none; descriptions read as text, not markdown.
 */
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Component } from "../../../shared/resources/index.js";
import { FakeBridge, TIMER_COMPONENT } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { CreateSourceDialog } from "./CreateSourceDialog.js";

const HTTP: Component = {
  ...TIMER_COMPONENT,
  id: "sc_http",
  key: "http-new-requests",
  name: "New Requests",
  description: "Emit an event for each request. [See the docs](https://example.com/docs) for **more**.",
  configurable_props: [{ name: "http", type: "$.interface.http" }],
  published: true,
};
const SCHEDULE: Component = { ...TIMER_COMPONENT, id: "sc_sched", key: "schedule", name: "Schedule", published: true };

function setup() {
  const bridge = new FakeBridge();
  bridge.registry = [HTTP, SCHEDULE];
  let created = "";
  renderWith(bridge, <CreateSourceDialog onClose={() => undefined} onCreated={(s) => (created = s.id)} />);
  return { bridge, created: () => created };
}

describe("the registry search in the new-source picker", () => {
  it("opens on the registry, lists what it knows, and answers 'http' with a suggestion of http-new-requests", async () => {
    const { bridge, created } = setup();
    expect(screen.getByRole("tab", { name: "Registry" }).getAttribute("aria-selected")).toBe("true");
    const all = await screen.findByRole("list", { name: "Registry components" });
    expect(within(all).getAllByRole("button").map((b) => b.querySelector("strong")!.textContent)).toEqual([
      "New Requests",
      "Schedule",
    ]);
    // Markdown in a description is shown as its words.
    expect(within(all).getByText("Emit an event for each request. See the docs for more.")).toBeTruthy();

    await userEvent.type(screen.getByLabelText("Search the registry"), "http");
    const hint = await screen.findByText(/Did you mean/);
    expect(hint.textContent).toBe("Did you mean http-new-requests?");
    await waitFor(() =>
      expect(within(screen.getByRole("list", { name: "Registry components" })).getAllByRole("button")).toHaveLength(1),
    );
    await userEvent.click(within(hint).getByRole("button", { name: "http-new-requests" }));
    const dialog = await screen.findByRole("dialog", { name: "New source from New Requests" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
    await waitFor(() => expect(created()).not.toBe(""));
    expect(bridge.callsOf("createSource")).toEqual([[{ key: "http-new-requests", configured_props: {} }]]);
    expect(bridge.callsOf("getRegistryComponent")).toEqual([["http-new-requests"]]);
  });

  it("lists the sources of an app's vendor package, and says when npm has no such package", async () => {
    const { bridge } = setup();
    bridge.appPackages.github = [
      { key: "github-new-issue", name: "New Issue", description: null, type: "source", origin: "vendor", package: "@pipedream/github", match: "prefix" },
    ];
    const search = screen.getByLabelText("Search the registry");
    await userEvent.type(search, "github");
    const list = await screen.findByRole("list", { name: "Registry components" });
    await waitFor(() => expect(within(list).getByText("github-new-issue · @pipedream/github")).toBeTruthy());
    expect(bridge.callsOf("searchComponents").at(-1)).toEqual([{ q: "github", limit: 50 }]);

    await userEvent.clear(search);
    await userEvent.type(search, "zzqq");
    expect(await screen.findByText("npm has no package @pipedream/zzqq: no vendor sources for \"zzqq\".")).toBeTruthy();
    expect(screen.getByText('No component matches "zzqq".')).toBeTruthy();
  });

  it("looks typed text up as a key on Enter, the account's component first", async () => {
    const { bridge } = setup();
    await userEvent.type(screen.getByLabelText("Search the registry"), "every-minute{Enter}");
    // Not a registry component, but the account's: found as "By key" finds it.
    expect(await screen.findByRole("dialog", { name: "New source from Every minute" })).toBeTruthy();
    expect(bridge.callsOf("getComponent")).toEqual([["every-minute"]]);
  });
});
