/**
 * The dashboard's end-to-end suite (`npm run test:e2e`; `npm test` runs it last): e2e/**\/*.spec.ts
 * on Playwright's test runner, driving Debian's Chromium by `executablePath` (no browser is ever
 * downloaded). A failing test keeps its trace and a screenshot under test-results/e2e/; the HTML
 * report is written to playwright-report/ and never opened by itself (`npx playwright show-report`).
 */
import { defineConfig } from "@playwright/test";
import { CHROMIUM, CHROMIUM_ARGS } from "./e2e/support/browser.js";

export default defineConfig({
  testDir: "e2e",
  testMatch: "**/*.spec.ts",
  outputDir: "test-results/e2e",
  // toHaveScreenshot's references sit next to their spec, named without the platform: CI is the
  // same Debian image (its Chromium, its fonts) as the machines that record them.
  snapshotPathTemplate: "{testDir}/{testFileDir}/{testFileName}-snapshots/{arg}{ext}",
  globalSetup: "./e2e/support/global-setup.ts",
  // Each worker starts a real server and a web host per file; a page mostly waits (on the
  // server, on paints), so two workers share two cores well: 78 s against 122 s for the suite
  // with one (26 Nov). HEADWATER_E2E_WORKERS sets it.
  workers: Number(process.env.HEADWATER_E2E_WORKERS ?? 2),
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  // In CI a failed test runs once more and, if it then passes, is reported as flaky (the list
  // and the HTML report name it); a test that fails twice fails the run.
  retries: process.env.CI ? 1 : 0,
  timeout: 90_000,
  expect: { timeout: 20_000 },
  reporter: [["list"], ["html", { open: "never", outputFolder: "playwright-report" }]],
  use: {
    browserName: "chromium",
    headless: true,
    launchOptions: { executablePath: CHROMIUM, args: CHROMIUM_ARGS },
    viewport: { width: 1360, height: 860 },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    video: "off",
    actionTimeout: 30_000,
  },
});
