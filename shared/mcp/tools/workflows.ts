/**
 * Tools over the user's workflows: list, create, and update them, with their execution controls
 * (decisions.md "Execution controls": retry, concurrency, throttle). Each is the REST call of the
 * same name, and the input schemas hold REST's ranges (CONTROL_LIMITS), so an agent can set
 * exactly what its key's REST calls can; an update changes only the fields it names, as PUT
 * does (a partial `retry` keeps the retry fields left out).
 */
import { z } from "zod";
import { encodeCursor } from "../../ids.js";
import { CONTROL_LIMITS as L, type Workflow } from "../../resources/index.js";
import { kindOfId, resolveWorkflowId } from "../emitters.js";
import { McpRefusal } from "../results.js";
import { PageOut, WorkflowOut } from "../schemas.js";
import { CHANGE, CREATE, READ, tool } from "./define.js";
import { nextCursor, Paging } from "./resources.js";

/** A workflow in a list: its steps without their code. */
const listedWorkflow = (w: Workflow) => ({ ...w, steps: w.steps.map(({ id, name }) => ({ id, name })) });

export const int = (r: { min: number; max: number }) => z.number().int().min(r.min).max(r.max);

/** A step's name, as the steps of a workflow and of a draft take it. */
export const StepName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
  .max(64)
  .optional()
  .describe("an identifier");

/** A code step's prop values, as create, update and the draft take them. */
export const ConfiguredProps = z
  .record(z.string().max(64), z.unknown())
  .optional()
  .describe(
    'the values of the props the step\'s code declares (defineComponent({ props: { github: { type: "app", app: "github" }, label: { type: "string" } }, ... }), read as this.github, this.label): an app prop as {"authProvisionId": "apn_..."} (the id of one of the user\'s connected accounts of that app), string, integer and boolean props as plain values. A missing required prop, a wrong type, an unknown name or an account that is not the user\'s is refused with invalid_step naming the step and prop',
  );

const Steps = z
  .array(
    z.object({
      name: StepName,
      code: z
        .string()
        .min(1)
        .max(512 * 1024),
      configured_props: ConfiguredProps,
    }),
  )
  .min(1)
  .max(50);

/** The execution controls as create_workflow, update_workflow and update_draft take them. */
export const Controls = {
  retry: z
    .object({
      max_attempts: int(L.maxAttempts)
        .optional()
        .describe(
          `attempts in all, ${L.maxAttempts.min}..${L.maxAttempts.max} (default ${L.maxAttempts.default}: no retry; 3 = the first try and up to 2 retries)`,
        ),
      initial_delay_seconds: int(L.initialDelaySeconds)
        .optional()
        .describe(
          `seconds before the first retry, doubled for each next one, ${L.initialDelaySeconds.min}..${L.initialDelaySeconds.max} (default ${L.initialDelaySeconds.default})`,
        ),
      max_delay_seconds: int(L.maxDelaySeconds)
        .optional()
        .describe(
          `the longest wait between attempts, ${L.maxDelaySeconds.min}..${L.maxDelaySeconds.max} (default ${L.maxDelaySeconds.default})`,
        ),
    })
    .optional()
    .describe(
      "retry a run whose step throws, from that step (the steps before it are reused); fields left out keep their value",
    ),
  concurrency: int(L.concurrency)
    .optional()
    .describe(
      `how many runs may run at once, ${L.concurrency.min}..${L.concurrency.max} (default ${L.concurrency.default}: one at a time, in the order their events came)`,
    ),
  throttle: z
    .object({
      limit: int(L.throttleLimit).describe(`${L.throttleLimit.min}..${L.throttleLimit.max}`),
      period_seconds: int(L.throttlePeriodSeconds).describe(
        `${L.throttlePeriodSeconds.min}..${L.throttlePeriodSeconds.max}`,
      ),
    })
    .nullable()
    .optional()
    .describe(
      "at most `limit` runs start in any `period_seconds`; the others wait (none is dropped). null removes the throttle",
    ),
};

export const listWorkflows = tool({
  name: "list_workflows",
  title: "List my workflows",
  description:
    "The user's workflows (newest first): id, name, active, endpoint_url, their steps' names (not their code) and their execution controls (retry, concurrency, throttle).",
  input: { ...Paging },
  output: { workflows: z.array(WorkflowOut), ...PageOut },
  annotations: READ,
  list: { listKey: "workflows", cursorAfter: (w) => encodeCursor((w as Workflow).id) },
  run: async ({ limit, cursor }, { deps }) => {
    const page = await deps.client.listMyWorkflows({ limit, after: cursor });
    return {
      workflows: page.data.map(listedWorkflow),
      next_cursor: nextCursor(page, limit),
      total_count: page.page_info.total_count,
    };
  },
});

export const createWorkflow = tool({
  name: "create_workflow",
  title: "Create a workflow",
  description:
    "Creates a workflow: steps of code run in order on each event of the emitters it subscribes to (see subscribe) and on each request to its endpoint_url. A step is `export default defineComponent({ async run({ steps, $ }) { ... } })`; the trigger event is steps.trigger.event, a step's return value steps.<name>.$return_value, $.send.emit(data) emits an event, and `return $.flow.delay(ms)` pauses the run (status delayed) before the next step. Optional execution controls: retry (failed runs tried again), concurrency (runs at once) and throttle (runs started per period).",
  input: {
    name: z.string().min(1).max(200),
    steps: Steps,
    active: z.boolean().optional().describe("default true"),
    ...Controls,
  },
  output: { workflow: WorkflowOut },
  annotations: CREATE,
  run: async (a, { deps }) => ({ workflow: await deps.client.createWorkflow(a) }),
});

export const updateWorkflow = tool({
  name: "update_workflow",
  title: "Change a workflow",
  description:
    "Changes a workflow: its execution controls (retry, concurrency, throttle), its name, whether it is active, or its steps (all of them, replacing the old; runs that start after it use the new ones: fix a step, then rerun a failed run). Fields left out keep their value; a partial retry keeps the retry fields left out. Answers the workflow as changed.",
  input: {
    id: z.string().min(1).max(200).describe("workflow id (p_...) or name"),
    name: z.string().min(1).max(200).optional(),
    active: z.boolean().optional().describe("false: events and requests no longer run it"),
    steps: Steps.optional().describe("the new steps, replacing all"),
    ...Controls,
  },
  output: { workflow: WorkflowOut },
  annotations: CHANGE,
  run: async ({ id: ref, ...body }, { deps }) => {
    if (kindOfId(ref) === "source")
      throw new McpRefusal("bad_request", `${ref} is a source: update_source changes sources`);
    const id = await resolveWorkflowId(deps.client, ref);
    return { workflow: await deps.client.updateWorkflow(id, body) };
  },
});
