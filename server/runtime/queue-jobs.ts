/**
 * A queued job's shapes, and its row's payload: what the queue stores of a job and reads back
 * when the job runs (queue.ts).
 */
import type { InvocationJob } from "../services.js";
import type { NewJob, JobRow } from "../store/repos/jobs.js";
import type { Hold } from "./held-insert.js";

/** A job as enqueued by the HTTP trigger: a custom response is awaited under `respondTo`. */
export interface EnqueueJob extends InvocationJob {
  respondTo?: string;
}

export interface QueuedJob extends EnqueueJob {
  id: string;
  attempts: number;
  /**
   * Set when the job was handed to its runner before its insert (see `early` below): resolves
   * once the job is stored. Its results must not commit before (nor ever, if it rejects), unless
   * they take the insert over (`hold`).
   */
  stored?: Promise<unknown>;
  /** The job's insert, held for its results' transaction to take over (held-insert.ts). */
  hold?: Hold;
}

/** A handler's word on its job: `committed` when it deleted the job with its results. */
export type JobHandler = (job: QueuedJob) => Promise<void | { committed: boolean }>;

/** How far a batch got: the first `ran` jobs ran; if `failure` is set, the next one failed with it. */
export interface BatchOutcome {
  ran: number;
  failure?: unknown;
  /**
   * The handler deleted the `ran` jobs in the transaction of their results (EventStore.commit):
   * the queue must not delete them (they are gone) and only gives the lease back.
   */
  committed?: boolean;
  /**
   * Of the `ran` jobs, those that ended without results (nothing committed or kept them): the
   * queue deletes these and leaves the others be. Given, it settles each job by its own result
   * (`committed` then says nothing); absent, `committed` stands for every job of the batch.
   */
  unsettled?: string[];
}

/** Runs a target's jobs in order, stopping at the first that fails for the platform. */
export type BatchHandler = (jobs: QueuedJob[]) => Promise<BatchOutcome>;

/** How long a job waiting for a custom response is reserved for the instance that took the request. */
export const AFFINITY_MS = 10_000;

/** The rows of jobs to insert: the payload the runner reads back (runBatch). */
export function rowsOf(jobs: EnqueueJob[], now: number): NewJob[] {
  return jobs.map((j) => ({
    targetId: j.targetId,
    ownerId: j.ownerId,
    trigger: j.trigger,
    payload: payloadText(j),
    ...(j.jobId ? { id: j.jobId } : {}),
    runAfter: runAfterOf(j, now),
  }));
}

/** A job's payload as its row stores it (JobPayload). */
export function payloadText(j: EnqueueJob): string {
  return JSON.stringify({
    event: j.event ?? null,
    origin: j.origin,
    respondTo: j.respondTo,
    rerun: j.rerun,
    resume: j.resume,
    runId: j.runId,
    schedule: j.schedule,
  });
}

/** A job awaited by a custom response waits AFFINITY_MS for other instances (enqueueWithIds). */
export function runAfterOf(job: EnqueueJob, now: number): number {
  return job.respondTo ? now + AFFINITY_MS : now;
}

/** What a job's row holds besides its columns (rowsOf), as the runner reads it back. */
export interface JobPayload {
  event: unknown;
  origin?: InvocationJob["origin"];
  respondTo?: string;
  rerun?: InvocationJob["rerun"];
  resume?: InvocationJob["resume"];
  runId?: string;
  schedule?: number;
}

/** A row's payload: the job's own, for a job handed over before its insert, else parsed from the row. */
export function payloadOf(row: JobRow, handed?: EnqueueJob): JobPayload {
  if (handed)
    return {
      event: handed.event ?? null,
      origin: handed.origin,
      respondTo: handed.respondTo,
      rerun: handed.rerun,
      resume: handed.resume,
      runId: handed.runId,
      schedule: handed.schedule,
    };
  return JSON.parse(row.payload) as JobPayload;
}
