/**
 * The dashboard's accessibility audit (issue 21, item 5): axe-core's WCAG 2.1 A and AA rules over
 * every view, dialog and state (a selected row, a hovered row, a validation error, a refused
 * key, search active), each in the light and the dark colour scheme, against a real server with
 * real events. Every audit attaches its findings to the report (`axe: <view> (<scheme>)`); a
 * failure lists one line per violation and element. Screenshots: e2e/screenshots/a11y-*.png.
 */
import type { BrowserContext, Page } from "@playwright/test";
import { startServer, type TestServer, type TestUser } from "../../test/support/server.js";
import { expectAccessibleInBothSchemes } from "../support/axe.js";
import { echoListener, orderEmitter } from "../support/components.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";
import { closeJourney, openJourney } from "../support/journey.js";
import type { WebHost } from "../support/web-host.js";

requireChromium();

const EMITTER = orderEmitter("a11y-orders", "Orders");
const LISTENER = echoListener("a11y-listener");
/** A component with an app prop, for the connected accounts. */
const APP_COMPONENT = `
export default {
  key: "a11y-orders-rows", name: "Orders rows", version: "0.0.1",
  props: { pg: { type: "app", app: "postgresql" } },
  async run() { this.$emit({ ok: true }); },
};`;

/** A POST of JSON; the run id the answer names (a workflow's endpoint), else "". */
async function post(url: string, body: unknown): Promise<string> {
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`POST ${url}: ${res.status}`);
  return res.headers.get("x-headwater-run-id") ?? "";
}

