// @vitest-environment happy-dom
/** The Connected accounts panel against the fake bridge: list, add, replace, rename, delete. */
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { FakeBridge, makeAccount } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { AccountsView, groupByApp, usedByText } from "./AccountsView.js";
import { holderLink } from "./AccountInUseDialog.js";
import { authFromFields } from "./credentials.js";

function bridgeWithAccounts(): FakeBridge {
  const bridge = new FakeBridge();
  bridge.accounts = [
    makeAccount(1, { name: "prod db", fields: ["host", "user", "password"], used_by: 2 }),
    makeAccount(2, { name: "team slack", app: "slack", fields: ["token"] }),
    makeAccount(3, { name: "staging db" }),
  ];
  return bridge;
}

describe("accounts: rules", () => {
  it("groups by app in alphabetical order, keeping the list's order inside an app", () => {
    const groups = groupByApp(bridgeWithAccounts().accounts);
    expect(groups.map(([app, list]) => [app, list.map((a) => a.name)])).toEqual([
      ["postgresql", ["prod db", "staging db"]],
      ["slack", ["team slack"]],
    ]);
    expect([0, 1, 4].map(usedByText)).toEqual(["not used", "1 source or step", "4 sources or steps"]);
  });

  it("credentials: named rows with values; a named row without one is an error where values are required", () => {
    expect(authFromFields([{ name: " host ", value: "h" }, { name: "port", value: "" }, { name: "", value: "" }])).toEqual({
      ok: true,
      auth: { host: "h" },
    });
    expect(authFromFields([{ name: "port", value: "" }], { requireValues: true })).toEqual({
      ok: false,
      error: 'enter a value for "port", or remove it',
    });
    expect(authFromFields([{ name: "", value: "x" }])).toEqual({ ok: false, error: "every credential needs a name" });
    expect(authFromFields([{ name: "a", value: "1" }, { name: "a", value: "2" }])).toEqual({ ok: false, error: '"a" is given twice' });
  });

  it("links what uses an account to its source or workflow, whatever the detail's shape", () => {
    expect(holderLink({ path: "used_by.dc_abc", message: 'source "x" (dc_abc), prop pg' })).toBe("#/sources/dc_abc");
    expect(holderLink({ path: "sources.dc_abc", message: "" })).toBe("#/sources/dc_abc");
    expect(holderLink({ path: "used_by.p_wf1", message: 'workflow "w" (p_wf1), step 0' })).toBe("#/workflows/p_wf1");
    expect(holderLink({ path: "x", message: "something" })).toBeNull();
  });
});

