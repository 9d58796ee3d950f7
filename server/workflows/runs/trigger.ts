/**
 * What a run is from its job alone: its id, its trigger, when it was queued. The runner records
 * these; a run still only a job in the queue is read from them too (runs/service.ts).
 */
import { randomUUID } from "node:crypto";
import { runIdOfJob } from "../../../shared/ids.js";
import type { RunTrigger } from "../../../shared/resources/index.js";
import type { InvocationJob } from "../../services.js";
import type { RunRow } from "../../store/repos/runs.js";
import type { WorkflowRow } from "../../store/repos/workflows.js";
import type { RunHeader } from "./record.js";

/** A workflow's job as the runner gets it from the queue (`attempts`: its platform failures so far). */
export type JobOfRun = InvocationJob & { id?: string; respondTo?: string; attempts?: number };

/** `steps.trigger.context.source_type`: a schedule's run says TIMER, as the hosted service's timer-triggered runs do. */
export function sourceType(
  job: Pick<InvocationJob, "trigger" | "origin">,
): "SOURCE" | "WORKFLOW" | "HTTP" | "TIMER" | "MANUAL" {
  if (job.trigger === "http") return "HTTP";
  if (job.trigger === "schedule") return "TIMER";
  if (job.trigger === "manual") return "MANUAL";
  return job.origin?.emitterId.startsWith("p_") ? "WORKFLOW" : "SOURCE";
}

export function triggerOf(job: Pick<InvocationJob, "trigger" | "origin" | "rerun" | "schedule">): RunTrigger {
  const origin = job.origin ? { emitter_id: job.origin.emitterId, event_id: job.origin.eventId } : {};
  if (job.rerun)
    return {
      type: "RERUN",
      ...origin,
      rerun_of: job.rerun.of,
      ...(job.rerun.fromStep ? { from_step: job.rerun.fromStep } : {}),
    };
  if (job.trigger === "schedule") return { type: "SCHEDULE", schedule: job.schedule ?? 0 };
  if (job.trigger === "manual") return { type: "MANUAL" };
  const type = sourceType(job);
  return { type: type === "TIMER" ? "SCHEDULE" : type, ...origin };
}

/** When the job was queued (its id starts with that time), so a run lists where its event came in. */
export function queuedMs(jobId: string | undefined): number {
  const ms = jobId ? Number(jobId.slice(0, 15)) : NaN;
  return Number.isFinite(ms) && ms > 0 ? ms : Date.now();
}

/** The run a job is (or goes on with): named in the job, else made from the job's id. */
export function runIdOf(job: InvocationJob & { id?: string | undefined }): string {
  return (
    job.resume?.runId ??
    job.runId ??
    job.rerun?.runId ??
    (job.id ? runIdOfJob(job.id) : `r_${randomUUID().replace(/-/g, "")}`)
  );
}

/**
 * The version a run runs: the one it started with when it goes on (a retry, after a delay),
 * the one a re-run names, else the workflow's current one.
 */
function versionOf(job: JobOfRun, wf: WorkflowRow, resumed: RunRow | undefined): number {
  const current = Number(wf.version ?? 1);
  if (resumed) return resumed.version == null ? current : Number(resumed.version);
  return job.rerun?.version ?? current;
}

/** A run's header: what its start and end both record, from its job (and its earlier row, going on). */
export function headerOf(job: JobOfRun, wf: WorkflowRow, resumed: RunRow | undefined): RunHeader {
  return {
    version: versionOf(job, wf, resumed),
    id: runIdOf(job),
    workflowId: wf.id,
    ownerId: wf.owner_id,
    trigger: resumed ? (JSON.parse(resumed.trigger_json) as RunTrigger) : triggerOf(job),
    attempt: job.resume?.attempt ?? 1,
    createdMs: resumed ? Number(resumed.created_ms) : queuedMs(job.id),
    eventJson: resumed?.event_json ?? JSON.stringify(job.event ?? null),
  };
}
