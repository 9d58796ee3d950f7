/**
 * Workflow runs for an agent (decisions.md "Workflow runs"): list a workflow's runs, read one
 * whole (every step's status, logs, return value, exports and error), re-run one, from a step,
 * and cancel one that waits. Each is the REST call of the same name, so an agent sees exactly the runs its key's user
 * sees. Lists stay small: a listed run's steps are their names, statuses, durations and error
 * messages (get_run has their logs and values), and its event is cut at 1 KB as REST cuts it.
 */
import { z } from "zod";
import { encodeCursor } from "../../ids.js";
import { RUN_STATUSES, type Run } from "../../resources/index.js";
import { resolveWorkflowId } from "../emitters.js";
import { RunOut } from "../schemas.js";
import { CREATE, DESTROY, READ, tool } from "./define.js";
import { nextCursor, Paging } from "./resources.js";

const WorkflowRef = z.string().min(1).max(200).describe("workflow id (p_...) or name");
const RunId = z
  .string()
  .regex(/^r_[A-Za-z0-9]+$/, "a run id looks like r_...")
  .describe("the run's id (r_..., from list_runs)");

/** A run in a list: steps without their logs, values and stacks; the HTTP answer's status only. */
const listedRun = (r: Run) => ({
  ...r,
  steps: r.steps.map((s) => ({
    id: s.id,
    name: s.name,
    status: s.status,
    duration_ms: s.duration_ms,
    log_lines: s.logs.length,
    error: s.error ? { name: s.error.name, message: s.error.message } : null,
  })),
  response: r.response ? { status: r.response.status } : null,
});

export const listRuns = tool({
  name: "list_runs",
  title: "List a workflow's runs",
  description:
    "The runs of a workflow, newest first: each invocation (an event from a subscription, a request to its endpoint_url, a replay, a re-run) with its status (queued, running, success, error, exited, ...), trigger, timing, the error if it failed, and each step's name, status and duration. `status` keeps only runs of that status (e.g. `error` to find failures). get_run shows one with its steps' logs, return values and error stacks. Page on with `cursor`.",
  input: {
    id: WorkflowRef,
    status: z.enum(RUN_STATUSES).optional().describe("only runs of this status"),
    ...Paging,
  },
  output: {
    id: z.string(),
    runs: z.array(RunOut),
    next_cursor: z.string().nullable(),
    total_count: z.number(),
  },
  annotations: READ,
  list: { listKey: "runs", cursorAfter: (r) => encodeCursor((r as Run).id) },
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    const page = await deps.client.listWorkflowRuns(id, {
      limit: a.limit,
      after: a.cursor,
      ...(a.status ? { status: a.status } : {}),
    });
    return {
      id,
      runs: page.data.map(listedRun),
      next_cursor: nextCursor(page, a.limit),
      total_count: page.page_info.total_count,
    };
  },
});

export const getRun = tool({
  name: "get_run",
  title: "Get one run",
  description:
    "One run of a workflow, whole: its trigger event, and for each step its status, duration, console logs, return value, exports and error (name, message, stack); the run's error (code, message, failing step), exit_reason, and the response its HTTP caller got. Use it to find why a run failed, then fix the step and rerun it.",
  input: { id: WorkflowRef, run_id: RunId },
  output: { run: RunOut },
  annotations: READ,
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    return { run: await deps.client.getWorkflowRun(id, a.run_id) };
  },
});

export const rerun = tool({
  name: "rerun",
  title: "Re-run a run",
  description:
    "Runs a run's trigger event through the workflow again, as a new run (trigger RERUN, rerun_of the earlier run), and answers it once it ended (after about 10 s, with the status it has then: follow up with get_run). With from_step (a step's name or id) the steps before it are not run again: their return values and exports are taken from the earlier run (shown as `reused`). The steps run for real: what they do to outside services happens again. Counts against the user's daily quota.",
  input: {
    id: WorkflowRef,
    run_id: RunId,
    from_step: z
      .string()
      .min(1)
      .max(200)
      .optional()
      .describe("start at this step (name or id); the earlier steps' results are reused"),
  },
  output: { run: RunOut },
  annotations: { ...CREATE, openWorldHint: true },
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    return {
      run: await deps.client.rerunWorkflowRun(
        id,
        a.run_id,
        a.from_step === undefined ? {} : { from_step: a.from_step },
      ),
    };
  },
});

export const cancelRun = tool({
  name: "cancel_run",
  title: "Cancel a run",
  description:
    "Cancels a run that waits: `queued` (not started yet), `retrying` (between attempts) or `delayed` (paused by $.flow.delay). It never goes on: status cancelled, its remaining steps not run. A run that is running or has ended cannot be cancelled (refused with run_not_cancellable). Answers the cancelled run.",
  input: { id: WorkflowRef, run_id: RunId },
  output: { run: RunOut },
  // Destructive: what the run would still have done is given up (rerun runs its event anew).
  annotations: DESTROY,
  run: async (a, { deps }) => {
    const id = await resolveWorkflowId(deps.client, a.id);
    return { run: await deps.client.cancelWorkflowRun(id, a.run_id) };
  },
});
