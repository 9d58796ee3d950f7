import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["{shared,server,electron,renderer,test,e2e}/**/*.test.{ts,tsx}"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // API tests start real servers and child processes; two cores, so keep parallelism modest.
    maxWorkers: 2,
  },
});
