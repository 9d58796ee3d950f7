/**
 * Account → Users, in Chromium against web mode and a real server: an admin lists the users,
 * creates one (the key shown once, and it works), edits their quotas, disables and enables them,
 * and deletes them after a confirmation; each step is checked on the server and from the user's
 * side (their key). A user who is not an admin has no Users panel. Screenshots: users-*.png.
 */
import crypto from "node:crypto";
import type { BrowserContext, Page } from "@playwright/test";
import { createClient, type Client } from "../../shared/client/index.js";
import { ApiError } from "../../shared/client/index.js";
import { expectAccessible } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";
import { closeJourney, openJourney } from "../support/journey.js";
import type { WebHost } from "../support/web-host.js";

requireChromium();

/** The API error a call ends with (or "ok"). */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return "ok";
  } catch (err) {
    return err instanceof ApiError ? `${err.status} ${err.code}` : String(err);
  }
}

test.describe("Users panel (web mode, an admin's remote connection)", () => {
  test.describe.configure({ mode: "serial" });
  let host: WebHost;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];
  let admin: Client;
  let baseUrl: string;
  const suffix = crypto.randomBytes(3).toString("hex");
  const adminName = `e2e-admin-${suffix}`;
  const carolName = `e2e-carol-${suffix}`;
  let carol: { id: string; client: Client };

  test.beforeAll(async ({ browser, apiServer }) => {
    test.setTimeout(180_000);
    baseUrl = apiServer.baseUrl;
    const made = await apiServer.admin.createUser({ username: adminName, admin: true });
    admin = createClient({ baseUrl, apiKey: made.api_key! });
    ({ host, context, page, errors } = await openJourney(browser, { remote: { baseUrl, apiKey: made.api_key! } }));
  });

  test.afterAll(async () => {
    await closeJourney({ context, host });
  });

  const panel = () => page.getByRole("region", { name: "Users" });
  const row = (name: string) => panel().getByRole("row", { name, exact: true });

  test("an admin sees every user, themselves marked", async () => {
    await page.getByRole("link", { name: "Account", exact: true }).click();
    await expect(row(adminName)).toBeVisible({ timeout: 30_000 });
    await expect(row(adminName)).toContainText("you");
    await expect(row(adminName)).toContainText("Administrator");
    await expect(row("admin")).toBeVisible();
    // No locking yourself out from here.
    await expect(row(adminName).getByRole("button", { name: `Delete ${adminName}` })).toHaveCount(0);
  });

  test("creates a user: the key is shown once, and it works", async () => {
    await panel().getByRole("button", { name: "New user" }).click();
    const dialog = page.getByRole("dialog", { name: "New user" });
    await dialog.getByLabel("Username").fill(carolName);
    await dialog.getByLabel("Email").fill("carol@example.test");
    await dialog.getByRole("button", { name: "Create user" }).click();
    const shown = page.getByRole("dialog", { name: `API key for ${carolName}` });
    const key = (await shown.getByLabel(`API key for ${carolName}`).innerText()).trim();
    await screenshot(page, "users-01-key-shown-once");
    const client = createClient({ baseUrl, apiKey: key });
    const me = await client.getMe();
    expect(me).toMatchObject({ username: carolName, email: "carol@example.test", admin: false });
    carol = { id: me.id, client };
    await shown.getByRole("button", { name: "Done" }).click();
    await expect(row(carolName)).toBeVisible();
    await expect(row(carolName)).toContainText("active");
    expect(await page.content()).not.toContain(key);
  });

  test("edits a user's quotas; they are in force on the server", async () => {
    await row(carolName).getByRole("button", { name: `Edit ${carolName}` }).click();
    const dialog = page.getByRole("dialog", { name: `Edit ${carolName}` });
    await dialog.getByLabel("Invocations per day").fill("5");
    await dialog.getByLabel("Compute minutes per day").fill("30");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(dialog).toHaveCount(0);
    await expect(row(carolName)).toContainText("0 of 5 custom");
    expect(await admin.getUser(carol.id)).toMatchObject({
      daily_invocations_quota: 5,
      daily_compute_time_quota: 1_800_000,
      quota_overrides: { daily_invocations_quota: 5, daily_compute_time_quota: 1_800_000 },
    });
    expect((await carol.client.getMe()).daily_invocations_quota).toBe(5);

    // Empty goes back to the server's default.
    await row(carolName).getByRole("button", { name: `Edit ${carolName}` }).click();
    await dialog.getByLabel("Invocations per day").fill("");
    await dialog.getByRole("button", { name: "Save" }).click();
    await expect(dialog).toHaveCount(0);
    await expect.poll(async () => (await admin.getUser(carol.id)).quota_overrides?.daily_invocations_quota).toBeNull();
  });

  test("disables and enables a user: their key is refused, then works again", async () => {
    await row(carolName).getByRole("button", { name: `Disable ${carolName}` }).click();
    await expect(row(carolName)).toContainText("disabled");
    expect(await outcome(carol.client.getMe())).toBe("403 user_disabled");
    await screenshot(page, "users-02-panel");
    await expectAccessible(page, "the Users panel", { include: ".users-panel" });

    await row(carolName).getByRole("button", { name: `Enable ${carolName}` }).click();
    await expect(row(carolName)).toContainText("active");
    expect(await outcome(carol.client.getMe())).toBe("ok");
  });

  test("deletes a user after a confirmation: they and their sources are gone", async () => {
    const source = await carol.client.createSource({ key: "http-new-requests", name: "carol's hook" });
    await row(carolName).getByRole("button", { name: `Delete ${carolName}` }).click();
    const confirm = page.getByRole("dialog", { name: `Delete ${carolName}?` });
    await expect(confirm).toContainText("everything they own");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect(await outcome(carol.client.getMe())).toBe("ok");

    await row(carolName).getByRole("button", { name: `Delete ${carolName}` }).click();
    await confirm.getByRole("button", { name: "Delete user" }).click();
    await expect(row(carolName)).toHaveCount(0);
    expect(await outcome(admin.getUser(carol.id))).toBe("404 not_found");
    expect(await outcome(carol.client.getMe())).toMatch(/^401 /);
    const endpoint = (source.configured_props.http as { endpoint_url: string }).endpoint_url;
    expect((await fetch(endpoint, { method: "POST", body: "{}" })).status).toBe(404);
    expect(errors).toEqual([]);
  });
});

test("a user who is not an admin has no Users panel", async ({ dashboard }) => {
  const { page } = dashboard;
  await page.getByRole("link", { name: "Account", exact: true }).click();
  await expect(page.getByRole("region", { name: "User" })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole("region", { name: "Users" })).toHaveCount(0);
});
