/**
 * The queue's handler for source jobs (`dc_`): loads the source and its component once for the
 * batch, skips an inactive or deleted source, or one whose owner is disabled (it is not
 * triggered at all), and runs the jobs in
 * order; the invoker deletes the jobs that ran with their results (`committed`). An HTTP request
 * waiting for a custom response is answered by the first `respond` of its run, or released (504)
 * when that run ends without one.
 */
import type { RuntimeCatalog } from "./catalog.js";
import type { Invoker } from "./invoke.js";
import { platformStep } from "./platform-failure.js";
import type { BatchOutcome, QueuedJob } from "./queue-jobs.js";
import type { Responders } from "./triggers/http.js";

export async function handleSourceJobs(
  jobs: QueuedJob[],
  deps: { catalog: RuntimeCatalog; invoker: Invoker; responders: Responders },
): Promise<BatchOutcome> {
  const finish = (ended: QueuedJob[]) => {
    for (const job of ended) deps.responders.finish(job.respondTo);
  };
  try {
    // A database error loading them is the platform's (the jobs are retried, never dropped).
    const source = await platformStep("reading the source", () => deps.catalog.source(jobs[0]!.targetId));
    // A disabled owner's jobs are let go like an inactive source's: nothing of theirs runs.
    const component = source?.active && !source.ownerDisabled
      ? await platformStep("reading the source's component", () => deps.catalog.component(source.componentId))
      : undefined;
    if (!source || !component) {
      finish(jobs);
      return { ran: jobs.length };
    }
    const batch = await deps.invoker.runBatch(
      source,
      component,
      jobs.map((job) => ({
        trigger: job.trigger,
        event: job.event,
        onRespond: (r) => deps.responders.respond(job.respondTo, r),
        // Routing already counted the delivery into origin.hops (delivery/route.ts, hops.ts).
        hops: job.origin?.hops ?? 0,
        jobId: job.id,
        ...(job.stored ? { stored: job.stored } : {}),
        ...(job.hold ? { hold: job.hold } : {}),
      })),
    );
    // The runs that ended, and the one that failed (its request gets no response); the jobs
    // after it run later and keep their requests waiting.
    finish(jobs.slice(0, batch.failure ? batch.ran + 1 : batch.ran));
    return batch.failure ? { ran: batch.ran, failure: batch.failure, committed: true } : { ran: batch.ran, committed: true };
  } catch (err) {
    // The queue ends the first job for an error of its own.
    finish(jobs.slice(0, 1));
    throw err;
  }
}
