/**
 * Connected accounts in Chromium against web mode and a real server: an account is added in the
 * Connected accounts panel (its values typed into password inputs), a source is created with it
 * from the create-source form (sent as `{authProvisionId}`), its configuration shows the account
 * chosen, a second source gets a new account typed in the form (inline `$auth`, made into an
 * account by the server), and deleting an account in use is refused with what uses it. No value
 * is ever on the page after it was typed; axe finds nothing on the panel, its dialogs and the
 * form. Screenshots: e2e/screenshots/accounts-*.png.
 */
import crypto from "node:crypto";
import type { BrowserContext, Page } from "@playwright/test";
import type { Client } from "../../shared/client/index.js";
import { expectAccessible } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";
import { closeJourney, openJourney } from "../support/journey.js";
import type { WebHost } from "../support/web-host.js";

requireChromium();

const suffix = crypto.randomBytes(3).toString("hex");
/** The values typed: none of them may be on the page once saved. */
const PASSWORD = `pw-${crypto.randomBytes(8).toString("hex")}`;
const INLINE_PASSWORD = `pw-inline-${crypto.randomBytes(8).toString("hex")}`;
const ACCOUNT = `e2e prod db ${suffix}`;
const SOURCE = `e2e pg rows ${suffix}`;
const INLINE_SOURCE = `e2e pg inline ${suffix}`;

/** A component with one app prop (and no trigger: it never needs to run here). */
const COMPONENT = `
export default {
  key: "e2e-accounts-pg-${suffix}",
  name: "PG rows ${suffix}",
  version: "0.1.0",
  props: { pg: { type: "app", app: "postgresql" } },
  async run() { this.$emit({ ok: true }); },
};
`;

