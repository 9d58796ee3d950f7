import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkflowErrorEvent } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { post, sleep, step, waitForList, workflowErrors, workflowEvents } from "../delivery/helpers.js";

describe.each(testDatabases())("workflows on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
  });
  afterAll(() => srv?.stop());

  it("creates, reads, updates, lists and deletes a workflow", async () => {
    const wf = await alice.client.createWorkflow({
      name: "crud",
      steps: [{ code: step("return 1;") }, { name: "second", code: step("return 2;") }],
    });
    expect(wf.id).toMatch(/^p_/);
    expect(wf.deployment_id).toMatch(/^d_/);
    expect(wf.steps.map((s) => s.name)).toEqual(["step_1", "second"]);
    expect(wf.steps.every((s) => s.id.startsWith("c_"))).toBe(true);
    expect(wf.endpoint_url).toBe(`${srv.origin}/e/${wf.id}`);
    expect(wf.active).toBe(true);
    expect(await alice.client.getWorkflow(wf.id)).toEqual(wf);

    const renamed = await alice.client.updateWorkflow(wf.id, { name: "renamed", active: false });
    expect(renamed).toMatchObject({ name: "renamed", active: false, deployment_id: wf.deployment_id, steps: wf.steps });
    const restepped = await alice.client.updateWorkflow(wf.id, { steps: [{ name: "second", code: step("return 2;") }] });
    expect(restepped.steps).toEqual([wf.steps[1]]);
    expect(restepped.deployment_id).not.toBe(wf.deployment_id);

    const other = await alice.client.createWorkflow({ name: "other", steps: [{ code: step("return 3;") }] });
    const page1 = await alice.client.listMyWorkflows({ limit: 1 });
    expect(page1.data.map((w) => w.id)).toEqual([other.id]);
    expect(page1.page_info).toMatchObject({ total_count: 2, count: 1 });
    const page2 = await alice.client.listMyWorkflows({ limit: 1, after: page1.page_info.end_cursor! });
    expect(page2.data.map((w) => w.id)).toEqual([wf.id]);
    expect((await bob.client.listMyWorkflows()).data).toEqual([]);

    await alice.client.deleteWorkflow(wf.id);
    await expectApiError(alice.client.getWorkflow(wf.id), 404);
    await expectApiError(alice.client.deleteWorkflow(wf.id), 404);
    await alice.client.deleteWorkflow(other.id);
  });

  it("refuses bad input with 400 and other users' workflows with 404", async () => {
    await expectApiError(alice.client.createWorkflow({ name: "x", steps: [] }), 400);
    await expectApiError(alice.client.raw("POST", "/workflows", { body: { steps: [{ code: "x" }] } }), 400);
    await expectApiError(alice.client.createWorkflow({ name: "x", steps: [{ code: "export default {{{" }] }), 400);
    await expectApiError(
      alice.client.createWorkflow({ name: "x", steps: [{ name: "a", code: step("") }, { name: "a", code: step("") }] }),
      400,
    );
    await expectApiError(alice.client.createWorkflow({ name: "x", steps: [{ name: "trigger", code: step("") }] }), 400);
    const wf = await alice.client.createWorkflow({ name: "mine", steps: [{ code: step("return 1;") }] });
    await expectApiError(bob.client.getWorkflow(wf.id), 404);
    await expectApiError(bob.client.updateWorkflow(wf.id, { name: "stolen" }), 404);
    await expectApiError(bob.client.deleteWorkflow(wf.id), 404);
    await expectApiError(bob.client.listWorkflowEvents(wf.id), 404);
    await expectApiError(alice.client.updateWorkflow(wf.id, { steps: [{ code: "(((" }] }), 400);
    expect((await alice.client.getWorkflow(wf.id)).name).toBe("mine");
  });

  it("runs steps in order over HTTP: trigger event, return values, $.send.emit and legacy $send.emit", async () => {
    const wf = await alice.client.createWorkflow({
      name: "emits",
      steps: [
        { name: "parse", code: step("return { n: steps.trigger.event.body.n * 2 };") },
        {
          name: "send",
          code: step(`
            $.send.emit({ doubled: steps.parse.$return_value.n });
            $send.emit({ raw_event: { legacy: true } });
            $.send.emit({ side: 1 }, "side");
          `),
        },
      ],
    });
    expect(await post(wf.endpoint_url, { n: 21 })).toBe(200);
    const got = await waitForList(workflowEvents(alice.client, wf.id), 2);
    expect(got.map((e) => e.event)).toEqual([{ raw_event: { doubled: 42 } }, { raw_event: { legacy: true } }]);
    expect(got[0]!.metadata).toMatchObject({ name: "", emitter_id: wf.id });
    const side = await waitForList((q) => alice.client.listWorkflowEvents(wf.id, { ...q, event_name: "side" }), 1);
    expect(side[0]!.event).toEqual({ raw_event: { side: 1 } });
  });

  it("records a thrown error on $errors in the spec's shape, with the emits made before it", async () => {
    const wf = await alice.client.createWorkflow({
      name: "fails",
      steps: [
        { name: "ok", code: step("$.send.emit({ before: true }); return 1;") },
        { name: "boom", code: step("throw new TypeError('bad thing ' + steps.trigger.event.body.x);") },
        { name: "never", code: step("$.send.emit({ after: true });") },
      ],
    });
    await post(wf.endpoint_url, { x: 7 });
    const errors = await waitForList(workflowErrors(alice.client, wf.id), 1);
    const parsed = WorkflowErrorEvent.parse(errors[0]!.event);
    expect(parsed.error).toMatchObject({ code: "TypeError", message: "bad thing 7", cellId: wf.steps[1]!.id });
    expect(parsed.error.stack).toMatch(/TypeError: bad thing 7/);
    expect(Date.parse(parsed.error.ts)).not.toBeNaN();
    expect(parsed.original_event).toMatchObject({ method: "POST", body: { x: 7 } });
    expect(parsed.original_context).toMatchObject({
      workflow_id: wf.id,
      deployment_id: wf.deployment_id,
      source_type: "HTTP",
      owner_id: alice.user.id,
      verified: false,
    });
    expect(errors[0]!.metadata.name).toBe("$errors");
    await sleep(300);
    const emitted = await alice.client.listWorkflowEvents(wf.id, { expand: "event" });
    expect(emitted.data.map((e) => e.event)).toEqual([{ raw_event: { before: true } }]);
  });

  it("$end(reason) from @pipedream/platform and $.flow.exit(reason) end the run there: later steps do not run, no error", async () => {
    const ended = async (name: string, exit: string) => {
      const wf = await alice.client.createWorkflow({
        name,
        steps: [
          { name: "first", code: `import { $end } from "@pipedream/platform";\n${step(`$.send.emit({ first: steps.trigger.event.body.n });`)}` },
          { name: "stop", code: `import { $end } from "@pipedream/platform";\n${step(`if (steps.trigger.event.body.n > 1) ${exit}; return "went on";`)}` },
          { name: "after", code: step(`$.send.emit({ after: steps.stop.$return_value });`) },
        ],
      });
      // n = 2 exits at "stop"; n = 1 goes through (the exit is what stops "after").
      expect(await post(wf.endpoint_url, { n: 2 })).toBe(200);
      expect(await post(wf.endpoint_url, { n: 1 })).toBe(200);
      // A run's emits and errors are stored together: once the second run's are in, both runs are.
      const got = await waitForList(workflowEvents(alice.client, wf.id), 3);
      expect(got.map((e) => e.event)).toEqual([{ raw_event: { first: 2 } }, { raw_event: { first: 1 } }, { raw_event: { after: "went on" } }]);
      expect((await alice.client.listWorkflowErrors(wf.id)).data).toEqual([]);
    };
    await ended("ends", `$end("nothing to do")`);
    await ended("exits", `$.flow.exit("nothing to do")`);
  });

  it("pausing, answering with the workflow and deleting take effect at its endpoint at once", async () => {
    const wf = await alice.client.createWorkflow({ name: "endpoint", steps: [{ code: step("return 1;") }] });
    // Answered (and its target remembered) a few times first.
    for (let i = 0; i < 3; i++) expect(await post(wf.endpoint_url, { i })).toBe(200);
    await alice.client.updateWorkflow(wf.id, { active: false });
    expect(await post(wf.endpoint_url, {})).toBe(404);
    await alice.client.updateWorkflow(wf.id, { active: true, http_response: "workflow" });
    expect(await post(wf.endpoint_url, {})).toBe(204);
    await alice.client.deleteWorkflow(wf.id);
    expect(await post(wf.endpoint_url, {})).toBe(404);
  });

  it("an inactive workflow does not run", async () => {
    const wf = await alice.client.createWorkflow({ name: "paused", active: false, steps: [{ code: step("$.send.emit({ ran: true });") }] });
    await post(wf.endpoint_url, {});
    await sleep(1000);
    expect((await alice.client.listWorkflowEvents(wf.id)).page_info.total_count).toBe(0);
  });
});
