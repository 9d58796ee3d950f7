// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, makeAccount, makeSource, remoteProfile } from "../test/fakeBridge.js";
import { renderWith } from "../test/render.js";
import { App } from "./App.js";

describe("the shell", () => {
  it("opens on the sources with the newest timer source's live events", async () => {
    const bridge = new FakeBridge();
    bridge.sources = [
      makeSource(2, { name: "webhook", configured_props: { http: { endpoint_url: "http://x/e/1" } } }),
      makeSource(1, { name: "ticker" }),
    ];
    setBridge(bridge);
    await waitFor(() => expect(window.location.hash).toBe("#/sources/dc_src1"));
    expect(await screen.findByRole("heading", { name: "ticker", level: 2 })).toBeTruthy();
    expect(await screen.findByRole("grid", { name: "Events of dc_src1" })).toBeTruthy();
    expect(screen.getByRole("link", { name: /Sources/ }).getAttribute("aria-current")).toBe("page");
  });

  it("says what is going on while the local server starts, and when it failed", async () => {
    const bridge = new FakeBridge();
    bridge.profiles[0]!.status = "starting";
    const { client } = setBridge(bridge);
    expect(await screen.findByText(/Starting Local/)).toBeTruthy();
    bridge.profiles = [
      { ...bridge.profiles[0]!, status: "failed", statusMessage: "The local server exited: port in use." },
    ];
    await client.invalidateQueries({ queryKey: ["profiles"] });
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("The local server exited: port in use.");
    expect(within(alert).getByRole("link", { name: "Connections" })).toBeTruthy();
  });

  it("shows a refused key as an error in the sidebar, not a green dot", async () => {
    const bridge = new FakeBridge();
    bridge.profiles = [remoteProfile()];
    const { client } = setBridge(bridge);
    const nav = await screen.findByRole("navigation", { name: "Main" });
    await waitFor(() => expect(nav.querySelector(".status-dot")?.getAttribute("data-status")).toBe("ready"));
    expect(within(nav).queryByText(/Key refused/)).toBeNull();

    bridge.profiles = [
      { ...bridge.profiles[0]!, status: "refused", statusMessage: "The API key was refused." },
    ];
    await client.invalidateQueries({ queryKey: ["profiles"] });
    const note = await within(nav).findByText(/Key refused/);
    expect(note.getAttribute("title")).toBe("The API key was refused.");
    expect(within(note).getByRole("link", { name: "Replace it" }).getAttribute("href")).toBe("#/account");
    const dot = nav.querySelector(".status-dot")!;
    expect(dot.getAttribute("data-status")).toBe("refused");
    expect(dot.classList.contains("ready")).toBe(false);
  });

  it("asks for a connection when there is none", async () => {
    const bridge = new FakeBridge();
    bridge.profiles = [];
    setBridge(bridge);
    expect(await screen.findByRole("heading", { name: "No connection yet" })).toBeTruthy();
    await userEvent.click(screen.getByRole("link", { name: "Set up a connection" }));
    expect(await screen.findByRole("form", { name: "Add a remote connection" })).toBeTruthy();
  });
});

describe("connected accounts", () => {
  it("has its own entry in the sidebar, apart from the user's Account", async () => {
    const bridge = new FakeBridge();
    bridge.accounts = [makeAccount(1, { name: "prod db" })];
    setBridge(bridge);
    const nav = await screen.findByRole("navigation", { name: "Main" });
    await userEvent.click(within(nav).getByRole("link", { name: "Connected accounts" }));
    expect(window.location.hash).toBe("#/accounts");
    expect(await screen.findByRole("heading", { name: "Connected accounts", level: 1 })).toBeTruthy();
    expect(await screen.findByRole("row", { name: "prod db" })).toBeTruthy();
    expect(within(nav).getByRole("link", { name: "Connected accounts" }).getAttribute("aria-current")).toBe("page");
    expect(within(nav).getByRole("link", { name: "Account" }).getAttribute("aria-current")).toBeNull();
  });
});

describe("switching connection", () => {
  it("drops the selected item of the old connection and opens the new one's first source", async () => {
    const bridge = new FakeBridge();
    bridge.sources = [makeSource(1, { name: "old ticker" })];
    bridge.profiles.push(remoteProfile({ current: false }));
    setBridge(bridge);
    await waitFor(() => expect(window.location.hash).toBe("#/sources/dc_src1"));
    bridge.sources = [makeSource(7, { name: "staging ticker" })];
    await userEvent.selectOptions(screen.getByRole("combobox", { name: "Connection" }), "r1");
    expect(bridge.callsOf("selectProfile")).toEqual([["r1"]]);
    await waitFor(() => expect(window.location.hash).toBe("#/sources/dc_src7"));
    expect(await screen.findByRole("heading", { name: "staging ticker", level: 2 })).toBeTruthy();
  });
});

describe("switching to a connection whose key is refused", () => {
  it("replaces the old connection's account with the refusal", async () => {
    const bridge = new FakeBridge();
    window.location.hash = "#/account";
    renderWith(bridge, (client) => <App client={client} />);
    expect(await screen.findByRole("heading", { name: "ada", level: 2 })).toBeTruthy();

    // The host adds the remote connection, makes it current, and pushes the list; its server
    // refuses the key.
    const message = "The API key was refused by https://s/v1: bad key.";
    bridge.fail("getMe", { status: 401, code: "unauthorized", message });
    bridge.pushProfiles([{ ...bridge.profiles[0]!, current: false }, remoteProfile()]);

    const alert = await screen.findByRole("alert", {}, { timeout: 3_000 });
    expect(alert.textContent).toContain("Could not load the account");
    expect(alert.textContent).toContain(message);
    expect(screen.queryByRole("heading", { name: "ada", level: 2 })).toBeNull();
  });
});

describe("the theme switch", () => {
  it("applies the host's kept theme, keeps a new choice, and puts the old one back when refused", async () => {
    const bridge = new FakeBridge();
    bridge.theme = "dark";
    setBridge(bridge);
    const nav = await screen.findByRole("navigation", { name: "Main" });
    const dark = within(nav).getByRole("radio", { name: "Dark" });
    await waitFor(() => expect((dark as HTMLInputElement).checked).toBe(true));
    expect(document.documentElement.dataset.theme).toBe("dark");

    await userEvent.click(within(nav).getByRole("radio", { name: "Light" }));
    expect(document.documentElement.dataset.theme).toBe("light");
    await waitFor(() => expect(bridge.theme).toBe("light"));

    bridge.fail("setTheme", { status: 500, code: "internal", message: "The settings file is read-only." });
    await userEvent.click(dark);
    expect(await within(nav).findByText(/The settings file is read-only/)).toBeTruthy();
    expect(document.documentElement.dataset.theme).toBe("light");
    expect((within(nav).getByRole("radio", { name: "Light" }) as HTMLInputElement).checked).toBe(true);
  });
});

function setBridge(bridge: FakeBridge) {
  window.location.hash = "";
  return renderWith(bridge, (client) => <App client={client} />);
}