test.describe("accessibility: every view in light and dark (web mode, a real server)", () => {
  test.describe.configure({ mode: "serial" });
  let server: TestServer;
  let user: TestUser;
  let host: WebHost;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let emitterId: string;
  let workflowId: string;

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(240_000);
    server = await startServer();
    user = await server.newUser();
    const emitter = await user.client.createSource({ component_code: EMITTER, name: "orders" });
    const listener = await user.client.createSource({ component_code: LISTENER, name: "order listener" });
    emitterId = emitter.id;
    await user.client.createSubscription({ emitter_id: emitterId, listener_id: listener.id });
    const wf = await user.client.createWorkflow({
      name: "order digest",
      steps: [{ code: "export default { async run({ steps }) { return { ok: true }; } }" }],
    });
    workflowId = wf.id;
    const endpoint = `${server.origin}/e/${emitterId}`;
    for (let n = 1; n <= 12; n++) await post(endpoint, { n, customer: `customer ${n}`, total: n * 10 });
    await post(endpoint, { n: 13, fail: true });
    await expect
      .poll(async () => (await user.client.listSourceEvents(emitterId, { limit: 1 })).page_info.total_count, {
        timeout: 60_000,
      })
      .toBe(12);
    ({ host, context, page, errors } = await openJourney(browser, {
      remote: { baseUrl: server.baseUrl, apiKey: user.key },
    }));
  });

  test.afterAll(async () => {
    await closeJourney({ context, host });
    await server?.stop();
  });

  test("sources: the list and a source's live events, volume chart, and a hovered row", async () => {
    await page
      .getByRole("list", { name: "Source list" })
      .getByRole("link", { name: /^orders/ })
      .click();
    const grid = page.getByRole("grid", { name: `Events of ${emitterId}` });
    await expect(grid.locator("[role=row][data-event-id]")).toHaveCount(12, { timeout: 30_000 });
    await expect(page.getByRole("img", { name: /^Event volume/ })).toHaveAttribute(
      "aria-label",
      /12 events, 1 error/,
      { timeout: 30_000 },
    );
    await grid.locator("[role=row][data-event-id]").nth(2).hover();
    await expectAccessibleInBothSchemes(page, "source detail with events (row hovered)");
    await screenshot(page, "a11y-01-source-events");
  });

  test("sources: a selected event, its detail pane and the selected row's secondary text", async () => {
    const grid = page.getByRole("grid", { name: `Events of ${emitterId}` });
    const row = grid.locator("[role=row][data-event-id]").nth(1);
    const id = (await row.getAttribute("data-event-id"))!;
    await row.click();
    const pane = page.getByRole("complementary", { name: `Event ${id}` });
    await expect(pane.getByRole("tree", { name: "Event data" })).toContainText("customer");
    await expect(pane.getByRole("button", { name: /^Copy JSON/ })).toBeVisible();
    // The pointer away from the table: the selected colours alone, then hovered as well.
    await page.mouse.move(0, 0);
    await expectAccessibleInBothSchemes(page, "event selected with its detail");
    await row.hover();
    await expectAccessibleInBothSchemes(page, "event selected and hovered");
    await screenshot(page, "a11y-02-event-selected");
  });

  test("sources: search active, the $errors channel and the configuration tab", async () => {
    const grid = page.getByRole("grid", { name: `Events of ${emitterId}` });
    await page.getByRole("searchbox", { name: "Search events" }).fill("customer 7");
    await expect(grid.locator("[role=row][data-event-id]")).toHaveCount(1, { timeout: 15_000 });
    await expectAccessibleInBothSchemes(page, "event search active");
    await page.getByRole("searchbox", { name: "Search events" }).fill("");
    await page.getByRole("tab", { name: "$errors" }).click();
    await expect(
      page.getByRole("grid", { name: /^Events of/ }).locator("[role=row][data-event-id]"),
    ).toHaveCount(1, {
      timeout: 15_000,
    });
    await expectAccessibleInBothSchemes(page, "the $errors channel");
    await page.getByRole("tab", { name: "Events", exact: true }).click();
    await page.getByRole("tab", { name: "Configuration" }).click();
    await expectAccessibleInBothSchemes(page, "a source's configuration");
    await page.getByRole("tab", { name: "Live events" }).click();
  });

  test("sources: the Send test event panel and the replay dialog", async () => {
    await page.getByRole("button", { name: "Send test event" }).click();
    await expect(page.getByRole("textbox", { name: "Body" })).toBeVisible();
    await expectAccessibleInBothSchemes(page, "the Send test event panel");
    await page
      .getByRole("region", { name: "Send test event" })
      .getByRole("button", { name: "Close" })
      .click();

    const grid = page.getByRole("grid", { name: `Events of ${emitterId}` });
    await grid.locator("[role=row][data-event-id]").first().click();
    await page
      .getByRole("complementary", { name: /^Event / })
      .getByRole("button", { name: "Replay" })
      .click();
    const dialog = page.getByRole("dialog", { name: "Replay this event" });
    await expect(dialog.getByRole("radio", { name: /^All listeners/ })).toBeVisible();
    await expectAccessibleInBothSchemes(page, "the replay dialog");
    await dialog.getByRole("button", { name: "Close" }).first().click();
    await expect(dialog).toBeHidden();
  });

  test("sources: the confirm dialog of a delete", async () => {
    await page.getByRole("button", { name: "Delete all" }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog.getByRole("button", { name: "Delete all events" })).toBeVisible();
    await expectAccessibleInBothSchemes(page, "the delete confirmation");
    await screenshot(page, "a11y-03-confirm-delete");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
  });

  test("sources: the create-source form, and its validation error", async () => {
    await page.getByRole("button", { name: "+ New source" }).click();
    const dialog = page.getByRole("dialog");
    await expect(dialog.getByRole("tab", { name: "Paste code" })).toBeVisible();
    await expectAccessibleInBothSchemes(page, "the create-source dialog");
    await dialog.getByRole("tab", { name: "Paste code" }).click();
    await dialog.getByRole("button", { name: "Save code and continue" }).click();
    // The generated form's required fields left empty: the form says so, field by field.
    await dialog.getByLabel("timer: interval in seconds").fill("");
    await dialog.getByLabel("Greeting").fill("");
    await dialog.getByRole("button", { name: "Create source" }).click();
    await expect(dialog.getByText(/required|must be/).first()).toBeVisible();
    await expectAccessibleInBothSchemes(page, "the create-source form with a validation error");
    await screenshot(page, "a11y-04-create-source-error");
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
  });

  test("connected accounts: the panel by app, its dialogs, and an app prop in the source form", async () => {
    const db = await user.client.createAccount({
      app: "postgresql",
      name: "orders db",
      auth: { host: "db.internal", password: "a11y-pw" },
    });
    await user.client.createAccount({ app: "slack", name: "team slack", auth: { token: "a11y-token" } });
    // A source that uses the first account, so that deleting it is refused.
    await user.client.createSource({
      component_code: APP_COMPONENT,
      name: "orders rows",
      configured_props: { pg: { authProvisionId: db.id } },
    });

    await page.getByRole("link", { name: "Connected accounts" }).click();
    const row = page.getByRole("row", { name: "orders db", exact: true });
    await expect(row).toContainText("1 source or step", { timeout: 15_000 });
    await expectAccessibleInBothSchemes(page, "connected accounts");
    await screenshot(page, "a11y-06-connected-accounts");

    await page.getByRole("button", { name: "Add account" }).click();
    const add = page.getByRole("dialog", { name: "Add account" });
    await add.getByRole("button", { name: "Add account" }).click();
    await expect(add.getByRole("alert").first()).toBeVisible();
    await expectAccessibleInBothSchemes(page, "the Add account dialog with its validation errors");
    await page.keyboard.press("Escape");
    await expect(add).toBeHidden();

    await row.getByRole("button", { name: "Delete orders db" }).click();
    await page
      .getByRole("dialog", { name: "Delete orders db?" })
      .getByRole("button", { name: "Delete account" })
      .click();
    const inUse = page.getByRole("alertdialog", { name: "orders db is still in use" });
    await expect(inUse.getByRole("link")).toHaveCount(1);
    await expectAccessibleInBothSchemes(page, "the account-in-use dialog");
    await inUse.getByRole("button", { name: "OK" }).click();

    await page.getByRole("link", { name: "Sources", exact: true }).click();
    await page.getByRole("button", { name: "+ New source" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("tab", { name: "Saved" }).click();
    await dialog
      .getByRole("list", { name: "Saved components" })
      .getByRole("button", { name: /Orders rows/ })
      .click();
    await dialog.getByRole("radio", { name: "Use an existing account" }).check();
    await dialog
      .getByRole("combobox", { name: "pg: account" })
      .selectOption({ label: "orders db · host, password" });
    await expectAccessibleInBothSchemes(page, "an app prop using an existing account");
    await dialog.getByRole("radio", { name: "Add a new account" }).check();
    await expectAccessibleInBothSchemes(page, "an app prop with a new account's credentials");
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
  });

  test("environment: the variables (a secret and a plain one), the Add dialog with its errors, replacing a secret", async () => {
    await user.client.setEnvVar("A11Y_TOKEN", { value: "a11y-secret-value" });
    await user.client.setEnvVar("A11Y_REGION", { value: "eu-west", secret: false });
    await page.getByRole("link", { name: "Environment", exact: true }).click();
    const panel = page.getByRole("region", { name: "Variables" });
    await expect(panel.getByRole("row", { name: "A11Y_TOKEN" })).toContainText("hidden", { timeout: 15_000 });
    await expectAccessibleInBothSchemes(page, "environment variables");
    await screenshot(page, "a11y-07-environment");

    await panel.getByRole("button", { name: "Add variable" }).click();
    const add = page.getByRole("dialog", { name: "Add variable" });
    await add.getByRole("button", { name: "Add variable" }).click();
    await expect(add.getByRole("alert").first()).toBeVisible();
    await expectAccessibleInBothSchemes(page, "the Add variable dialog with its validation errors");
    await page.keyboard.press("Escape");
    await expect(add).toBeHidden();

    await panel.getByRole("button", { name: "Replace value of A11Y_TOKEN" }).click();
    const replace = page.getByRole("dialog", { name: "Replace the value of A11Y_TOKEN" });
    await expectAccessibleInBothSchemes(page, "the dialog that replaces a secret's value");
    await page.keyboard.press("Escape");
    await expect(replace).toBeHidden();
  });

  test("components, subscriptions (with the Emitter list open), workflows, flow and account", async () => {
    await page.getByRole("link", { name: "Components", exact: true }).click();
    await page.getByRole("heading", { name: "Components", level: 1 }).waitFor();
    await expectAccessibleInBothSchemes(page, "components");

    await page.getByRole("link", { name: "Subscriptions", exact: true }).click();
    const emitter = page
      .getByRole("form", { name: "New subscription" })
      .getByRole("combobox", { name: "Emitter" });
    await emitter.fill("ord");
    await expect(page.getByRole("listbox")).toBeVisible();
    await expectAccessibleInBothSchemes(page, "subscriptions with the Emitter list open");
    await page.keyboard.press("Escape");

    await page.getByRole("link", { name: "Workflows", exact: true }).click();
    await page.getByRole("link", { name: /order digest/ }).click();
    await page.getByRole("heading", { name: "order digest", level: 2 }).waitFor();
    expect(page.url()).toContain(workflowId);
    await expectAccessibleInBothSchemes(page, "a workflow");
    // Its runs (none yet: the list's empty state and the live pill; e2e/web/runs.spec.ts audits
    // a failed run's inspector) and its settings.
    await page.getByRole("tab", { name: "Runs" }).click();
    await expect(page.getByText(/^No runs yet/)).toBeVisible();
    await expectAccessibleInBothSchemes(page, "a workflow's runs (none yet)");
    await page.getByRole("tab", { name: "Settings" }).click();
    await expect(page.getByRole("combobox", { name: "Answer HTTP callers" })).toBeVisible();
    await expectAccessibleInBothSchemes(page, "a workflow's settings");

    await page.getByRole("link", { name: "Flow", exact: true }).click();
    await expect(page.getByRole("application", { name: /^Event flow/ })).toBeVisible();
    await expectAccessibleInBothSchemes(page, "the flow view");

    await page.getByRole("link", { name: "Account", exact: true }).click();
    await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
    await expectAccessibleInBothSchemes(page, "account");
  });

  test("workflows: the builder's test panel, typed JSON refused then tested, a step's result", async () => {
    await page.getByRole("link", { name: "Workflows", exact: true }).click();
    await page.getByRole("link", { name: /order digest/ }).click();
    await page.getByRole("tab", { name: /^Steps/ }).click();
    await page.getByRole("radio", { name: "JSON typed here" }).check();
    const json = page.getByRole("textbox", { name: "Test event (JSON)" });
    await json.click();
    await page.keyboard.press("Control+a");
    await page.keyboard.type('{"order": ');
    const test = page.getByRole("button", { name: "Test workflow" });
    await expect(test).toBeDisabled();
    await expect(page.getByText(/^The test event is not valid JSON/)).toBeVisible();
    await expectAccessibleInBothSchemes(page, "the builder's test panel with JSON that does not parse");
    await page.keyboard.type("7}");
    await test.click();
    const result = page.getByRole("region", { name: /^Test result of step step_1/ });
    await expect(result).toContainText("Success", { timeout: 60_000 });
    await expectAccessibleInBothSchemes(page, "the builder with a test result");
    await screenshot(page, "a11y-06-builder-test");
    await page.getByRole("link", { name: "Account", exact: true }).click();
    await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  });

  test("a run compared with the last good run (the dialog of the run inspector)", async () => {
    // A good run, a change of the step, then a run of the changed step: the comparison has a code diff.
    const runOf = async () => {
      const res = await post(`${server.origin}/e/${workflowId}`, {});
      await expect
        .poll(async () => (await user.client.getWorkflowRun(workflowId, res)).status, { timeout: 30_000 })
        .toBe("success");
      return res;
    };
    const good = await runOf();
    await user.client.updateWorkflow(workflowId, {
      steps: [{ code: "export default { async run({ steps }) { return { ok: true, digest: 2 }; } }" }],
    });
    const changed = await runOf();
    await page.getByRole("link", { name: "Workflows", exact: true }).click();
    await page.getByRole("link", { name: /order digest/ }).click();
    await page.getByRole("tab", { name: "Runs" }).click();
    const rows = page.getByRole("grid", { name: `Runs of ${workflowId}` }).locator("[role=row][data-run-id]");
    await expect(rows.first()).toHaveAttribute("data-run-id", changed, { timeout: 30_000 });
    await rows.first().click();
    const inspector = page.getByRole("complementary", { name: `Run ${changed}` });
    await inspector.getByRole("button", { name: "Compare with the last good run" }).click();
    const dialog = page.getByRole("dialog", { name: "Compare with the last good run" });
    await expect(dialog.getByRole("definition").nth(1)).toContainText(good);
    await expect(dialog.getByRole("region", { name: /^Code of step / })).toBeVisible();
    await screenshot(page, "a11y-run-compare");
    await expectAccessibleInBothSchemes(page, "a run compared with the last good run");
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    // Back where the next test starts: the Account view.
    await page.getByRole("link", { name: "Account", exact: true }).click();
    await page.getByRole("heading", { name: "Account", level: 1 }).waitFor();
  });

  test("account: the error of a connection whose key is refused", async () => {
    const form = page.getByRole("form", { name: "Add a remote connection" });
    await form.getByRole("textbox", { name: "Name" }).fill("Wrong key");
    await form.getByRole("textbox", { name: "Base URL" }).fill(server.baseUrl);
    await form.getByRole("textbox", { name: "API key" }).fill("definitely-not-a-valid-key");
    await form.getByRole("button", { name: "Add and connect" }).click();
    await expect(page.getByRole("alert").first()).toBeVisible({ timeout: 15_000 });
    await expectAccessibleInBothSchemes(page, "account with a connection error");
    await screenshot(page, "a11y-05-connection-error");
    expect(errors).toEqual([]);
  });
});
