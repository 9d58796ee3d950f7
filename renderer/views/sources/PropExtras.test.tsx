// @vitest-environment happy-dom
/** App credentials and remote options in the create-source form (issue 12, point 5). */
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import type { Component, PropDescriptor, PropOptionsBody } from "../../../shared/resources/index.js";
import { FakeBridge, TIMER_COMPONENT } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { CreateSourceDialog } from "./CreateSourceDialog.js";
import { PropsForm } from "./PropsForm.js";
import { buildConfiguredProps, configuredSoFar, initialState, type AppState, type FormState } from "./propsForm.js";

const DB_PROPS: PropDescriptor[] = [
  { name: "postgresql", type: "app", app: "postgresql", authFields: ["host", "user", "password"] },
  { name: "schema", type: "string", label: "Schema", default: "public" },
  { name: "table", type: "string", label: "Table", remoteOptions: true },
  { name: "columns", type: "string[]", label: "Columns", remoteOptions: true, optional: true },
];

const DB_COMPONENT: Component = {
  ...TIMER_COMPONENT,
  id: "sc_pg",
  key: "postgresql-new-row",
  name: "New Row",
  published: true,
  configurable_props: DB_PROPS,
};

describe("credentials and remote options: rules", () => {
  it("offers the fields the app reads, sends only the filled ones as $auth", () => {
    const state = initialState(DB_PROPS);
    expect(state.postgresql).toEqual({
      mode: "new",
      accountId: "",
      fields: [
        { name: "host", value: "" },
        { name: "user", value: "" },
        { name: "password", value: "" },
      ],
    });
    (state.postgresql as AppState).fields[0]!.value = "db.example";
    (state.postgresql as AppState).fields[2]!.value = "pw";
    (state.postgresql as AppState).fields.push({ name: "port", value: "5432" });
    state.table = "orders";
    expect(buildConfiguredProps(DB_PROPS, state)).toEqual({
      ok: true,
      value: {
        postgresql: { $auth: { host: "db.example", password: "pw", port: "5432" } },
        schema: "public",
        table: "orders",
      },
    });
  });

  it("starts from a source's $auth, refuses nameless and repeated fields, and gives the props valid so far", () => {
    const state = initialState(DB_PROPS, { postgresql: { $auth: { host: "h", port: 5432 } } });
    expect((state.postgresql as AppState).fields).toEqual([
      { name: "host", value: "h" },
      { name: "port", value: "5432" },
      { name: "user", value: "" },
      { name: "password", value: "" },
    ]);
    (state.postgresql as AppState).fields.push({ name: "host", value: "again" }, { name: " ", value: "x" });
    const built = buildConfiguredProps(DB_PROPS, state);
    expect(built).toEqual({ ok: false, errors: { postgresql: '"host" is given twice', table: "required" } });
    // The schema is fine: options() may use it though the form is not complete.
    expect(configuredSoFar(DB_PROPS, state)).toEqual({ schema: "public" });
  });
});

function Harness({ props, onState }: { props: PropDescriptor[]; onState: (s: FormState) => void }) {
  const [state, setState] = useState(() => initialState(props));
  return (
    <PropsForm
      descriptors={props}
      state={state}
      errors={{}}
      componentId="sc_pg"
      onChange={(s) => {
        setState(s);
        onState(s);
      }}
    />
  );
}

describe("credentials group", () => {
  it("shows a new account's credentials as named fields, every value masked, adds and removes fields", async () => {
    let last: FormState = {};
    renderWith(new FakeBridge(), <Harness props={DB_PROPS} onState={(s) => (last = s)} />);
    const group = screen.getByRole("group", { name: /postgresql credentials/ });
    expect(within(group).getByRole("radio", { name: "Add a new account" })).toHaveProperty("checked", true);
    expect(within(group).getByLabelText("postgresql: host")).toHaveProperty("type", "password");
    expect(within(group).getByLabelText("postgresql: password")).toHaveProperty("type", "password");
    // No raw JSON box for the app.
    expect(screen.queryByPlaceholderText("JSON")).toBeNull();

    await userEvent.type(within(group).getByLabelText("postgresql: host"), "db.local");
    await userEvent.click(within(group).getByRole("button", { name: "Remove user" }));
    await userEvent.click(within(group).getByRole("button", { name: "Add a credential" }));
    await userEvent.type(within(group).getByLabelText("postgresql: field 3 name"), "api_token");
    const token = within(group).getByLabelText("postgresql: api_token");
    expect(token).toHaveProperty("type", "password");
    await userEvent.type(token, "t0k");
    expect(last.postgresql).toEqual({
      mode: "new",
      accountId: "",
      fields: [
        { name: "host", value: "db.local" },
        { name: "password", value: "" },
        { name: "api_token", value: "t0k" },
      ],
    });
  });
});

