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
    // e2e/ is Playwright's (playwright.config.ts, `npm run test:e2e`), not vitest's; the two
    // projects below split these files.
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    maxWorkers: workers,
    projects: [
      // test/: real servers, CLIs and sandboxes over HTTP. Each file imports the whole server
      // (fastify, kysely, pg, zod, the runtime); run one after the other in the same worker
      // process, the files load it once per worker instead of once per file. They share no
      // state but what each one starts and stops itself (servers, data dirs, databases), and put
      // back any environment variable they change. The whole suite's import time went from
      // 651 s to 138 s (summed over workers; 7 Dec, 2 shared cores, Node 20).
      // test/support/each-file.ts registers what their helpers do at the end of each file.
      {
        extends: true,
        test: { name: "servers", include: ["test/**/*.test.{ts,tsx}"], isolate: false, setupFiles: ["test/support/each-file.ts"] },
      },
      // Module-level unit and component tests (mocks, fake timers, DOM environments): a fresh
      // module graph per file.
      { extends: true, test: { name: "units", include: ["{shared,server,electron,renderer,cli}/**/*.test.{ts,tsx}"] } },
    ],
  },
});