test.describe("connected accounts (web mode, a real server)", () => {
  test.describe.configure({ mode: "serial" });
  let host: WebHost;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let api: Client;
  let accountId: string;
  let sourceId: string;

  test.beforeAll(async ({ browser, apiServer }) => {
    test.setTimeout(180_000);
    const user = await apiServer.newUser();
    api = user.client;
    ({ host, context, page, errors } = await openJourney(browser, { remote: { baseUrl: apiServer.baseUrl, apiKey: user.key } }));
  });

  test.afterAll(async () => {
    await closeJourney({ context, host });
  });

  const panel = () => page.getByRole("region", { name: "Accounts", exact: true });
  /** Nothing typed as a value is anywhere in the page's DOM (attributes and input values included). */
  const expectNoSecret = async () => {
    const html = await page.content();
    const values = await page.locator("input").evaluateAll((els) => els.map((e) => (e as HTMLInputElement).value));
    for (const secret of [PASSWORD, INLINE_PASSWORD]) {
      expect(html).not.toContain(secret);
      expect(values).not.toContain(secret);
    }
  };

  test("adds an account in the panel: values in password inputs, only field names shown", async () => {
    await page.getByRole("link", { name: "Connected accounts" }).click();
    await page.getByRole("heading", { name: "Connected accounts", level: 1 }).waitFor();
    await expect(panel().getByText(/No connected accounts yet/)).toBeVisible({ timeout: 30_000 });
    await expectAccessible(page, "connected accounts (empty)");

    await panel().getByRole("button", { name: "Add account" }).click();
    const dialog = page.getByRole("dialog", { name: "Add account" });
    await dialog.getByLabel("App", { exact: true }).fill("postgresql");
    await dialog.getByLabel("Name", { exact: true }).fill(ACCOUNT);
    await dialog.getByLabel("Credentials: field 1 name").fill("host");
    await dialog.getByRole("button", { name: "Add a credential" }).click();
    await dialog.getByLabel("Credentials: field 2 name").fill("password");
    const hostValue = dialog.getByLabel("Credentials: host");
    const password = dialog.getByLabel("Credentials: password");
    expect([await hostValue.getAttribute("type"), await password.getAttribute("type")]).toEqual(["password", "password"]);
    await hostValue.fill("db.internal");
    await password.fill(PASSWORD);
    await expectAccessible(page, "the Add account dialog");
    await screenshot(page, "accounts-01-add");
    await dialog.getByRole("button", { name: "Add account" }).click();
    await expect(dialog).toBeHidden({ timeout: 15_000 });

    const row = panel().getByRole("row", { name: ACCOUNT, exact: true });
    await expect(row).toBeVisible();
    await expect(row.getByRole("list", { name: `Fields of ${ACCOUNT}` }).getByRole("listitem")).toHaveText(["host", "password"]);
    await expect(row).toContainText("not used");
    const listed = (await api.listMyAccounts({ app: "postgresql" })).data;
    expect(listed.map((a) => [a.name, a.fields, a.used_by])).toEqual([[ACCOUNT, ["host", "password"], 0]]);
    accountId = listed[0]!.id;
    await expectNoSecret();
    await expectAccessible(page, "connected accounts (one account)");
    await screenshot(page, "accounts-02-listed");
  });

  test("creates a source with the account: sent as {authProvisionId}, preselected in its configuration", async () => {
    await page.getByRole("link", { name: "Sources", exact: true }).click();
    await page.getByRole("button", { name: "+ New source" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("tab", { name: "Paste code" }).click();
    await dialog.getByLabel("Component code").fill(COMPONENT);
    await dialog.getByRole("button", { name: "Save code and continue" }).click();

    const group = dialog.getByRole("group", { name: /pg credentials/ });
    await group.waitFor({ timeout: 30_000 });
    await group.getByRole("radio", { name: "Use an existing account" }).check();
    const select = group.getByRole("combobox", { name: "pg: account" });
    await expect(select.locator("option")).toHaveText(["Choose an account…", `${ACCOUNT} · host, password`]);
    await select.selectOption({ label: `${ACCOUNT} · host, password` });
    await dialog.getByLabel("Name", { exact: true }).fill(SOURCE);
    await expectAccessible(page, "the create-source form with an account chosen");
    await screenshot(page, "accounts-03-source-form");
    await dialog.getByRole("button", { name: "Create source" }).click();
    await page.getByRole("heading", { name: SOURCE, level: 2 }).waitFor({ timeout: 30_000 });

    const created = (await api.listMySources()).data.find((s) => s.name === SOURCE)!;
    sourceId = created.id;
    expect(created.configured_props).toEqual({ pg: { authProvisionId: accountId } });
    expect((await api.getAccount(accountId)).used_by).toBe(1);

    await page.getByRole("tab", { name: "Configuration" }).click();
    const config = page.getByRole("group", { name: /pg credentials/ });
    await expect(config.getByRole("radio", { name: "Use an existing account" })).toBeChecked();
    await expect(config.getByRole("combobox", { name: "pg: account" })).toHaveValue(accountId);
    await expectNoSecret();
    await expectAccessible(page, "a source's configuration using an account");
    await screenshot(page, "accounts-04-source-configuration");
  });

  test("a new account typed in the form becomes an account of its own; its value is never shown", async () => {
    await page.getByRole("button", { name: "+ New source" }).click();
    const dialog = page.getByRole("dialog");
    await dialog.getByRole("tab", { name: "Saved" }).click();
    await dialog.getByRole("list", { name: "Saved components" }).getByRole("button", { name: new RegExp(`PG rows ${suffix}`) }).click();
    const group = dialog.getByRole("group", { name: /pg credentials/ });
    await expect(group.getByRole("radio", { name: "Add a new account" })).toBeChecked();
    await group.getByRole("button", { name: "Add a credential" }).click();
    await group.getByLabel("pg: field 1 name").fill("password");
    await expect(group.getByLabel("pg: password")).toHaveAttribute("type", "password");
    await group.getByLabel("pg: password").fill(INLINE_PASSWORD);
    await dialog.getByLabel("Name", { exact: true }).fill(INLINE_SOURCE);
    await expectAccessible(page, "the create-source form with a new account");
    await dialog.getByRole("button", { name: "Create source" }).click();
    await page.getByRole("heading", { name: INLINE_SOURCE, level: 2 }).waitFor({ timeout: 30_000 });

    const created = (await api.listMySources()).data.find((s) => s.name === INLINE_SOURCE)!;
    const ref = (created.configured_props.pg as { authProvisionId?: string }).authProvisionId;
    expect(ref).toMatch(/^apn_/);
    expect(ref).not.toBe(accountId);
    const made = await api.getAccount(ref!);
    expect([made.app, made.fields, made.used_by]).toEqual(["postgresql", ["password"], 1]);
    await expectNoSecret();

    // The panel lists it beside the first, each with what uses it.
    await page.getByRole("link", { name: "Connected accounts" }).click();
    await expect(panel().getByRole("row", { name: made.name, exact: true })).toContainText("1 source or step");
    await expect(panel().getByRole("row", { name: ACCOUNT, exact: true })).toContainText("1 source or step");
    await expectNoSecret();
  });

  test("deleting an account in use is refused, saying what uses it; once unused it goes", async () => {
    const row = panel().getByRole("row", { name: ACCOUNT, exact: true });
    await row.getByRole("button", { name: `Delete ${ACCOUNT}` }).click();
    const confirm = page.getByRole("dialog", { name: `Delete ${ACCOUNT}?` });
    await expect(confirm).toContainText("It is used by 1 source or step");
    await confirm.getByRole("button", { name: "Delete account" }).click();

    const inUse = page.getByRole("alertdialog", { name: `${ACCOUNT} is still in use` });
    await expect(inUse).toContainText("was not deleted");
    const link = inUse.getByRole("list", { name: `What uses ${ACCOUNT}` }).getByRole("link");
    await expect(link).toHaveCount(1);
    await expect(link).toContainText(SOURCE);
    await expect(link).toHaveAttribute("href", `#/sources/${sourceId}`);
    await expectAccessible(page, "the account-in-use dialog");
    await screenshot(page, "accounts-05-in-use");
    expect((await api.getAccount(accountId)).id).toBe(accountId);

    // The link opens the source that uses it; once that is deleted, the account is unused and can go.
    await link.click();
    await page.getByRole("heading", { name: SOURCE, level: 2 }).waitFor();
    await page.getByRole("button", { name: "Delete source" }).click();
    await page.getByRole("dialog", { name: `Delete ${SOURCE}?` }).getByRole("button", { name: "Delete source" }).click();
    await expect(page.getByRole("heading", { name: SOURCE, level: 2 })).toHaveCount(0, { timeout: 15_000 });
    await page.getByRole("link", { name: "Connected accounts" }).click();
    await expect(row).toContainText("not used", { timeout: 15_000 });
    await row.getByRole("button", { name: `Delete ${ACCOUNT}` }).click();
    await page.getByRole("dialog", { name: `Delete ${ACCOUNT}?` }).getByRole("button", { name: "Delete account" }).click();
    await expect(row).toHaveCount(0, { timeout: 15_000 });
    expect((await api.listMyAccounts()).data.map((a) => a.id)).not.toContain(accountId);
    await expectNoSecret();
    expect(errors).toEqual([]);
  });
});
