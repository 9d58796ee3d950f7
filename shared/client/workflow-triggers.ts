/**
 * The client's methods for a workflow's own triggers (decisions.md "Workflow triggers"): Run now,
 * and the coming ticks of its schedules. Schedules and endpoint auth themselves are set with
 * create, update and a draft.
 */
import * as z from "../zod.js";
import { Run, ScheduleTick, type RunWorkflowBody } from "../resources/index.js";
import { Data, enc, type Request } from "./request.js";

const Ticks = z.object({ data: z.array(ScheduleTick) });

export function workflowTriggerMethods(request: Request) {
  return {
    /** Run now: a production run (trigger MANUAL) with the event (default `{}`), answered queued. */
    runWorkflow: async (id: string, body: RunWorkflowBody = {}) =>
      (await request("POST", `/workflows/${enc(id)}/runs`, Data(Run), { body })).data,
    /** The next `count` ticks (1..50, default 5) over all the workflow's schedules, in time order. */
    nextScheduleTicks: async (id: string, count?: number) =>
      (
        await request(
          "GET",
          `/workflows/${enc(id)}/schedules/next${count !== undefined ? `?count=${count}` : ""}`,
          Ticks,
        )
      ).data,
  };
}
