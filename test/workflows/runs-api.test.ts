/** Workflow runs over the API (decisions.md "Workflow runs"), on SQLite and PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sleep, step } from "../delivery/helpers.js";
import { readRuns } from "./helpers.js";

/** Step a logs the body, exports x and returns a value; step b warns, and throws when the body says so. */
const twoSteps = (bThrows = true) => [
  {
    name: "a",
    code: step(
      `console.log("body", JSON.stringify(steps.trigger.event.body)); $.export("x", 42); return { got: steps.trigger.event.body.n };`,
    ),
  },
  {
    name: "b",
    code: step(
      `console.warn("checking", steps.a.x); ${bThrows ? 'if (steps.trigger.event.body.fail) throw new TypeError("b refused " + steps.a.$return_value.got);' : ""} return "b ok " + steps.a.x;`,
    ),
  },
];

async function send(url: string, body: unknown): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
}

/** Waits until the run has ended (any status but queued/running). */
async function ended(user: TestUser, wf: string, run: string, withinMs = 20_000): Promise<Run> {
  const until = Date.now() + withinMs;
  for (;;) {
    const r = await user.client.getWorkflowRun(wf, run).catch(() => undefined);
    if (r && r.status !== "running" && r.status !== "queued") return r;
    if (Date.now() > until) throw new Error(`run ${run} did not end: ${r?.status}`);
    await sleep(50);
  }
}

