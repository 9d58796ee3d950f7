// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, remoteProfile } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { AccountView } from "./AccountView.js";

describe("account", () => {
  it("shows quotas as labelled usage bars, and none when the server does not report them", async () => {
    const bridge = new FakeBridge();
    bridge.user = {
      ...bridge.user,
      daily_invocations_quota: 1000,
      daily_invocations_used: 250,
      daily_compute_time_quota: 60_000,
      daily_compute_time_used: 59_000,
    };
    renderWith(bridge, <AccountView />);
    const inv = await screen.findByRole("progressbar", { name: "Invocations" });
    expect(inv.getAttribute("aria-valuenow")).toBe("250");
    expect(inv.getAttribute("aria-valuetext")).toBe("250 of 1,000");
    expect(screen.getByRole("progressbar", { name: "Compute time" }).getAttribute("aria-valuetext")).toBe(
      "59.0 s of 1 min 0 s",
    );
  });

  it("works with a hosted-service user that has only id, username and email", async () => {
    renderWith(new FakeBridge(), <AccountView />);
    expect(await screen.findByText("This server does not report quotas.")).toBeTruthy();
    expect(screen.getByText("ada@example.com")).toBeTruthy();
  });

  it("adds a remote connection; the key is never shown back, only its last four characters", async () => {
    const bridge = new FakeBridge();
    const { container } = renderWith(bridge, <AccountView />);
    const form = await screen.findByRole("form", { name: "Add a remote connection" });
    await userEvent.type(within(form).getByLabelText("Name"), "Hosted");
    await userEvent.type(within(form).getByLabelText("Base URL"), "not a url");
    await userEvent.type(within(form).getByLabelText("API key"), "pd_secret_key_9876");
    await userEvent.click(within(form).getByRole("button", { name: "Add and connect" }));
    expect(within(form).getByRole("alert").textContent).toMatch(/^Base URL: /);
    expect(bridge.callsOf("addRemoteProfile")).toHaveLength(0);

    await userEvent.clear(within(form).getByLabelText("Base URL"));
    await userEvent.type(within(form).getByLabelText("Base URL"), "https://api.pipedream.com/v1");
    await userEvent.click(within(form).getByRole("button", { name: "Add and connect" }));
    await waitFor(() => expect(screen.getByText(/key …9876/)).toBeTruthy());
    expect(bridge.callsOf("addRemoteProfile")).toEqual([
      [{ name: "Hosted", baseUrl: "https://api.pipedream.com/v1", apiKey: "pd_secret_key_9876" }],
    ]);
    expect(container.innerHTML).not.toContain("pd_secret_key_9876");
  });

  it("switches connection in one click", async () => {
    const bridge = new FakeBridge();
    bridge.profiles.push(remoteProfile({ current: false }));
    renderWith(bridge, <AccountView />);
    await userEvent.click(await screen.findByRole("button", { name: "Use Staging" }));
    expect(bridge.callsOf("selectProfile")).toEqual([["r1"]]);
    await waitFor(() => expect(screen.queryByRole("button", { name: "Use Staging" })).toBeNull());
  });

  it("rotates the key after confirmation and shows only the new key's last four", async () => {
    const bridge = new FakeBridge();
    renderWith(bridge, <AccountView />);
    await userEvent.click(await screen.findByRole("button", { name: "Rotate API key" }));
    await userEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Rotate key" }));
    expect(await screen.findByText("…wxyz")).toBeTruthy();
    expect(bridge.callsOf("rotateApiKey")).toHaveLength(1);
  });
  it("offers Replace key for a remote connection only: Local's key is managed by the app", async () => {
    const bridge = new FakeBridge();
    bridge.profiles.push(remoteProfile({ current: false }));
    renderWith(bridge, <AccountView />);
    await userEvent.click(await screen.findByRole("button", { name: "Replace key of Staging" }));
    expect(screen.queryByRole("button", { name: "Replace key of Local" })).toBeNull();
    await userEvent.type(screen.getByLabelText("New API key"), "new_key_1234");
    await userEvent.click(screen.getByRole("button", { name: "Save key" }));
    await waitFor(() => expect(bridge.callsOf("setProfileKey")).toEqual([["r1", "new_key_1234"]]));
  });

  it("shows a refused key on its connection, with the reason, and still shows the account's error", async () => {
    const bridge = new FakeBridge();
    bridge.profiles = [
      { ...bridge.profiles[0]!, current: false },
      remoteProfile({ status: "refused", statusMessage: "The API key was refused by https://s." }),
    ];
    bridge.fail("getMe", {
      status: 401,
      code: "unauthorized",
      message: "The API key was refused by https://s.",
    });
    renderWith(bridge, <AccountView />);
    expect(await screen.findByText("Could not load the account")).toBeTruthy();
    const rows = screen.getAllByRole("listitem");
    const staging = rows.find((r) => r.textContent?.includes("Staging"))!;
    expect(staging.textContent).toContain("refused");
    expect(staging.querySelector(".status-dot.refused")).toBeTruthy();
    expect(within(staging).getByText("The API key was refused by https://s.")).toBeTruthy();
  });

  it("says where the key is kept, as the host reports it (a 0600 file in web mode, the keychain in Electron)", async () => {
    const web = new FakeBridge();
    const first = renderWith(web, <AccountView />);
    expect(
      await screen.findByText(/Stored in a file in your user data folder that only your user can read/),
    ).toBeTruthy();
    expect(screen.queryByText(/encrypted with/)).toBeNull();
    first.unmount();

    const desktop = new FakeBridge();
    desktop.host = { mode: "electron", version: "test", keyStorage: "os-encrypted" };
    renderWith(desktop, <AccountView />);
    expect(await screen.findByText(/Stored encrypted with the operating system's keychain/)).toBeTruthy();
  });
});
