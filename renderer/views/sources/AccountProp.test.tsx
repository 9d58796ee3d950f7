// @vitest-environment happy-dom
/** An app prop in the source form: an existing connected account, or a new one typed in place. */
import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import type { Component, PropDescriptor } from "../../../shared/resources/index.js";
import { FakeBridge, makeAccount, makeSource, TIMER_COMPONENT } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { CreateSourceDialog } from "./CreateSourceDialog.js";
import { buildConfiguredProps, configuredSoFar, initialState, type AppState } from "./propsForm.js";
import { SourceDetail } from "./SourceDetail.js";

const PROPS: PropDescriptor[] = [
  { name: "pg", type: "app", app: "postgresql", authFields: ["host", "password"] },
  { name: "label", type: "string", optional: true },
];

const PG_COMPONENT: Component = {
  ...TIMER_COMPONENT,
  id: "sc_pg",
  key: "pg-rows",
  name: "Rows",
  configurable_props: PROPS,
};

function bridgeWithAccounts(): FakeBridge {
  const bridge = new FakeBridge();
  bridge.components = [PG_COMPONENT, TIMER_COMPONENT];
  bridge.accounts = [
    makeAccount(1, { name: "prod db", fields: ["host", "user", "password"] }),
    makeAccount(2, { name: "team slack", app: "slack", fields: ["token"] }),
    makeAccount(3, { name: "staging db" }),
  ];
  return bridge;
}

describe("app prop: rules", () => {
  it("a reference starts as the chosen account and is sent back as {authProvisionId}", () => {
    const state = initialState(PROPS, { pg: { authProvisionId: "apn_acct1" } });
    expect(state.pg).toEqual({
      mode: "account",
      accountId: "apn_acct1",
      fields: [
        { name: "host", value: "" },
        { name: "password", value: "" },
      ],
    });
    expect(buildConfiguredProps(PROPS, state)).toEqual({ ok: true, value: { pg: { authProvisionId: "apn_acct1" } } });
    // options() of other props get the reference too: the server opens the account for them.
    expect(configuredSoFar(PROPS, state)).toEqual({ pg: { authProvisionId: "apn_acct1" } });
  });

  it("an account to choose that was not chosen: a required prop says so, an optional one is left out", () => {
    const state = initialState(PROPS);
    state.pg = { ...(state.pg as AppState), mode: "account" };
    expect(buildConfiguredProps(PROPS, state)).toEqual({ ok: false, errors: { pg: "choose an account, or add a new one" } });
    const optional = PROPS.map((p) => (p.name === "pg" ? { ...p, optional: true } : p));
    expect(buildConfiguredProps(optional, state)).toEqual({ ok: true, value: {} });
  });
});

async function pickComponent(bridge: FakeBridge) {
  let created = "";
  renderWith(bridge, <CreateSourceDialog onClose={() => undefined} onCreated={(s) => (created = s.id)} />);
  await userEvent.click(screen.getByRole("tab", { name: "Saved" }));
  await userEvent.click(await screen.findByRole("button", { name: /Rows/ }));
  const dialog = await screen.findByRole("dialog", { name: "New source from Rows" });
  return { dialog, created: () => created };
}