describe.each(testDatabases())("workflow runs on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({
      db,
      env: {
        HEADWATER_WORKFLOW_RESPONSE_TIMEOUT_MS: "1500",
        HEADWATER_RUN_RETENTION: "5",
        HEADWATER_INVOCATION_TIMEOUT_MS: "6000",
      },
    });
    alice = await srv.newUser();
    bob = await srv.newUser();
  });
  afterAll(() => srv?.stop());

  it("records every run with each step's status, duration, logs, return value, exports and error", async () => {
    const wf = await alice.client.createWorkflow({ name: "two steps", steps: twoSteps() });
    const ok = await send(wf.endpoint_url, { n: 1 });
    expect(ok.status).toBe(200);
    const okId = ok.headers.get("x-headwater-run-id")!;
    expect(okId).toMatch(/^r_[A-Za-z0-9]+$/);
    const bad = await send(wf.endpoint_url, { n: 2, fail: true });
    const badId = bad.headers.get("x-headwater-run-id")!;

    const good = await ended(alice, wf.id, okId);
    expect(good).toMatchObject({
      id: okId,
      workflow_id: wf.id,
      status: "success",
      trigger: { type: "HTTP" },
      attempt: 1,
      error: null,
      response: null,
      exit_reason: null,
    });
    expect(good.duration_ms).toBe(good.ended_at_ms! - good.started_at_ms!);
    expect((good.event as { body: unknown }).body).toEqual({ n: 1 });
    const [a, b] = good.steps;
    expect(a).toMatchObject({
      id: wf.steps[0]!.id,
      name: "a",
      status: "success",
      return_value: { got: 1 },
      exports: { x: 42 },
      error: null,
    });
    expect(a!.logs).toEqual([{ ts_ms: expect.any(Number), level: "log", message: 'body {"n":1}' }]);
    expect(b).toMatchObject({ name: "b", status: "success", return_value: "b ok 42" });
    expect(b!.logs.map((l) => l.message).join("\n")).not.toContain(process.cwd());
    expect(b!.logs.map((l) => [l.level, l.message])).toEqual([["warn", "checking 42"]]);
    expect(typeof a!.duration_ms).toBe("number");

    const logged = await alice.client.createWorkflow({
      name: "logs an error",
      steps: [{ name: "log", code: step(`console.error(new Error("logged")); return 1;`) }],
    });
    const loggedRun = await ended(
      alice,
      logged.id,
      (await send(logged.endpoint_url, {})).headers.get("x-headwater-run-id")!,
    );
    const line = loggedRun.steps[0]!.logs[0]!;
    expect(line).toMatchObject({ level: "error", message: expect.stringContaining("Error: logged") });
    expect(line.message).toContain("/component/index.mjs");
    expect(line.message).not.toMatch(/server\/runtime|worker\.cjs|node:internal/);
    expect(line.message).not.toContain(process.cwd());

    const failed = await ended(alice, wf.id, badId);
    expect(failed.status).toBe("error");
    expect(failed.error).toMatchObject({
      code: "TypeError",
      message: "b refused 2",
      cellId: wf.steps[1]!.id,
      step: "b",
    });
    expect(failed.steps[0]!.status).toBe("success");
    expect(failed.steps[1]).toMatchObject({
      status: "error",
      error: { name: "TypeError", message: "b refused 2" },
    });
    const stack = failed.steps[1]!.error!.stack;
    expect(stack).toContain("b refused 2");
    expect(stack).not.toMatch(/server\/runtime|worker\.cjs|steps\.cjs|node:internal/);
    expect(stack).not.toContain(process.cwd());

    // The list: newest first, filtered by status, events cut unless expanded.
    const all = await alice.client.listWorkflowRuns(wf.id);
    expect(all.data.map((r) => r.id)).toEqual([badId, okId]);
    expect(all.page_info.total_count).toBe(2);
    expect((await alice.client.listWorkflowRuns(wf.id, { status: "error" })).data.map((r) => r.id)).toEqual([
      badId,
    ]);
    expect(
      (await alice.client.listWorkflowRuns(wf.id, { status: "success", limit: 1 })).data.map((r) => r.id),
    ).toEqual([okId]);
  });

  it("records a run that emitted nothing and threw nothing, and a source-triggered one", async () => {
    const wf = await alice.client.createWorkflow({
      name: "quiet",
      steps: [{ name: "only", code: step("return null;") }],
    });
    const res = await send(wf.endpoint_url, {});
    const run = await ended(alice, wf.id, res.headers.get("x-headwater-run-id")!);
    expect(run.status).toBe("success");
    expect((await alice.client.listWorkflowEvents(wf.id)).data).toEqual([]);
  });

  it(
    "names the step a run was stopped in when it runs out of time, after the steps before it",
    { timeout: 40_000 },
    async () => {
      const wf = await alice.client.createWorkflow({
        name: "hangs",
        steps: [
          { name: "first", code: step(`return 1;`) },
          { name: "second", code: step(`return 2;`) },
          { name: "spins", code: step(`console.log("spinning"); for (;;) {}`) },
          { name: "never", code: step(`return 4;`) },
        ],
      });
      const res = await send(wf.endpoint_url, {});
      const run = await ended(alice, wf.id, res.headers.get("x-headwater-run-id")!, 30_000);
      expect(run.status).toBe("error");
      expect(run.error).toMatchObject({ code: "TIMEOUT", step: "spins" });
      expect(run.steps.map((s) => [s.name, s.status])).toEqual([
        ["first", "success"],
        ["second", "success"],
        ["spins", "error"],
        ["never", "skipped"],
      ]);
      expect(run.steps[2]!.error).toMatchObject({ name: "TIMEOUT" });
      expect(run.steps[2]!.logs.map((l) => l.message)).toEqual(["spinning"]);
    },
  );

  it("cuts big events in lists unless expand=event, and keeps them whole in a run", async () => {
    const wf = await alice.client.createWorkflow({ name: "big", steps: [{ code: step("return 1;") }] });
    const res = await send(wf.endpoint_url, { blob: "x".repeat(3000) });
    const id = res.headers.get("x-headwater-run-id")!;
    await ended(alice, wf.id, id);
    const listed = (await alice.client.listWorkflowRuns(wf.id)).data[0]!;
    expect(listed.event).toMatchObject({
      truncated: true,
      size: expect.any(Number),
      preview: expect.any(String),
    });
    const expanded = (await alice.client.listWorkflowRuns(wf.id, { expand: "event" })).data[0]!;
    expect((expanded.event as { body: { blob: string } }).body.blob).toHaveLength(3000);
    expect(
      ((await alice.client.getWorkflowRun(wf.id, id)).event as { body: { blob: string } }).body.blob,
    ).toHaveLength(3000);
    const picked = await alice.client.raw("GET", `/workflows/${wf.id}/runs/${id}`, {
      query: { include: "id,status" },
    });
    expect(picked).toEqual({ data: { id, status: "success" } });
  });

  it("re-runs a run, and from a step after fixing it, reusing the earlier steps' results", async () => {
    const wf = await alice.client.createWorkflow({ name: "rerun", steps: twoSteps() });
    const res = await send(wf.endpoint_url, { n: 7, fail: true });
    const first = await ended(alice, wf.id, res.headers.get("x-headwater-run-id")!);
    expect(first.status).toBe("error");

    const again = await alice.client.rerunWorkflowRun(wf.id, first.id);
    expect(again.id).not.toBe(first.id);
    expect(again).toMatchObject({ status: "error", trigger: { type: "RERUN", rerun_of: first.id } });
    expect(again.steps.map((s) => s.status)).toEqual(["success", "error"]);

    // Fix step b, re-run from it: a is reused (not run: no log line), b runs with a's results.
    await alice.client.updateWorkflow(wf.id, { steps: twoSteps(false) });
    const fixed = await alice.client.rerunWorkflowRun(wf.id, first.id, { from_step: "b" });
    expect(fixed).toMatchObject({
      status: "success",
      trigger: { type: "RERUN", rerun_of: first.id, from_step: "b" },
    });
    expect(fixed.steps[0]).toMatchObject({
      name: "a",
      status: "reused",
      return_value: { got: 7 },
      exports: { x: 42 },
      logs: [],
    });
    expect(fixed.steps[1]).toMatchObject({ name: "b", status: "success", return_value: "b ok 42" });
    expect((fixed.event as { body: unknown }).body).toEqual({ n: 7, fail: true });
    // By step id too.
    const byId = await alice.client.rerunWorkflowRun(wf.id, first.id, { from_step: fixed.steps[1]!.id });
    expect(byId.status).toBe("success");
  });

  it("refuses an unknown from_step with 400, and others' workflows and runs with 404", async () => {
    const wf = await alice.client.createWorkflow({ name: "guarded", steps: twoSteps() });
    const other = await alice.client.createWorkflow({ name: "other", steps: [{ code: step("return 1;") }] });
    const res = await send(wf.endpoint_url, { n: 1 });
    const run = await ended(alice, wf.id, res.headers.get("x-headwater-run-id")!);
    const before = (await alice.client.listWorkflowRuns(wf.id)).page_info.total_count;

    const e = await expectApiError(alice.client.rerunWorkflowRun(wf.id, run.id, { from_step: "nope" }), 400);
    expect(e.message).toContain("nope");
    await expectApiError(
      alice.client.raw("POST", `/workflows/${wf.id}/runs/${run.id}/rerun`, { body: { from_step: 5 } }),
      400,
    );
    await expectApiError(
      alice.client.raw("GET", `/workflows/${wf.id}/runs`, { query: { status: "sleeping" } }),
      400,
    );
    await expectApiError(bob.client.listWorkflowRuns(wf.id), 404);
    await expectApiError(bob.client.getWorkflowRun(wf.id, run.id), 404);
    await expectApiError(bob.client.rerunWorkflowRun(wf.id, run.id), 404);
    await expectApiError(alice.client.getWorkflowRun(other.id, run.id), 404);
    await expectApiError(alice.client.rerunWorkflowRun(other.id, run.id), 404);
    await expectApiError(alice.client.getWorkflowRun(wf.id, "r_nothere"), 404);
    expect((await alice.client.listWorkflowRuns(wf.id)).page_info.total_count).toBe(before);
  });

  it("answers the HTTP caller with $.respond, 204, 502 or 504, naming the run", async () => {
    const wf = await alice.client.createWorkflow({
      name: "api",
      http_response: "workflow",
      steps: [
        {
          name: "reply",
          code: step(`
            const b = steps.trigger.event.body;
            if (b.mode === "respond") await $.respond({ status: 201, headers: { "x-made-by": "wf" }, body: { hello: b.who } });
            if (b.mode === "text") $.respond({ body: "plain" });
            if (b.mode === "fail") throw new Error("secret detail in the error");
            if (b.mode === "slow") await new Promise((r) => setTimeout(r, 4000));
            return 1;`),
        },
        { name: "after", code: step(`console.log("went on after the answer"); return 2;`) },
      ],
    });
    expect(wf.http_response).toBe("workflow");
    const made = await send(wf.endpoint_url, { mode: "respond", who: "ann" });
    expect(made.status).toBe(201);
    expect(made.headers.get("x-made-by")).toBe("wf");
    expect(made.headers.get("content-type")).toMatch(/application\/json/);
    expect(await made.json()).toEqual({ hello: "ann" });
    const runId = made.headers.get("x-headwater-run-id")!;
    const run = await ended(alice, wf.id, runId);
    expect(run.response).toEqual({ status: 201, headers: { "x-made-by": "wf" }, body: { hello: "ann" } });
    expect(run.steps[1]!.logs[0]!.message).toBe("went on after the answer");

    const text = await send(wf.endpoint_url, { mode: "text" });
    expect([text.status, await text.text()]).toEqual([200, "plain"]);

    const none = await send(wf.endpoint_url, { mode: "none" });
    expect(none.status).toBe(204);
    expect(none.headers.get("x-headwater-run-id")).toMatch(/^r_/);

    const failed = await send(wf.endpoint_url, { mode: "fail" });
    expect(failed.status).toBe(502);
    const body = (await failed.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ code: "workflow_error", run_id: failed.headers.get("x-headwater-run-id") });
    expect(JSON.stringify(body)).not.toContain("secret detail");

    const slow = await send(wf.endpoint_url, { mode: "slow" });
    expect(slow.status).toBe(504);
    expect(await slow.json()).toMatchObject({
      code: "workflow_response_timeout",
      run_id: slow.headers.get("x-headwater-run-id"),
    });
    // The run is not lost with the caller's answer.
    expect((await ended(alice, wf.id, slow.headers.get("x-headwater-run-id")!)).status).toBe("success");

    // Back to immediate: 200 at once, still naming the run.
    const updated = await alice.client.updateWorkflow(wf.id, { http_response: "immediate" });
    expect(updated.http_response).toBe("immediate");
    expect(updated.name).toBe("api");
    const quick = await send(wf.endpoint_url, { mode: "respond", who: "x" });
    expect([quick.status, await quick.json()]).toEqual([200, { success: true }]);
    expect(quick.headers.get("x-headwater-run-id")).toMatch(/^r_/);
    await expectApiError(
      alice.client.raw("PUT", `/workflows/${wf.id}`, { body: { http_response: "later" } }),
      400,
    );
  });

  it("ends a run with $.flow.exit: exited with its reason, later steps skipped, earlier emits stored", async () => {
    const wf = await alice.client.createWorkflow({
      name: "exit",
      steps: [
        { name: "first", code: step(`$.send.emit({ before: true }); return "one";`) },
        { name: "stop", code: step(`$.flow.exit("nothing to do");`) },
        { name: "never", code: step(`return "never";`) },
      ],
    });
    const res = await send(wf.endpoint_url, {});
    const run = await ended(alice, wf.id, res.headers.get("x-headwater-run-id")!);
    expect(run).toMatchObject({ status: "exited", exit_reason: "nothing to do", error: null });
    expect(run.steps.map((s) => s.status)).toEqual(["success", "exited", "skipped"]);
    const emitted = await alice.client.listWorkflowEvents(wf.id);
    expect(emitted.data.map((e) => e.event)).toEqual([{ raw_event: { before: true } }]);
    expect((await alice.client.listWorkflowErrors(wf.id)).data).toEqual([]);
  });

  it("cuts a step that logs megabytes or returns a huge value, keeping the run's other steps", async () => {
    const wf = await alice.client.createWorkflow({
      name: "loud",
      steps: [
        { name: "small", code: step(`console.log("hi"); return "small";`) },
        {
          name: "chatty",
          code: step(
            `for (let i = 0; i < 300; i++) console.log(String(i).padEnd(10000, "."));  return "chatty";`,
          ),
        },
        { name: "huge", code: step(`return "y".repeat(600000);`) },
        { name: "last", code: step(`return steps.huge.$return_value.length;`) },
      ],
    });
    const res = await send(wf.endpoint_url, {});
    const run = await ended(alice, wf.id, res.headers.get("x-headwater-run-id")!);
    expect(run.status).toBe("success");
    const [small, chatty, huge, last] = run.steps;
    expect(small).toMatchObject({ status: "success", return_value: "small", logs: [{ message: "hi" }] });
    expect(small!.truncated).toBeUndefined();
    expect(chatty).toMatchObject({ status: "success", return_value: "chatty", truncated: true });
    expect(chatty!.logs.length).toBeLessThanOrEqual(200);
    expect(chatty!.logs.reduce((n, l) => n + l.message.length, 0)).toBeLessThanOrEqual(64 * 1024);
    expect(huge).toMatchObject({
      status: "success",
      truncated: true,
      return_value: { truncated: true, size: 600002 },
    });
    expect(last).toMatchObject({ status: "success", return_value: 600000 });
  });

  it("keeps the newest HEADWATER_RUN_RETENTION runs, and drops them with the workflow", async () => {
    const wf = await alice.client.createWorkflow({ name: "kept", steps: [{ code: step("return 1;") }] });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await send(wf.endpoint_url, { i });
      ids.push(res.headers.get("x-headwater-run-id")!);
      await ended(alice, wf.id, ids[i]!);
    }
    const listed = await alice.client.listWorkflowRuns(wf.id, { limit: 100 });
    expect(listed.data.map((r) => r.id)).toEqual(ids.slice(2).reverse());
    await alice.client.deleteWorkflow(wf.id);
    await expectApiError(alice.client.listWorkflowRuns(wf.id), 404);
  });

  it("streams each run's start and end to a client following the workflow", async () => {
    const wf = await alice.client.createWorkflow({
      name: "live",
      steps: [{ code: step("await new Promise((r) => setTimeout(r, 300)); return 1;") }],
    });
    const ac = new AbortController();
    const stream = await fetch(alice.client.workflowRunsStreamUrl(wf.id), {
      headers: { authorization: `Bearer ${alice.key}` },
      signal: ac.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get("content-type")).toMatch(/text\/event-stream/);
    const seen: Array<[string, string]> = [];
    const reading = readRuns(stream, (run) => seen.push([run.id, run.status]));
    await sleep(100);
    const res = await send(wf.endpoint_url, {});
    const id = res.headers.get("x-headwater-run-id")!;
    const until = Date.now() + 10_000;
    while (!seen.some(([r, s]) => r === id && s === "success") && Date.now() < until) await sleep(25);
    ac.abort();
    await reading;
    expect(seen.filter(([r]) => r === id).map(([, s]) => s)).toEqual(["running", "success"]);
    const denied = await fetch(alice.client.workflowRunsStreamUrl(wf.id), {
      headers: { authorization: `Bearer ${bob.key}` },
    });
    expect(denied.status).toBe(404);
  });
});
