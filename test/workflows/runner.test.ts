/** The workflow runner without HTTP: what it appends, and which failures make the queue retry. */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { PlatformFailure } from "../../server/runtime/platform-failure.js";
import type { EmitInput, EventStore, InvocationJob } from "../../server/services.js";
import { insertWorkflow } from "../../server/store/repos/workflows.js";
import { insertJobs } from "../../server/store/repos/jobs.js";
import type { JobCompletion } from "../../server/store/repos/completions.js";
import type { RunRow } from "../../server/store/repos/runs.js";
import { MAX_ATTEMPTS } from "../../server/runtime/queue.js";
import type { RunWorkflowStepsResult } from "../../server/runtime/workflow-steps.js";
import { createWorkflowRunner } from "../../server/workflows/runner.js";
import { tempDb } from "../events/helpers.js";

class Recorder implements EventStore {
  appended: EmitInput[] = [];
  /** The runs recorded with the commits. */
  runs: RunRow[] = [];
  failNext: Error | false = false;
  async append(inputs: EmitInput[]) {
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = false;
      throw err;
    }
    this.appended.push(...inputs);
    return [];
  }
  async commit(inputs: EmitInput[], completion?: JobCompletion) {
    const ids = await this.append(inputs);
    if (completion?.run) this.runs.push(completion.run.row);
    return ids;
  }
}

/** An error of the database refusing what it was given, as pg reports it (SQLSTATE 22P05: a NUL in text). */
const refused = Object.assign(new Error("unsupported Unicode escape sequence"), { code: "22P05" });

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
    events.failNext = new Error("disk I/O error (simulated)");
    await expect(runner()(job)).rejects.toBeInstanceOf(PlatformFailure);
    await runner()(job);
    expect(events.appended.map((e) => e.event)).toEqual([1]);
  });

  /** A job of the queue: stored, so that the run passes its start fence. */
  let jobs = 0;
  const queued = async (attempts = 0) => {
    const id = `${String(Date.now()).padStart(15, "0")}-${String(++jobs).padStart(6, "0")}-abcdef`;
    await insertJobs(db.db, [{ id, targetId: "p_wf", ownerId: "u_1", trigger: "event", payload: "{}" }]);
    return { ...job, id, attempts };
  };

  it("ends a run whose results the database refuses: error with a platform code, one $errors event, no emit", async () => {
    result = { ...ran, ran: true, emits: [{ data: { raw_event: 1 }, channel: "" }], exit: { reason: "a\u0000b" } };
    events.failNext = refused;
    expect(await runner()(await queued())).toEqual({ committed: true });
    expect(events.appended.map((e) => e.channel)).toEqual(["$errors"]);
    expect(events.appended[0]!.event).toMatchObject({ error: { code: "STORAGE_ERROR" } });
    expect(events.runs).toHaveLength(1);
    expect(events.runs[0]).toMatchObject({ status: "error", ended_ms: expect.any(Number) });
    expect(JSON.parse(events.runs[0]!.error_json!)).toMatchObject({
      code: "STORAGE_ERROR",
      message: expect.stringContaining("could not be stored"),
    });
  });

  it("ends a run the platform failed on its last attempt; earlier attempts are the queue's to retry", async () => {
    const failing = createWorkflowRunner({
      db: db.db,
      events,
      runSteps: async () => {
        throw new PlatformFailure("the worker died (simulated)");
      },
    });
    await expect(failing(await queued(0))).rejects.toBeInstanceOf(PlatformFailure);
    expect(events.runs).toEqual([]);
    expect(await failing(await queued(MAX_ATTEMPTS - 1))).toEqual({ committed: true });
    expect(events.runs.map((r) => r.status)).toEqual(["error"]);
    expect(JSON.parse(events.runs[0]!.error_json!)).toMatchObject({ code: "PLATFORM_ERROR" });
    expect(JSON.parse(events.runs[0]!.steps_json)).toMatchObject([{ name: "step_1", status: "skipped" }]);
    expect(events.appended.map((e) => [e.channel, (e.event as { error: { code: string } }).error.code])).toEqual([
      ["$errors", "PLATFORM_ERROR"],
    ]);
  });

  it("does nothing for a job of another owner or a missing workflow", async () => {
    result = { ...ran, emits: [{ data: 1, channel: "" }] };
    await runner()({ ...job, ownerId: "u_2" });
    await runner()({ ...job, targetId: "p_gone" });
    expect(events.appended).toEqual([]);
  });
});
