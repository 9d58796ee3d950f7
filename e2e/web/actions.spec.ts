/**
 * The Actions view in Chromium against web mode and a real server that loads the vendor's
 * packages (@pipedream/helper_functions, from the npm registry): name the app, search, choose
 * Base64 Decode String, run it with a value, read its result (summary, exports, duration); axe
 * finds nothing on the view. Screenshots: e2e/screenshots/actions-*.png.
 */
import type { BrowserContext, Page } from "@playwright/test";
import { createClient } from "../../shared/client/index.js";
import { startServer, type TestServer } from "../../test/support/server.js";
import { expectAccessible } from "../support/axe.js";
import { expect, requireChromium, screenshot, test } from "../support/fixtures.js";
import { closeJourney, openJourney } from "../support/journey.js";
import type { WebHost } from "../support/web-host.js";

requireChromium();

const INSTALL_MS = 240_000;

test.describe("actions (web mode, a real server with the vendor's helper_functions)", () => {
  test.describe.configure({ mode: "serial" });
  let server: TestServer;
  let host: WebHost;
  let context: BrowserContext;
  let page: Page;
  let errors: string[];

  test.beforeAll(async ({ browser }) => {
    test.setTimeout(INSTALL_MS + 60_000);
    server = await startServer({
      env: {
        HEADWATER_NPM_COMPONENTS: "1",
        HEADWATER_NPM_COMPONENT_VERSIONS: "@pipedream/helper_functions@0.3.13",
      },
    });
    const user = await server.newUser();
    // The first listing installs the package: done here, with no 30 s client limit, so the
    // page's first answer is quick.
    const warm = createClient({ baseUrl: server.baseUrl, apiKey: user.key, timeoutMs: INSTALL_MS });
    await warm.listActions({ app: "helper_functions" });
    ({ host, context, page, errors } = await openJourney(browser, { remote: { baseUrl: server.baseUrl, apiKey: user.key } }));
  });

  test.afterAll(async () => {
    await closeJourney({ context, host });
    await server?.stop();
  });

  test("finds an app's action, runs it and shows its result", async () => {
    await page.getByRole("link", { name: "Actions", exact: true }).click();
    await page.getByRole("heading", { name: "Actions", level: 1 }).waitFor();
    await page.getByLabel("App", { exact: true }).fill("helper_functions");
    await page.getByLabel("Search actions").fill("base64");
    const item = page.getByRole("button", { name: /Base64 Decode String/ });
    await expect(item).toBeVisible({ timeout: 60_000 });
    await expect(page.getByRole("button", { name: /Compare Arrays/ })).toHaveCount(0);
    await item.click();
    await page.getByRole("textbox", { name: "data", exact: true }).fill(Buffer.from("hello actions").toString("base64"));
    await page.getByRole("button", { name: "Run", exact: true }).click();
    const result = page.locator(".action-result");
    await expect(result.getByRole("heading", { name: /Result · \d+ ms/ })).toBeVisible({ timeout: 60_000 });
    await expect(result.getByRole("tree", { name: "Exports" })).toContainText("hello actions");
    await expect(result.getByText(/The action failed/)).toHaveCount(0);
    await screenshot(page, "actions-result");
    await expectAccessible(page, "actions (a result)");
    expect(errors).toEqual([]);
  });
});
