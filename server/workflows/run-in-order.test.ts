import { describe, expect, it } from "vitest";
import type { QueuedJob } from "../runtime/queue-jobs.js";
import { runInOrder, type WorkflowJobHandler } from "./runner.js";

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
    expect(await runInOrder(handler)(jobs(3))).toEqual({ ran: 3, committed: true });
    expect(seen).toEqual(["start job-0", "end job-0", "start job-1", "end job-1", "start job-2", "end job-2"]);
  });

  it("stops after a job that waits, and at a failure, which is that job's", async () => {
    const waits: WorkflowJobHandler = async (job) => ({ committed: true, waits: job.id === "job-1" });
    expect(await runInOrder(waits)(jobs(4))).toEqual({ ran: 2, committed: true });
    const failure = new Error("database gone");
    const fails: WorkflowJobHandler = async (job) => {
      if (job.id === "job-2") throw failure;
      return { committed: true };
    };
    expect(await runInOrder(fails)(jobs(4))).toEqual({ ran: 2, failure, committed: true });
  });

  it("leaves the queue to delete the jobs when one of them ran nothing", async () => {
    const handler: WorkflowJobHandler = async (job) => ({ committed: job.id !== "job-0" });
    expect(await runInOrder(handler)(jobs(2))).toEqual({ ran: 2, committed: false });
  });
});
