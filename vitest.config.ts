import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    // e2e/ is Playwright's (playwright.config.ts, `npm run test:e2e`), not vitest's.
    include: ["{shared,server,electron,renderer,test}/**/*.test.{ts,tsx}"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // API tests start real servers and child processes; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
