/**
 * What running an action costs over running the same code as a workflow code step, measured in
 * one run on one server: the same `return 1 + 1` as
 *   - POST /actions/run by component id (HTTP, auth, lookup, props check, quota check and count,
 *     the pool's warm worker, the result's shape),
 *   - the runtime's action run alone (no HTTP: quota, bundle, worker, result),
 *   - the runtime's workflow step run (the primitive a workflow's queued job calls).
 * The ratios say what an action adds to a code step, with and without the API around it.
 */
import { startServer } from "../test/support/server.js";
import { defineBench } from "./harness.js";

const ACTION = `export default { key: "bench-add", name: "Add", type: "action", async run({ $ }) { return 1 + 1; } };`;
const STEP = `export default defineComponent({ async run({ steps, $ }) { return 1 + 1; } });`;

export default defineBench("actions", async () => {
  const s = await startServer({ env: { HEADWATER_LOG_LEVEL: "error", HEADWATER_DAILY_INVOCATIONS_QUOTA: "100000000" } });
  const u = await s.newUser("bench");
  const component = await u.client.createComponent({ component_code: ACTION });
  const { runtime } = s.server.services;
  const ownerId = u.user.id;
  const check = (ok: boolean, what: string) => {
    if (!ok) throw new Error(`${what} did not return 2`);
  };
  return {
    cases: [
      {
        name: "POST /actions/run (component id)",
        run: async () => check((await u.client.runAction({ component_id: component.id })).ret === 2, "the API run"),
        iterations: 300,
        warmup: 30,
      },
      {
        name: "action run, runtime only",
        run: async () => check((await runtime.runAction({ ownerId, code: ACTION, files: undefined, props: {}, redactor: undefined })).ret === 2, "the action run"),
        iterations: 300,
        warmup: 30,
      },
      {
        name: "workflow code step, runtime only",
        run: async () => {
          const r = await runtime.runWorkflowSteps({ ownerId, steps: [{ id: "c_bench", name: "add", code: STEP }], triggerEvent: {}, context: {} });
          check(r.steps[0]?.return_value === 2, "the step");
        },
        iterations: 300,
        warmup: 30,
      },
    ],
    ratios: [
      ["POST /actions/run (component id)", "workflow code step, runtime only"],
      ["action run, runtime only", "workflow code step, runtime only"],
    ],
    teardown: () => s.stop(),
  };
});
