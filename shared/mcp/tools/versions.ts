/**
 * Building workflows for an agent (decisions.md "Building workflows"): a workflow's draft (read,
 * change, deploy) and its versions (list, read one whole, restore one). Each is the REST call of
 * the same name, so an agent sees exactly what its key's user sees (another user's workflow is
 * not_found). A change that makes a version takes `base_version`: when the workflow has moved on
 * since the agent read it, the answer is version_conflict naming the current version, and
 * nothing changes.
 */
import { z } from "zod";
import { resolveWorkflowId } from "../emitters.js";
import { DraftOut, PageOut, RunOut, VersionInfoOut, VersionOut, WorkflowOut } from "../schemas.js";
import { CHANGE, CREATE, READ, tool } from "./define.js";
import { nextCursor, Paging } from "./resources.js";
import { ConfiguredProps, Controls, StepName } from "./workflows.js";

const WorkflowRef = z.string().min(1).max(200).describe("workflow id (p_...) or name");
const VersionNumber = z.number().int().min(1).max(2 ** 31);
const Message = z.string().max(1000).optional().describe("what the change does, kept with the new version");
const BaseVersion = VersionNumber.optional().describe(
  "the version your change is based on (the workflow's `version` when you read it): if the workflow has moved on since, the call is refused with version_conflict naming the current version, and nothing changes. Left out, the change applies whatever the current version",
);

/** A draft's steps: work in progress, so code that does not parse is taken (and listed in problems). */
const DraftSteps = z
  .array(
    z.object({
      name: StepName,
      code: z
        .string()
        .max(512 * 1024)
        .optional()
        .describe("the step's code: export default defineComponent({ async run({ steps, $ }) { ... } })"),
      action: z.string().min(1).max(200).optional().describe("an action's key, instead of code"),
      props: z.record(z.string(), z.unknown()).optional().describe("an action step's configured props"),
      configured_props: ConfiguredProps,
    }),
  )
  .max(50);

export const getDraft = tool({
  name: "get_draft",
  title: "Read a workflow's draft",
  description:
    "A workflow's draft: its changes not yet deployed (the workflow as deploying it would make it, steps with their code), the version it started from (base_version) and its problems (steps whose code does not parse, with line and column). A workflow has at most one draft; without one the call is refused with no_draft (update_draft starts one).",
  input: { id: WorkflowRef },
  output: { id: z.string(), draft: DraftOut },
  annotations: READ,
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    return { id, draft: await deps.client.getWorkflowDraft(id) };
  },
});

export const updateDraft = tool({
  name: "update_draft",
  title: "Change a workflow's draft",
  description:
    "Changes a workflow's draft without touching what runs: events and requests keep running the current version until deploy_draft. The first change starts the draft as a copy of the current version; the fields named replace the draft's (steps: all of them), the others keep their value. Code that does not parse is kept and listed in `problems` (fix it before deploying). Answers the draft.",
  input: {
    id: WorkflowRef,
    name: z.string().min(1).max(200).optional(),
    steps: DraftSteps.optional().describe("the draft's steps, replacing all"),
    http_response: z
      .enum(["immediate", "workflow"])
      .optional()
      .describe("immediate: the endpoint answers at once; workflow: with the run's $.respond"),
    ...Controls,
  },
  output: { id: z.string(), draft: DraftOut },
  annotations: CHANGE,
  run: async ({ id: ref, ...body }, { deps }) => {
    const id = await resolveWorkflowId(deps.client, ref);
    return { id, draft: await deps.client.updateWorkflowDraft(id, body) };
  },
});

export const deployDraft = tool({
  name: "deploy_draft",
  title: "Deploy a workflow's draft",
  description:
    "Deploys a workflow's draft as its next version: runs that start from now on use it, and the draft is gone. Give base_version (the draft's base_version, or the version you last read) so that a change made meanwhile by someone else is not overwritten: then the call is refused with version_conflict, naming the current version, and nothing changes (read the workflow again, update the draft, deploy again). A draft with problems is refused with invalid_step naming the step and line; no draft: no_draft. Answers the workflow with its new version.",
  input: { id: WorkflowRef, message: Message, base_version: BaseVersion },
  output: { workflow: WorkflowOut },
  annotations: CREATE,
  run: async ({ id: ref, ...body }, { deps }) => {
    const id = await resolveWorkflowId(deps.client, ref);
    return { workflow: await deps.client.deployWorkflowDraft(id, body) };
  },
});

