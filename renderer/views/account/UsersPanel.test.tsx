// @vitest-environment happy-dom
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { User } from "../../../shared/resources/index.js";
import { FakeBridge } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { AccountView } from "./AccountView.js";

const quotas = { daily_invocations_quota: 1000, daily_invocations_used: 12, daily_compute_time_quota: 3_600_000, daily_compute_time_used: 1500 };

function adminBridge(): FakeBridge {
  const bridge = new FakeBridge();
  bridge.user = { id: "u_me", username: "ada", email: "ada@example.com", admin: true, ...quotas };
  const own = { daily_invocations_quota: null, daily_compute_time_quota: null };
  bridge.users = [
    { ...bridge.user, disabled: false, quota_overrides: own },
    { id: "u_bob", username: "bob", email: "", admin: false, disabled: false, ...quotas, daily_invocations_quota: 50, quota_overrides: { ...own, daily_invocations_quota: 50 } },
  ] as User[];
  return bridge;
}

describe("Users panel", () => {
  it("is not there for a user who is not an admin", async () => {
    const bridge = new FakeBridge();
    bridge.user = { ...bridge.user, admin: false };
    renderWith(bridge, <AccountView />);
    await screen.findByText("ada@example.com");
    expect(screen.queryByRole("region", { name: "Users" })).toBeNull();
    expect(bridge.callsOf("listUsers")).toEqual([]);
  });

  it("lists users with their usage, marks custom quotas, and offers no way to lock yourself out", async () => {
    renderWith(adminBridge(), <AccountView />);
    const panel = await screen.findByRole("region", { name: "Users" });
    const bob = await within(panel).findByRole("row", { name: "bob" });
    expect(bob.textContent).toContain("12 of 50 custom");
    expect(bob.textContent).toContain("1.5 s of 1 h 0 min");
    const me = within(panel).getByRole("row", { name: "ada" });
    expect(me.textContent).toContain("you");
    expect(within(me).queryByRole("button", { name: "Delete ada" })).toBeNull();
    expect(within(me).queryByRole("button", { name: "Disable ada" })).toBeNull();
  });

  it("creates a user and shows their key once", async () => {
    const bridge = adminBridge();
    renderWith(bridge, <AccountView />);
    await userEvent.click(await screen.findByRole("button", { name: "New user" }));
    const dialog = screen.getByRole("dialog", { name: "New user" });
    await userEvent.type(within(dialog).getByLabelText("Username"), "no spaces");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create user" }));
    expect(within(dialog).getByRole("alert").textContent).toMatch(/^Username: /);
    expect(bridge.callsOf("createUser")).toEqual([]);

    await userEvent.clear(within(dialog).getByLabelText("Username"));
    await userEvent.type(within(dialog).getByLabelText("Username"), "carol");
    await userEvent.click(within(dialog).getByRole("checkbox", { name: /Administrator/ }));
    await userEvent.click(within(dialog).getByRole("button", { name: "Create user" }));
    const shown = await screen.findByRole("dialog", { name: "API key for carol" });
    expect(within(shown).getByLabelText("API key for carol").textContent).toBe("key_for_carol");
    expect(bridge.callsOf("createUser")).toEqual([[{ username: "carol", admin: true }]]);
    await userEvent.click(within(shown).getByRole("button", { name: "Done" }));
    await within(screen.getByRole("region", { name: "Users" })).findByRole("row", { name: "carol" });
    expect(document.body.innerHTML).not.toContain("key_for_carol");
  });

  it("edits quotas (empty = the server's default) and disables, enables and deletes after a confirmation", async () => {
    const bridge = adminBridge();
    renderWith(bridge, <AccountView />);
    const panel = await screen.findByRole("region", { name: "Users" });
    await userEvent.click(await within(panel).findByRole("button", { name: "Edit bob" }));
    const dialog = screen.getByRole("dialog", { name: "Edit bob" });
    expect((within(dialog).getByLabelText("Invocations per day") as HTMLInputElement).value).toBe("50");
    await userEvent.clear(within(dialog).getByLabelText("Invocations per day"));
    await userEvent.type(within(dialog).getByLabelText("Compute minutes per day"), "abc");
    await userEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    expect(within(dialog).getByRole("alert").textContent).toMatch(/^Compute minutes per day: a number/);
    await userEvent.clear(within(dialog).getByLabelText("Compute minutes per day"));
    await userEvent.type(within(dialog).getByLabelText("Compute minutes per day"), "90");
    await userEvent.click(within(dialog).getByRole("button", { name: "Save" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(bridge.callsOf("updateUser")).toEqual([["u_bob", { daily_invocations_quota: null, daily_compute_time_quota: 5_400_000 }]]);

    await userEvent.click(within(panel).getByRole("button", { name: "Disable bob" }));
    await within(panel).findByRole("button", { name: "Enable bob" });
    expect(bridge.callsOf("updateUser")[1]).toEqual(["u_bob", { disabled: true }]);

    await userEvent.click(within(panel).getByRole("button", { name: "Delete bob" }));
    const confirm = screen.getByRole("dialog", { name: "Delete bob?" });
    expect(confirm.textContent).toMatch(/everything they own/);
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete user" }));
    await waitFor(() => expect(within(panel).queryByRole("row", { name: "bob" })).toBeNull());
    expect(bridge.callsOf("deleteUser")).toEqual([["u_bob"]]);
  });

  it("shows the server's refusal (the last admin) where it happened", async () => {
    const bridge = adminBridge();
    bridge.fail("deleteUser", { status: 409, code: "last_admin", message: "The last admin cannot be deleted." });
    renderWith(bridge, <AccountView />);
    const panel = await screen.findByRole("region", { name: "Users" });
    await userEvent.click(await within(panel).findByRole("button", { name: "Delete bob" }));
    const confirm = screen.getByRole("dialog", { name: "Delete bob?" });
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete user" }));
    expect((await within(confirm).findByRole("alert")).textContent).toContain("The last admin cannot be deleted.");
    expect(within(panel).getByRole("row", { name: "bob" })).toBeTruthy();
  });
});
