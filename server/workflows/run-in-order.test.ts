import { describe, expect, it } from "vitest";
import type { QueuedJob } from "../runtime/queue-jobs.js";
import { runInOrder } from "./run-in-order.js";
import type { WorkflowJobHandler } from "./runner.js";

const jobs = (n: number) =>
  Array.from({ length: n }, (_, i): QueuedJob => ({
    id: `job-${i}`,
    targetId: "p_1",
    ownerId: "u_1",
    trigger: "http",
    event: { i },
    attempts: 0,
  }));

describe("runInOrder", () => {
  it("runs a batch's jobs one after the other, each to its end before the next starts", async () => {
    const seen: string[] = [];
    const handler: WorkflowJobHandler = async (job) => {
      seen.push(`start ${job.id}`);
      await new Promise((r) => setTimeout(r, 5));
      seen.push(`end ${job.id}`);
      return { committed: true };
    };
    expect(await runInOrder(handler)(jobs(3))).toEqual({ ran: 3, committed: true, unsettled: [] });
    expect(seen).toEqual(["start job-0", "end job-0", "start job-1", "end job-1", "start job-2", "end job-2"]);
  });

  it("stops after a job that waits, and at a failure, which is that job's", async () => {
    const waits: WorkflowJobHandler = async (job) => ({ committed: true, waits: job.id === "job-1" });
    expect(await runInOrder(waits)(jobs(4))).toEqual({ ran: 2, committed: true, unsettled: [] });
    const failure = new Error("database gone");
    const fails: WorkflowJobHandler = async (job) => {
      if (job.id === "job-2") throw failure;
      return { committed: true };
    };
    expect(await runInOrder(fails)(jobs(4))).toEqual({ ran: 2, failure, committed: true, unsettled: [] });
  });

  it("settles each job by its own result: a job that ran nothing goes, one that waits stays", async () => {
    // A run let go (cancelled meanwhile) before a run that waits for its throttle's turn: the
    // queue must delete the first job only. Deleting the whole batch stranded the waiting run.
    const handler: WorkflowJobHandler = async (job) =>
      job.id === "job-0" ? { committed: false } : { committed: true, waits: job.id === "job-1" };
    expect(await runInOrder(handler)(jobs(3))).toEqual({ ran: 2, committed: false, unsettled: ["job-0"] });
  });
});
