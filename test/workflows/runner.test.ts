/** The workflow runner without HTTP: what it appends, and which failures make the queue retry. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PlatformFailure } from "../../server/runtime/platform-failure.js";
import type { EmitInput, EventStore, InvocationJob } from "../../server/services.js";
import { insertWorkflow } from "../../server/store/repos/workflows.js";
import type { RunWorkflowStepsResult } from "../../server/runtime/workflow-steps.js";
import { createWorkflowRunner } from "../../server/workflows/runner.js";
import { tempDb } from "../events/helpers.js";

class Recorder implements EventStore {
  appended: EmitInput[] = [];
  failNext = false;
  async append(inputs: EmitInput[]) {
    if (this.failNext) {
      this.failNext = false;
      throw new Error("disk I/O error (simulated)");
    }
    this.appended.push(...inputs);
    return [];
  }
  async commit(inputs: EmitInput[]) {
    return this.append(inputs);
  }
}

describe("workflow runner", () => {
  let db: Awaited<ReturnType<typeof tempDb>>;
  let events: Recorder;
  let result: RunWorkflowStepsResult;
  const ran = { logs: [], steps: [], computeMs: 0, ran: false };
  const job: InvocationJob = {
    targetId: "p_wf",
    ownerId: "u_1",
    trigger: "event",
    event: { hello: 1 },
    origin: { emitterId: "dc_src", eventId: "5-0", channel: "", hops: 3 },
  };

  beforeEach(async () => {
    db = await tempDb();
    events = new Recorder();
    await insertWorkflow(db.db, {
      id: "p_wf",
      owner_id: "u_1",
      name: "wf",
      deployment_id: "d_1",
      steps_json: JSON.stringify([{ id: "c_1", name: "step_1", code: "" }]),
      active: 1,
      created_ms: 1,
      created_at: 1,
      updated_at: 1,
    });
  });
  afterEach(() => db.close());

  const runner = () => createWorkflowRunner({ db: db.db, events, runSteps: async () => result });

  it("appends emits with the job's hop count and the error in the spec's shape", async () => {
    result = {
      ...ran,
      emits: [{ data: { raw_event: 1 }, channel: "" }, { data: { raw_event: 2 }, channel: "default" }],
      error: { cellId: "c_1", code: "Error", message: "nope", stack: "Error: nope" },
    };
    await runner()(job);
    expect(events.appended.map((e) => [e.channel, e.event, e.hops])).toEqual([
      ["", { raw_event: 1 }, 3],
      ["", { raw_event: 2 }, 3],
      ["$errors", expect.objectContaining({ original_event: { hello: 1 } }), 3],
    ]);
    expect(events.appended[2]!.event).toMatchObject({
      original_context: { id: "5-0", workflow_id: "p_wf", deployment_id: "d_1", source_type: "SOURCE", owner_id: "u_1" },
      error: { code: "Error", message: "nope", cellId: "c_1", stack: "Error: nope" },
    });
  });

  it("turns a failed append into a PlatformFailure, so the queue retries the job", async () => {
    result = { ...ran, emits: [{ data: 1, channel: "" }] };
    events.failNext = true;
    await expect(runner()(job)).rejects.toBeInstanceOf(PlatformFailure);
    await runner()(job);
    expect(events.appended.map((e) => e.event)).toEqual([1]);
  });

  it("does nothing for a job of another owner or a missing workflow", async () => {
    result = { ...ran, emits: [{ data: 1, channel: "" }] };
    await runner()({ ...job, ownerId: "u_2" });
    await runner()({ ...job, targetId: "p_gone" });
    expect(events.appended).toEqual([]);
  });
});
