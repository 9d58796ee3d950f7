/**
 * The queue's batch handler for workflow targets: the jobs of a batch run one after the other,
 * each committing its own results, so a batch is only fewer reads of the queue (one for up to
 * WORKFLOW_BATCH runs instead of one per run: a target's next job was read after each run's
 * commit, on the path of every run at `concurrency: 1`).
 *
 * Each job is settled by its own result: the queue deletes exactly the jobs that ran nothing
 * (`unsettled`), never one that a run committed, moved, parked or postponed. A job that waits
 * (a throttle's turn, a parked run) ends the batch: the jobs behind it wait behind it. A platform
 * failure ends it too (that job is retried by the queue; the ones before it are done).
 */
import type { BatchHandler } from "../runtime/queue-jobs.js";
import type { WorkflowJobHandler } from "./runner.js";

/** Jobs of a workflow's target read at once (they still run one by one, in order). */
export const WORKFLOW_BATCH = 16;

export function runInOrder(handler: WorkflowJobHandler): BatchHandler {
  return async (jobs) => {
    const unsettled: string[] = [];
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      let result;
      try {
        result = await handler(job);
      } catch (failure) {
        return { ran: i, failure, committed: unsettled.length === 0, unsettled };
      }
      if (!result.committed) unsettled.push(job.id);
      if (result.waits) return { ran: i + 1, committed: unsettled.length === 0, unsettled };
    }
    return { ran: jobs.length, committed: unsettled.length === 0, unsettled };
  };
}
