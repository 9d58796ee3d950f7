/**
 * A workflow's own triggers for an agent (decisions.md "Workflow triggers"): Run now, and the
 * coming ticks of its schedules. Each is the REST call of the same name, scoped to the key's user.
 */
import { z } from "zod";
import { resolveWorkflowId } from "../emitters.js";
import { RunOut } from "../schemas.js";
import { CREATE, READ, tool } from "./define.js";

const WorkflowRef = z.string().min(1).max(200).describe("workflow id (p_...) or name");

export const runWorkflow = tool({
  name: "run_workflow",
  title: "Run a workflow now",
  description:
    "Starts a production run of the deployed workflow now (trigger MANUAL), with `event` as its trigger event (default {}), through its queue: retries, concurrency and throttle apply. Answers the run as queued (follow up with get_run). The steps run for real. An inactive workflow is refused (workflow_inactive): turn it on first. Counts against the user's daily quota.",
  input: {
    id: WorkflowRef,
    event: z.unknown().optional().describe("the trigger event (any JSON; default {})"),
  },
  output: { run: RunOut },
  annotations: { ...CREATE, openWorldHint: true },
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    return { run: await deps.client.runWorkflow(id, a.event === undefined ? {} : { event: a.event }) };
  },
});

const TickOut = z.object({
  schedule: z.number().describe("the schedule's index in the workflow's schedules"),
  at_ms: z.number(),
  at: z.string().describe("ISO 8601, UTC"),
  timezone: z.string(),
  local: z
    .object({ date: z.string(), time: z.string(), weekday: z.string(), offset: z.string() })
    .describe("the tick's date, time, weekday and UTC offset in the schedule's zone"),
});

export const nextScheduleTicks = tool({
  name: "next_schedule_ticks",
  title: "Next ticks of a workflow's schedules",
  description:
    "When the workflow's schedules run next: the next `count` ticks (1..50, default 5) over all its schedules, in time order, each with its local time in the schedule's zone (daylight saving followed). Use it to check a cron and time zone before or after setting them with update_workflow.",
  input: {
    id: WorkflowRef,
    count: z.number().int().min(1).max(50).optional().describe("how many (default 5)"),
  },
  output: { id: z.string(), ticks: z.array(TickOut) },
  annotations: READ,
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    return { id, ticks: await deps.client.nextScheduleTicks(id, a.count) };
  },
});