describe("Connected accounts panel", () => {
  it("lists accounts by app with their field names and what uses them, never a value, and filters by app", async () => {
    const bridge = bridgeWithAccounts();
    bridge.accountValues.set("apn_acct1", { host: "db.internal", password: "hunter2" });
    renderWith(bridge, <AccountsView />);
    const pg = await screen.findByRole("region", { name: /^postgresql/ });
    const prod = within(pg).getByRole("row", { name: "prod db" });
    expect(within(prod).getByRole("list", { name: "Fields of prod db" }).textContent).toBe("hostuserpassword");
    expect(prod.textContent).toContain("2 sources or steps");
    expect(within(pg).getByRole("row", { name: "staging db" }).textContent).toContain("not used");
    expect(screen.getByRole("region", { name: /^slack/ })).toBeTruthy();
    expect(document.body.innerHTML).not.toContain("hunter2");

    await userEvent.selectOptions(screen.getByLabelText("App"), "slack (1)");
    expect(screen.queryByRole("region", { name: /^postgresql/ })).toBeNull();
    expect(screen.getByRole("row", { name: "team slack" })).toBeTruthy();

    // The filtered app's last account deleted: every app shows again, and the filter goes (one app left).
    await userEvent.click(screen.getByRole("button", { name: "Delete team slack" }));
    await userEvent.click(within(screen.getByRole("dialog")).getByRole("button", { name: "Delete account" }));
    expect(await screen.findByRole("region", { name: /^postgresql/ })).toBeTruthy();
    expect(screen.queryByRole("region", { name: /^slack/ })).toBeNull();
    expect(screen.queryByLabelText("App")).toBeNull();
  });

  it("says what to do when there is no account", async () => {
    renderWith(new FakeBridge(), <AccountsView />);
    expect(await screen.findByText(/No connected accounts yet/)).toBeTruthy();
  });

  it("adds an account: app, name and credentials in password inputs, checked before sending", async () => {
    const bridge = new FakeBridge();
    renderWith(bridge, <AccountsView />);
    await userEvent.click(await screen.findByRole("button", { name: "Add account" }));
    const dialog = screen.getByRole("dialog", { name: "Add account" });
    await userEvent.click(within(dialog).getByRole("button", { name: "Add account" }));
    expect(within(dialog).getAllByRole("alert").map((a) => a.textContent)).toEqual([
      "App: enter the app's name, e.g. postgresql",
      "Credentials: add at least one credential, with its value",
    ]);

    await userEvent.type(within(dialog).getByLabelText("App"), "postgresql");
    await userEvent.type(within(dialog).getByLabelText("Name"), "prod db");
    await userEvent.type(within(dialog).getByLabelText("Credentials: field 1 name"), "host");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add a credential" }));
    await userEvent.type(within(dialog).getByLabelText("Credentials: field 2 name"), "password");
    const host = within(dialog).getByLabelText("Credentials: host");
    const password = within(dialog).getByLabelText("Credentials: password");
    expect([host, password].map((i) => (i as HTMLInputElement).type)).toEqual(["password", "password"]);
    await userEvent.type(host, "db.internal");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add account" }));
    expect(within(dialog).getByRole("alert").textContent).toBe('Credentials: enter a value for "password", or remove it');
    await userEvent.type(password, "hunter2");
    await userEvent.click(within(dialog).getByRole("button", { name: "Add account" }));

    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(bridge.callsOf("createAccount")).toEqual([
      [{ app: "postgresql", name: "prod db", auth: { host: "db.internal", password: "hunter2" } }],
    ]);
    const row = await screen.findByRole("row", { name: "prod db" });
    expect(row.textContent).toContain("hostpassword");
    expect(document.body.innerHTML).not.toContain("hunter2");
  });

  it("replaces every value at once, the fields offered empty, and renames", async () => {
    const bridge = bridgeWithAccounts();
    renderWith(bridge, <AccountsView />);
    await userEvent.click(await screen.findByRole("button", { name: "Replace values of staging db" }));
    const dialog = screen.getByRole("dialog", { name: "Replace the values of staging db" });
    const host = within(dialog).getByLabelText("Credentials: host") as HTMLInputElement;
    expect([host.value, host.type]).toEqual(["", "password"]);
    await userEvent.type(host, "db2");
    await userEvent.click(within(dialog).getByRole("button", { name: "Remove password" }));
    await userEvent.click(within(dialog).getByRole("button", { name: "Replace values" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).toBeNull());
    expect(bridge.callsOf("updateAccount")).toEqual([["apn_acct3", { auth: { host: "db2" } }]]);
    await waitFor(() => expect(within(screen.getByRole("row", { name: "staging db" })).getByRole("list").textContent).toBe("host"));

    await userEvent.click(screen.getByRole("button", { name: "Rename staging db" }));
    const rename = screen.getByRole("dialog", { name: "Rename staging db" });
    await userEvent.clear(within(rename).getByLabelText("Name"));
    await userEvent.click(within(rename).getByRole("button", { name: "Rename" }));
    expect(within(rename).getByRole("alert").textContent).toBe("Name: enter a name");
    await userEvent.type(within(rename).getByLabelText("Name"), "replica db");
    await userEvent.click(within(rename).getByRole("button", { name: "Rename" }));
    expect(await screen.findByRole("row", { name: "replica db" })).toBeTruthy();
    expect(bridge.callsOf("updateAccount")[1]).toEqual(["apn_acct3", { name: "replica db" }]);
  });

  it("deletes after a confirmation", async () => {
    const bridge = bridgeWithAccounts();
    renderWith(bridge, <AccountsView />);
    await userEvent.click(await screen.findByRole("button", { name: "Delete staging db" }));
    const confirm = screen.getByRole("dialog", { name: "Delete staging db?" });
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete account" }));
    await waitFor(() => expect(screen.queryByRole("row", { name: "staging db" })).toBeNull());
    expect(bridge.callsOf("deleteAccount")).toEqual([["apn_acct3"]]);
    expect(screen.queryByRole("dialog")).toBeNull();
  });

  it("an account in use is not deleted: the dialog says so and lists what uses it, with links", async () => {
    const bridge = bridgeWithAccounts();
    bridge.accountUsers.set("apn_acct1", [
      { path: "used_by.dc_orders", message: 'source "orders" (dc_orders), prop pg' },
      { path: "used_by.p_digest", message: 'workflow "digest" (p_digest), step 1 prop pg' },
    ]);
    renderWith(bridge, <AccountsView />);
    await userEvent.click(await screen.findByRole("button", { name: "Delete prod db" }));
    const confirm = screen.getByRole("dialog", { name: "Delete prod db?" });
    expect(confirm.textContent).toContain("It is used by 2 sources or steps");
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete account" }));

    const inUse = await screen.findByRole("alertdialog", { name: "prod db is still in use" });
    expect(inUse.textContent).toContain("was not deleted");
    const list = within(inUse).getByRole("list", { name: "What uses prod db" });
    const links = within(list).getAllByRole("link");
    expect(links.map((l) => [l.textContent, l.getAttribute("href")])).toEqual([
      ['source "orders" (dc_orders), prop pg', "#/sources/dc_orders"],
      ['workflow "digest" (p_digest), step 1 prop pg', "#/workflows/p_digest"],
    ]);
    expect(screen.queryByRole("dialog", { name: "Delete prod db?" })).toBeNull();
    await userEvent.click(within(inUse).getByRole("button", { name: "OK" }));
    expect(screen.queryByRole("alertdialog")).toBeNull();
    expect(screen.getByRole("row", { name: "prod db" })).toBeTruthy();
  });

  it("another failure stays in the confirmation, in words", async () => {
    const bridge = bridgeWithAccounts();
    bridge.fail("deleteAccount", { status: 404, code: "not_found", message: "account apn_acct3 not found" });
    renderWith(bridge, <AccountsView />);
    await userEvent.click(await screen.findByRole("button", { name: "Delete staging db" }));
    const confirm = screen.getByRole("dialog", { name: "Delete staging db?" });
    await userEvent.click(within(confirm).getByRole("button", { name: "Delete account" }));
    expect((await within(confirm).findByRole("alert")).textContent).toContain("account apn_acct3 not found");
  });
});