describe("remote options", () => {
  it("looks a vendor key up in the picker, loads a prop's choices with the credentials so far, and creates the source", async () => {
    const bridge = new FakeBridge();
    bridge.registry = [DB_COMPONENT];
    const asked: PropOptionsBody[] = [];
    bridge.propChoices.table = (body) => {
      asked.push(body);
      const page = body.page ?? 0;
      return page === 0
        ? { data: [{ label: "orders", value: "orders" }, { label: "users", value: "users" }], context: { after: 2 } }
        : { data: [{ label: "audit log", value: "audit_log" }], context: null };
    };
    let created = "";
    renderWith(bridge, <CreateSourceDialog onClose={() => undefined} onCreated={(s) => (created = s.id)} />);

    await userEvent.click(screen.getByRole("tab", { name: "By key" }));
    await userEvent.type(screen.getByLabelText("Component key or id"), "postgresql-new-row");
    await userEvent.click(screen.getByRole("button", { name: "Look up" }));
    const dialog = await screen.findByRole("dialog", { name: /New source from New Row/ });
    // Not in the account, so the registry's: the picker fell back as POST /sources/ with key does.
    expect(bridge.callsOf("getComponent")).toEqual([["postgresql-new-row"]]);
    expect(bridge.callsOf("getRegistryComponent")).toEqual([["postgresql-new-row"]]);

    await userEvent.type(within(dialog).getByLabelText("postgresql: host"), "db.local");
    await userEvent.type(within(dialog).getByLabelText("postgresql: password"), "pw");
    await userEvent.click(within(dialog).getByRole("button", { name: "Load choices for Table" }));
    const select = await within(dialog).findByLabelText("Table: choices");
    expect(asked[0]).toEqual({
      configured_props: { postgresql: { $auth: { host: "db.local", password: "pw" } }, schema: "public" },
      page: 0,
    });
    expect(within(select).getAllByRole("option").map((o) => o.textContent)).toEqual(["Choose…", "orders", "users"]);
    await userEvent.click(within(dialog).getByRole("button", { name: "More choices for Table" }));
    await waitFor(() => expect(within(select).getAllByRole("option")).toHaveLength(4));
    expect(asked[1]).toMatchObject({ page: 1, prev_context: { after: 2 } });
    expect(within(dialog).queryByRole("button", { name: "More choices for Table" })).toBeNull();

    await userEvent.selectOptions(select, "audit log");
    expect(within(dialog).getByLabelText("Table")).toHaveProperty("value", "audit_log");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
    await waitFor(() => expect(created).not.toBe(""));
    expect(bridge.callsOf("createSource")).toEqual([
      [
        {
          key: "postgresql-new-row",
          configured_props: {
            postgresql: { $auth: { host: "db.local", password: "pw" } },
            schema: "public",
            table: "audit_log",
          },
        },
      ],
    ]);
  });

  it("still takes a typed value, and shows why choices could not be loaded", async () => {
    const bridge = new FakeBridge();
    bridge.fail("propOptions", { status: 400, code: "prop_options_failed", message: 'options() of prop "table" failed: Error: connect ECONNREFUSED' });
    let last: FormState = {};
    renderWith(bridge, <Harness props={DB_PROPS} onState={(s) => (last = s)} />);
    await userEvent.type(screen.getByLabelText("Table"), "by_hand");
    await userEvent.click(screen.getByRole("button", { name: "Load choices for Table" }));
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toContain("Could not load the choices of Table");
    expect(alert.textContent).toContain("ECONNREFUSED");
    expect(last.table).toBe("by_hand");
    expect(bridge.callsOf("propOptions")[0]!.slice(0, 2)).toEqual(["sc_pg", "table"]);
  });

  it("adds choices of a list prop as lines", async () => {
    const bridge = new FakeBridge();
    bridge.propChoices.columns = { data: [{ label: "id", value: "id" }, { label: "name", value: "name" }], context: null };
    let last: FormState = {};
    renderWith(bridge, <Harness props={DB_PROPS} onState={(s) => (last = s)} />);
    await userEvent.click(screen.getByRole("button", { name: "Load choices for Columns" }));
    const select = await screen.findByLabelText("Columns: choices");
    await userEvent.selectOptions(select, "name");
    await userEvent.selectOptions(select, "id");
    expect(last.columns).toBe("name\nid");
  });
});