describe("app prop in the create-source form", () => {
  it("offers the app's accounts only, and creates the source with the one chosen as {authProvisionId}", async () => {
    const bridge = bridgeWithAccounts();
    const { dialog, created } = await pickComponent(bridge);
    const group = within(dialog).getByRole("group", { name: /pg credentials/ });
    await userEvent.click(within(group).getByRole("radio", { name: "Use an existing account" }));
    const select = within(group).getByRole("combobox", { name: "pg: account" });
    await waitFor(() => expect(within(select).getAllByRole("option")).toHaveLength(3));
    expect(within(select).getAllByRole("option").map((o) => o.textContent)).toEqual([
      "Choose an account…",
      "prod db · host, user, password",
      "staging db · host, password",
    ]);
    // No credential inputs while an account is used.
    expect(within(group).queryByLabelText("pg: host")).toBeNull();

    await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
    expect(await within(dialog).findByText("pg: choose an account, or add a new one")).toBeTruthy();
    expect(bridge.callsOf("createSource")).toEqual([]);

    await userEvent.selectOptions(select, "prod db · host, user, password");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
    await waitFor(() => expect(created()).not.toBe(""));
    expect(bridge.callsOf("createSource")).toEqual([[{ component_id: "sc_pg", configured_props: { pg: { authProvisionId: "apn_acct1" } } }]]);
  });

  it("a new account's values go inline as $auth (the server makes the account), never createAccount first", async () => {
    const bridge = bridgeWithAccounts();
    const { dialog, created } = await pickComponent(bridge);
    const group = within(dialog).getByRole("group", { name: /pg credentials/ });
    expect(within(group).getByRole("radio", { name: "Add a new account" })).toHaveProperty("checked", true);
    await userEvent.type(within(group).getByLabelText("pg: host"), "db.internal");
    await userEvent.type(within(group).getByLabelText("pg: password"), "s3cret");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
    await waitFor(() => expect(created()).not.toBe(""));
    expect(bridge.callsOf("createSource")).toEqual([
      [{ component_id: "sc_pg", configured_props: { pg: { $auth: { host: "db.internal", password: "s3cret" } } } }],
    ]);
    expect(bridge.callsOf("createAccount")).toEqual([]);
  });

  it("offers every app's accounts when the prop names no app, and says when there is none", async () => {
    const bridge = bridgeWithAccounts();
    bridge.components = [{ ...PG_COMPONENT, configurable_props: [{ name: "svc", type: "app" }] }];
    const { dialog } = await pickComponent(bridge);
    await userEvent.click(within(dialog).getByRole("radio", { name: "Use an existing account" }));
    const select = within(dialog).getByRole("combobox", { name: "svc: account" });
    await waitFor(() => expect(within(select).getAllByRole("option")).toHaveLength(4));
    expect(within(select).getAllByRole("option")[2]!.textContent).toBe("team slack (slack) · token");
  });

  it("says when the app has no account yet", async () => {
    const bridge = new FakeBridge();
    bridge.components = [PG_COMPONENT];
    bridge.accounts = [makeAccount(2, { name: "team slack", app: "slack", fields: ["token"] })];
    const { dialog } = await pickComponent(bridge);
    await userEvent.click(within(dialog).getByRole("radio", { name: "Use an existing account" }));
    expect(await within(dialog).findByText(/No postgresql account yet/)).toBeTruthy();
  });
});

describe("app prop of an existing source", () => {
  it("shows the account it uses preselected; Save waits for a change, then saves it", async () => {
    const bridge = bridgeWithAccounts();
    bridge.sources = [makeSource(1, { component_id: "sc_pg", configured_props: { pg: { authProvisionId: "apn_acct3" } } })];
    renderWith(bridge, <SourceDetail id="dc_src1" />);
    await userEvent.click(await screen.findByRole("tab", { name: "Configuration" }));
    const group = await screen.findByRole("group", { name: /pg credentials/ });
    expect(within(group).getByRole("radio", { name: "Use an existing account" })).toHaveProperty("checked", true);
    const select = within(group).getByRole("combobox", { name: "pg: account" }) as HTMLSelectElement;
    await waitFor(() => expect(select.selectedOptions[0]?.textContent).toBe("staging db · host, password"));
    const save = screen.getByRole("button", { name: "Save props" }) as HTMLButtonElement;
    // Nothing to save yet: the button says so rather than sending the same props.
    expect(save.disabled).toBe(true);
    fireEvent.change(select, { target: { value: "apn_acct3" } });
    await userEvent.click(save);
    await waitFor(() => expect(bridge.callsOf("updateSource")).toHaveLength(1));
    expect(bridge.callsOf("updateSource")[0]).toEqual([
      "dc_src1",
      { component_id: "sc_pg", active: true, configured_props: { pg: { authProvisionId: "apn_acct3" } } },
    ]);
  });
});
