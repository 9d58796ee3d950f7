/**
 * What a run is from its job alone: its id, its trigger, when it was queued. The runner records
 * these; a run still only a job in the queue is read from them too (runs/service.ts).
 */
import { randomUUID } from "node:crypto";
import { runIdOfJob } from "../../../shared/ids.js";
import type { RunTrigger } from "../../../shared/resources/index.js";
import type { InvocationJob } from "../../services.js";

export function sourceType(job: Pick<InvocationJob, "trigger" | "origin">): "SOURCE" | "WORKFLOW" | "HTTP" {
  if (job.trigger === "http") return "HTTP";
  return job.origin?.emitterId.startsWith("p_") ? "WORKFLOW" : "SOURCE";
}

export function triggerOf(job: Pick<InvocationJob, "trigger" | "origin" | "rerun">): RunTrigger {
  const origin = job.origin ? { emitter_id: job.origin.emitterId, event_id: job.origin.eventId } : {};
  if (job.rerun)
    return {
      type: "RERUN",
      ...origin,
      rerun_of: job.rerun.of,
      ...(job.rerun.fromStep ? { from_step: job.rerun.fromStep } : {}),
    };
  return { type: sourceType(job), ...origin };
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
