/**
 * Comparing two runs for an agent (decisions.md "Building workflows", "Compare runs"): the REST
 * comparison as the tool `compare_runs`, so that an agent asked "why did this run fail when the
 * last one worked?" gets, step by step, what changed: status, duration, the code (a unified
 * diff between the versions the runs ran) and which paths of the values differ. Another user's
 * workflow or run is not_found.
 */
import { z } from "zod";
import { resolveWorkflowId } from "../emitters.js";
import { ComparisonOut } from "../schemas.js";
import { READ, tool } from "./define.js";

const WorkflowRef = z.string().min(1).max(200).describe("workflow id (p_...) or name");
const RunId = z.string().regex(/^r_[A-Za-z0-9]+$/, "a run id looks like r_...");

export const compareRuns = tool({
  name: "compare_runs",
  title: "Compare two runs of a workflow",
  description:
    "Compares a run of a workflow with another, step by step: each step's status and duration in both runs, whether its code differed between the code each run ran (a unified diff from the other run's to this run's, when the versions differ), and which paths of its return value and exports differ (like $return_value.items[2].id or exports.total; null when the step did not end with values in both). `with` is another run's id (production or test run) or last_success (the default): the workflow's newest successful run other than this one. Use it to explain a failure after a change, or what a test of a draft does differently from the last good run. Test runs (test_workflow) compare too. Refused with not_found when the workflow has no other successful run.",
  input: {
    id: WorkflowRef,
    run_id: RunId.describe("the run to explain (r_..., from list_runs or test_workflow)"),
    with: z
      .union([z.literal("last_success"), RunId])
      .optional()
      .describe("the run to compare it with: a run id, or last_success (default)"),
  },
  output: { id: z.string(), comparison: ComparisonOut },
  annotations: READ,
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    return { id, comparison: await deps.client.compareWorkflowRuns(id, a.run_id, a.with ?? "last_success") };
  },
});
