/**
 * Test runs over the API (decisions.md "Building workflows"), on SQLite and PostgreSQL: the
 * draft runs for real on a chosen event, and nothing it produces leaves the run (emits recorded
 * on their steps, the answer recorded, no `$errors`, no retry, no delay held); test runs are
 * kept apart from production runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { step } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sendJson, until } from "./helpers.js";

describe.each(testDatabases())("test runs on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
  }, 60_000);
  afterAll(() => srv?.stop());

  it(
    "runs the draft on a given event: emits and the answer recorded, nothing stored, sent or delayed",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow({
        name: "built",
        active: false,
        steps: [
          { name: "a", code: step(`$.send.emit({ got: steps.trigger.event.n }); await $.respond({ status: 201, body: { ok: true } }); return steps.trigger.event.n * 2;`) },
          { name: "wait", code: step(`return $.flow.delay(3600000);`) },
          { name: "c", code: step(`return "deployed c";`) },
        ],
      });
      await alice.client.updateWorkflowDraft(wf.id, {
        steps: [
          { name: "a", code: wf.steps[0]!.code },
          { name: "wait", code: wf.steps[1]!.code },
          { name: "c", code: step(`return "draft c after " + steps.a.$return_value;`) },
        ],
      });
      const run = await alice.client.testWorkflow(wf.id, { event: { n: 21 } });
      expect(run).toMatchObject({ test: true, trigger: { type: "TEST" }, status: "success", event: { n: 21 } });
      expect(run.steps.map((s) => [s.name, s.status])).toEqual([
        ["a", "success"],
        ["wait", "success"],
        ["c", "success"],
      ]);
      expect(run.steps[0]).toMatchObject({ return_value: 42, emits: [{ channel: "default", data: { raw_event: { got: 21 } } }] });
      expect(run.steps[1]!.return_value).toMatchObject({ resume_at_ms: expect.any(Number) });
      expect(run.steps[2]!.return_value).toBe("draft c after 42");
      expect(run.response).toMatchObject({ status: 201, body: { ok: true } });
      // Nothing of it was stored as an event, nor listed with production runs.
      expect((await alice.client.listWorkflowEvents(wf.id)).page_info.total_count).toBe(0);
      expect((await alice.client.listWorkflowRuns(wf.id)).data).toEqual([]);
      const tests = await alice.client.listWorkflowRuns(wf.id, { test: true });
      expect(tests.data.map((r) => r.id)).toEqual([run.id]);
      expect(await alice.client.getWorkflowRun(wf.id, run.id)).toMatchObject({ id: run.id, test: true, status: "success" });
      // The workflow itself is still as deployed.
      expect((await alice.client.getWorkflow(wf.id)).version).toBe(1);
    },
  );

  it("a failing test emits no $errors and is not retried; to_step stops, from_step reuses the earlier results", async () => {
    const wf = await alice.client.createWorkflow({
      name: "fails",
      retry: { max_attempts: 3, initial_delay_seconds: 1 },
      steps: [
        { name: "a", code: step(`return "a ran at " + Date.now();`) },
        { name: "b", code: step(`if (steps.trigger.event.fail) throw new Error("boom"); return "b ok";`) },
        { name: "c", code: step(`return steps.a.$return_value;`) },
      ],
    });
    const failed = await alice.client.testWorkflow(wf.id, { event: { fail: true } });
    expect(failed).toMatchObject({ status: "error", attempt: 1, error: { step: "b" } });
    expect(failed.steps.map((s) => s.status)).toEqual(["success", "error", "skipped"]);
    const first = await alice.client.testWorkflow(wf.id, { event: {}, to_step: "a" });
    expect(first.steps.map((s) => s.status)).toEqual(["success", "skipped", "skipped"]);
    const rest = await alice.client.testWorkflow(wf.id, { event: {}, from_step: "b", run_id: first.id });
    expect(rest.steps.map((s) => s.status)).toEqual(["reused", "success", "success"]);
    expect(rest.steps[2]!.return_value).toBe(first.steps[0]!.return_value);
    // Not retried, nothing on $errors (the retry would have come after a second).
    await new Promise((r) => setTimeout(r, 1500));
    expect((await alice.client.listWorkflowErrors(wf.id)).page_info.total_count).toBe(0);
    expect((await alice.client.listWorkflowRuns(wf.id, { test: true })).data).toHaveLength(3);
    await expectApiError(alice.client.testWorkflow(wf.id, { to_step: "nope" }), 400);
    await expectApiError(alice.client.testWorkflow(wf.id, { run_id: "r_0017966000000000000000abcdef" }), 404);
  });

  it("takes the event of a run, and by default the workflow's latest trigger event", { timeout: 30_000 }, async () => {
    const wf = await alice.client.createWorkflow({ name: "events", steps: [{ code: step(`return steps.trigger.event.body.x;`) }] });
    const id = (await sendJson(wf.endpoint_url, { x: 7 })).headers.get("x-headwater-run-id")!;
    await until("the run", async () => ((await alice.client.getWorkflowRun(wf.id, id)).status === "success" ? true : undefined));
    expect((await alice.client.testWorkflow(wf.id)).steps[0]!.return_value).toBe(7);
    expect((await alice.client.testWorkflow(wf.id, { run_id: id })).steps[0]!.return_value).toBe(7);
    const inline = await alice.client.testWorkflow(wf.id, {
      event: { body: { x: 1 } },
      steps: [{ name: "local", code: step(`return steps.trigger.event.body.x + 100;`) }],
    });
    expect(inline.steps.map((s) => [s.name, s.return_value])).toEqual([["local", 101]]);
  });

  it("is 404 for another user's workflow and 400 for steps that do not parse", async () => {
    const wf = await alice.client.createWorkflow({ name: "private", steps: [{ code: step(`return 1;`) }] });
    await expectApiError(bob.client.testWorkflow(wf.id, { event: {} }), 404);
    await expectApiError(alice.client.testWorkflow(wf.id, { steps: [{ name: "x", code: "export default {" }] }), 400, "invalid_step");
    expect((await alice.client.listWorkflowRuns(wf.id, { test: true })).data).toEqual([]);
  });

  it("counts toward the owner's quota and is listed by the time it answers", async () => {
    const carol = await srv.newUser();
    const wf = await carol.client.createWorkflow({ name: "counted", active: false, steps: [{ code: step(`return 7;`) }] });
    const before = await carol.client.getMe();
    const run = await carol.client.testWorkflow(wf.id, { event: {} });
    expect(run.status).toBe("success");
    // Its row and its count commit together before the answer: neither is waited for.
    expect((await carol.client.getMe()).daily_invocations_used).toBe((before.daily_invocations_used ?? 0) + 1);
    expect((await carol.client.listWorkflowRuns(wf.id, { test: true })).data.map((r) => r.id)).toEqual([run.id]);
    // A run that stopped before any step ran is not counted.
    await expectApiError(carol.client.testWorkflow(wf.id, { steps: [{ name: "x", code: "export default {" }] }), 400);
    expect((await carol.client.getMe()).daily_invocations_used).toBe((before.daily_invocations_used ?? 0) + 1);
  });
});
