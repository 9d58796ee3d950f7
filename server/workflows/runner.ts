/**
 * Runs a workflow for one invocation job (a delivered event or a request to its endpoint_url):
 * the steps run in order in the runtime's sandbox; afterwards its emits are stored on its
 * channels and a thrown error on its `$errors` channel, in ONE transaction with the run's quota
 * count and the deletion of its job (EventStore.commit), so they are delivered after the run and
 * a run whose results are stored never runs again. A platform failure (the sandbox itself
 * failing, or the database refusing the workflow's lookup or its results) rejects with
 * PlatformFailure and stores nothing, so the invocation queue retries the job: never lost.
 */
import { randomUUID } from "node:crypto";
import type { WorkflowStep } from "../../shared/resources/index.js";
import { errorEvent } from "../delivery/error-event.js";
import type { Quotas } from "../quotas/quotas.js";
import type { EmitInput, EventStore, InvocationJob } from "../services.js";
import { platformStep } from "../runtime/platform-failure.js";
import type { Db } from "../store/db.js";
import { invocationsTotal } from "../runtime/invoke.js";
import { isUserDisabled } from "../store/repos/users.js";
import { findWorkflow } from "../store/repos/workflows.js";

export interface StepsResult {
  returnValues: Record<string, unknown>;
  emits: Array<{ data: unknown; channel: string }>;
  error?: { cellId: string; code: string; message: string; stack: string };
  /** Set when the steps ran in a worker: counted against the owner's quota, with the results. */
  ran?: boolean;
  computeMs?: number;
}

/** The runtime's step runner (runtime/: evaluation happens only in the sandbox). */
export type RunWorkflowSteps = (input: {
  steps: WorkflowStep[];
  triggerEvent: unknown;
  context: Record<string, unknown>;
  ownerId: string;
  workflowId: string;
}) => Promise<StepsResult>;

export interface WorkflowRunnerOptions {
  db: Db;
  events: EventStore;
  runSteps: RunWorkflowSteps;
  /** Counts runs (in the transaction of their results); without it runs are not counted. */
  quotas?: Pick<Quotas, "countFor" | "counted">;
}

/** The queue's handler: `committed` when the job was deleted with its results. */
export type WorkflowJobHandler = (job: InvocationJob & { id?: string }) => Promise<{ committed: boolean }>;

function sourceType(job: InvocationJob): "SOURCE" | "WORKFLOW" | "HTTP" {
  if (job.trigger === "http") return "HTTP";
  return job.origin?.emitterId.startsWith("p_") ? "WORKFLOW" : "SOURCE";
}

/** Returns the handler the invocation queue calls for `p_` targets. */
export function createWorkflowRunner(o: WorkflowRunnerOptions): WorkflowJobHandler {
  return async (job) => {
    const wf = await platformStep("reading the workflow", () => findWorkflow(o.db, job.targetId));
    // Deleted, someone else's (a stale job), or paused: nothing to run (the queue drops the job).
    if (!wf || wf.owner_id !== job.ownerId || Number(wf.active) !== 1) return { committed: false };
    // Its owner is disabled by an admin: nothing of theirs runs until they are enabled.
    if (await platformStep("reading the workflow's owner", () => isUserDisabled(o.db, wf.owner_id))) {
      return { committed: false };
    }
    const steps = JSON.parse(wf.steps_json) as WorkflowStep[];
    const contextId = job.origin?.eventId ?? randomUUID();
    const now = new Date();
    const context = {
      id: contextId,
      ts: now.toISOString(),
      workflow_id: wf.id,
      deployment_id: wf.deployment_id,
      source_type: sourceType(job),
      owner_id: wf.owner_id,
      emitter_id: job.origin?.emitterId,
    };
    const result = await o.runSteps({
      steps,
      triggerEvent: job.event,
      context,
      ownerId: wf.owner_id,
      workflowId: wf.id,
    });
    invocationsTotal.inc({ kind: "workflow", outcome: !result.error ? "ok" : result.error.code === "QUOTA_EXCEEDED" ? "quota_exceeded" : "error" });
    const hops = job.origin?.hops ?? 0;
    const inputs: EmitInput[] = result.emits.map((e) => ({
      emitterId: wf.id,
      ownerId: wf.owner_id,
      channel: e.channel === "default" ? "" : e.channel,
      event: e.data,
      hops,
    }));
    if (result.error) {
      inputs.push({
        emitterId: wf.id,
        ownerId: wf.owner_id,
        channel: "$errors",
        hops,
        event: errorEvent({
          listenerId: wf.id,
          deploymentId: wf.deployment_id,
          ownerId: wf.owner_id,
          originalEvent: job.event,
          contextId,
          sourceType: sourceType(job),
          code: result.error.code,
          message: result.error.message,
          cellId: result.error.cellId,
          stack: result.error.stack,
          now: new Date(),
        }),
      });
    }
    const usage = result.ran ? o.quotas?.countFor(wf.owner_id, result.computeMs ?? 0, 1, wf.id) : undefined;
    const jobIds = job.id ? [job.id] : [];
    if (inputs.length === 0 && jobIds.length === 0 && !usage) return { committed: false };
    await platformStep("storing the workflow's results", () => o.events.commit(inputs, { jobIds, ...(usage ? { usage } : {}) }));
    if (usage) o.quotas?.counted(usage);
    return { committed: jobIds.length > 0 };
  };
}
