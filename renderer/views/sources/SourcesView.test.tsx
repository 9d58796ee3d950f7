// @vitest-environment happy-dom
import { act, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, makeSource } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { SourcesView } from "./SourcesView.js";

function setup() {
  const bridge = new FakeBridge();
  bridge.sources = [makeSource(1, { name: "orders" }), makeSource(2, { name: "signups", active: false })];
  return bridge;
}

const checked = (el: HTMLElement) => el.getAttribute("aria-checked");

async function listSwitch(name: string) {
  const list = await screen.findByRole("list", { name: "Source list" });
  return within(list).findByRole("switch", { name: `Active: ${name}` });
}

describe("sources: the active switch", () => {
  it("flips at once, sends component_id with active, and rolls back with the error when the host refuses", async () => {
    const bridge = setup();
    renderWith(bridge, <SourcesView selectedId="dc_src1" />);
    const sw = await listSwitch("orders");
    expect(checked(sw)).toBe("true");

    bridge.fail("updateSource", {
      status: 429,
      code: "quota_exceeded",
      message: "Daily invocations quota used up.",
    });
    const release = bridge.hold("updateSource");
    await userEvent.click(sw);

    // Optimistic: off before the host answers, in the list and in the detail header.
    expect(checked(await listSwitch("orders"))).toBe("false");
    expect(bridge.callsOf("updateSource")).toEqual([
      ["dc_src1", { component_id: "sc_timer", active: false }],
    ]);

    await act(async () => release());
    await waitFor(async () => expect(checked(await listSwitch("orders"))).toBe("true"));
    const alerts = await screen.findAllByRole("alert");
    expect(
      alerts.some(
        (a) => /Could not deactivate/.test(a.textContent ?? "") && /quota used up/i.test(a.textContent ?? ""),
      ),
    ).toBe(true);
  });

  it("keeps the new state when the host accepts", async () => {
    const bridge = setup();
    renderWith(bridge, <SourcesView selectedId="dc_src2" />);
    await userEvent.click(await listSwitch("signups"));
    await waitFor(() => expect(bridge.sources[1]?.active).toBe(true));
    expect(checked(await listSwitch("signups"))).toBe("true");
    expect(screen.queryByText(/Could not activate/)).toBeNull();
  });
});

describe("sources: errors in words", () => {
  it("shows a refused key as a sentence with its code, where the list would be", async () => {
    const bridge = setup();
    bridge.fail("listMySources", {
      status: 401,
      code: "unauthorized",
      message: "The API key was not accepted.",
    });
    renderWith(bridge, <SourcesView selectedId={null} />);
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Could not load sources");
    expect(alert.textContent).toContain("The API key was not accepted.");
    expect(alert.textContent).toContain("Account → Connections");
    expect(alert.textContent).toContain("code: unauthorized");
    expect(within(alert).getByRole("button", { name: "Try again" })).toBeTruthy();
  });

  it("search filters across every page", async () => {
    const bridge = new FakeBridge();
    bridge.sources = Array.from({ length: 40 }, (_, i) =>
      makeSource(i, { name: i === 33 ? "needle" : `hay-${i}` }),
    );
    renderWith(bridge, <SourcesView selectedId="dc_src0" />);
    const list = await screen.findByRole("list", { name: "Source list" });
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(25));
    await userEvent.type(screen.getByRole("searchbox", { name: "Search sources" }), "needle");
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(1));
    expect(within(list).getByText("needle")).toBeTruthy();
  });
});

describe("sources: pages", () => {
  it("steps to older pages by end_cursor and back to newer ones", async () => {
    const bridge = new FakeBridge();
    bridge.sources = Array.from({ length: 30 }, (_, i) => makeSource(i + 1));
    renderWith(bridge, <SourcesView selectedId="dc_src1" />);
    const pager = await screen.findByRole("navigation", { name: "Pages" });
    expect(await within(pager).findByText("Page 1 · 30 sources")).toBeTruthy();
    const list = screen.getByRole("list", { name: "Source list" });
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(25));

    await userEvent.click(within(pager).getByRole("button", { name: "Older →" }));
    expect(await within(pager).findByText("Page 2 · 30 sources")).toBeTruthy();
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(5));
    expect(bridge.callsOf("listMySources").at(-1)).toEqual([{ limit: 25, after: "dc_src25" }]);
    expect((within(pager).getByRole("button", { name: "Older →" }) as HTMLButtonElement).disabled).toBe(true);

    await userEvent.click(within(pager).getByRole("button", { name: "← Newer" }));
    expect(await within(pager).findByText("Page 1 · 30 sources")).toBeTruthy();
    await waitFor(() => expect(within(list).getAllByRole("listitem")).toHaveLength(25));
  });
});
