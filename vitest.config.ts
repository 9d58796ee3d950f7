import os from "node:os";
import { defineConfig } from "vitest/config";

/**
 * Test files at once: twice the cores (at least 2, at most 8). Most files spend much of their
 * time waiting on servers, child processes, timers and PostgreSQL, not computing: on 2 cores
 * the whole suite took 249 s with 4 workers against 323 s with 2 (26 Nov, Node 20), and the
 * cores were then busy 95 % of the time. HEADWATER_TEST_WORKERS sets it.
 */
const workers = Number(process.env.HEADWATER_TEST_WORKERS) || Math.min(8, Math.max(2, os.availableParallelism() * 2));

export default defineConfig({
  test: {
    // e2e/ is Playwright's (playwright.config.ts, `npm run test:e2e`), not vitest's.
    include: ["{shared,server,electron,renderer,cli,test}/**/*.test.{ts,tsx}"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: workers,
  },
});
