/**
 * The e2e suite's Playwright fixtures. Import `test` and `expect` from here, not from
 * `@playwright/test`:
 *
 * - `apiServer` (per worker): a real API server (test/support/server.ts) on a fresh data dir.
 * - `account` (per test): a new user on that server with its own key, so every test starts from
 *   an empty account whatever ran before it in the worker.
 * - `dashboard` (per test): the web host (`electron/web/main.ts`, the real `npm run web` entry)
 *   connected to that account, and the test's `page` opened on it. `page` is the runner's own,
 *   so a failing test keeps its trace and a screenshot (playwright.config.ts).
 *
 * Journeys that need the Local profile (the host starting its embedded server) start their own
 * host with `startWebHost()` in `beforeAll`, and run in serial mode on one page.
 */
import { test as base, expect, type Page } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";
import type { Client } from "../../shared/client/index.js";
import { startServer, type TestServer, type TestUser } from "../../test/support/server.js";
import { hasChromium, SCREENSHOT_DIR, SKIP_REASON, trackErrors } from "./browser.js";
import { startWebHost, type WebHost } from "./web-host.js";

export interface Dashboard {
  page: Page;
  host: WebHost;
  /** The shared client, holding the account's key: set up state and check what the page did. */
  api: Client;
  /** Console errors and uncaught page errors since the page opened. */
  errors: string[];
}

interface TestFixtures {
  account: TestUser;
  dashboard: Dashboard;
}

interface WorkerFixtures {
  apiServer: TestServer;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  apiServer: [
    // Playwright reads the fixtures a function asks for from its first parameter: none here.
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const server = await startServer();
      await use(server);
      await server.stop();
    },
    { scope: "worker", timeout: 120_000 },
  ],
  account: async ({ apiServer }, use) => {
    await use(await apiServer.newUser());
  },
  dashboard: async ({ apiServer, account, page }, use) => {
    const host = await startWebHost({ remote: { baseUrl: apiServer.baseUrl, apiKey: account.key } });
    try {
      const errors = trackErrors(page);
      await page.goto(host.url);
      await use({ page, host, api: account.client, errors });
    } finally {
      await host.stop();
    }
  },
});

export { expect };

/** Skips every test of the calling file where Chromium is not installed, saying why. */
export function requireChromium(): void {
  if (!hasChromium) console.warn(`e2e: skipped: ${SKIP_REASON}`);
  test.skip(!hasChromium, SKIP_REASON);
}

/**
 * Saves a full-page screenshot as e2e/screenshots/<name>.png (kept between runs for people to
 * look at) and attaches it to the test's entry in the HTML report. Returns the file's path.
 */
export async function screenshot(page: Page, name: string): Promise<string> {
  fs.mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = path.join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  await test.info().attach(name, { path: file, contentType: "image/png" });
  return file;
}
