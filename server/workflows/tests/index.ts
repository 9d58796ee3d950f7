/** Test runs of workflows (decisions.md "Building workflows"): see test-runs.ts. */
export { TestInputError } from "./inputs.js";
export { TEST_WAIT_MS, TestRuns, testRunOf } from "./test-runs.js";