export const listVersions = tool({
  name: "list_versions",
  title: "List a workflow's versions",
  description:
    "A workflow's versions, newest first: number, when, the message given, and how each was made (create, update, draft: a deployed draft, restore: with restored_from, push). Every change of a workflow's name, steps, triggers or settings is a version; all are kept. get_version reads one whole; restore_version brings one back.",
  input: { id: WorkflowRef, ...Paging },
  output: { id: z.string(), versions: z.array(VersionInfoOut), ...PageOut },
  annotations: READ,
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    const page = await deps.client.listWorkflowVersions(id, { limit: a.limit, after: a.cursor });
    return { id, versions: page.data, next_cursor: nextCursor(page, a.limit), total_count: page.page_info.total_count };
  },
});

export const getVersion = tool({
  name: "get_version",
  title: "Read a version of a workflow",
  description:
    "One version of a workflow, whole: the workflow as it was then (name, steps with their code, settings), with when and how that version was made. Compare it with the current workflow to see what a change did; a run's `version` says which one it ran.",
  input: { id: WorkflowRef, version: VersionNumber.describe("the version's number (list_versions)") },
  output: { id: z.string(), version: VersionOut },
  annotations: READ,
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    return { id, version: await deps.client.getWorkflowVersion(id, a.version) };
  },
});

export const restoreVersion = tool({
  name: "restore_version",
  title: "Restore a version of a workflow",
  description:
    "Brings back an earlier version's content (name, steps, settings) as a new version: nothing is lost, the history stays in order, and runs that start from now on use it. A draft, if there is one, is left as it is. Give base_version (the version you last read) so that a change made meanwhile is not overwritten: then the call is refused with version_conflict, naming the current version, and nothing changes. Answers the workflow with its new version.",
  input: {
    id: WorkflowRef,
    version: VersionNumber.describe("the version whose content to bring back"),
    message: Message,
    base_version: BaseVersion,
  },
  output: { workflow: WorkflowOut },
  annotations: CREATE,
  run: async ({ id: ref, version, ...body }, { deps }) => {
    const id = await resolveWorkflowId(deps.client, ref);
    return { workflow: await deps.client.restoreWorkflowVersion(id, version, body) };
  },
});

export const testWorkflow = tool({
  name: "test_workflow",
  title: "Test a workflow's draft on an event",
  description:
    "Runs the workflow's draft (or, without one, its current version) once on an event and answers the run, marked test: the code runs for real (its HTTP calls to outside services are real), but what it emits is only recorded on its steps (steps[i].emits), its $.respond is recorded as response and sent to nobody, a $.flow.delay is recorded and the test goes straight on, and an error is neither retried nor sent to $errors. Works on an inactive workflow. The event: `event` as given, or that of `run_id` or `event_id`; by default the workflow's latest trigger event. from_step reuses the earlier steps' results of run_id (default: the latest test run); to_step stops after that step. Counts against the user's daily quota. Use it before deploy_draft.",
  input: {
    id: WorkflowRef,
    event: z.unknown().optional().describe("the trigger event to test on (as steps.trigger.event sees it)"),
    run_id: z.string().min(1).max(200).optional().describe("take the event (and, with from_step, the results) of this run"),
    event_id: z.string().min(1).max(200).optional().describe("take this stored event"),
    from_step: z.string().min(1).max(200).optional().describe("start at this step (name or id)"),
    to_step: z.string().min(1).max(200).optional().describe("stop after this step (name or id)"),
  },
  output: { id: z.string(), run: RunOut },
  annotations: { ...CREATE, openWorldHint: true },
  run: async ({ id: ref, ...body }, { deps }) => {
    const id = await resolveWorkflowId(deps.client, ref);
    return { id, run: await deps.client.testWorkflow(id, body) };
  },
});
