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
  globalSetup: "./e2e/support/global-setup.ts",
  // Each file starts real servers and a web host; two cores are shared, so one worker unless told.
  workers: Number(process.env.HEADWATER_E2E_WORKERS ?? 1),
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
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
