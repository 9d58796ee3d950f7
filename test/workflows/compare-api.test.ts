/**
 * Comparing two runs over the API (decisions.md "Building workflows", "Compare runs"), on SQLite
 * and PostgreSQL: step by step, each run's status, duration and place, whether the step's code
 * differed between the versions the runs ran (with a unified diff), and which paths of the
 * return value and exports differ; `last_success`; test runs (of the current version, and of
 * steps given as local files); 400 and 404 where the contract says.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run, Workflow } from "../../shared/resources/index.js";
import { step } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError, rawRequest } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sendJson, until } from "./helpers.js";

const ended = (r: Run) => ["success", "error", "exited", "cancelled"].includes(r.status);

/** Step a returns three items and exports their total; `third` is the last item's id. */
const stepA = (third: number, total: number) =>
  step(
    `$.export("total", ${total}); $.export("same", "kept"); return { items: [{ id: 1 }, { id: 2 }, { id: ${third} }], label: "x" };`,
  );
const V1 = [
  { name: "a", code: stepA(3, 6) },
  { name: "old", code: step(`return "old";`) },
  { name: "b", code: step(`return "b ok";`) },
];
const V2 = [
  { name: "a", code: stepA(30, 33) },
  { name: "b", code: step(`if (steps.trigger.event.body.fail) throw new Error("b broke"); return "b ok";`) },
  { name: "c", code: step(`return "c";`) },
];

describe.each(testDatabases())("comparing runs on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let wf: Workflow;
  let good: Run;
  let bad: Run;

  /** A request to the workflow's endpoint, and its run once it ended. */
  const runOf = async (w: Workflow, body: unknown, who: TestUser = alice) => {
    const id = (await sendJson(w.endpoint_url, body)).headers.get("x-headwater-run-id")!;
    return until(`run ${id}`, async () => {
      const r = await who.client.getWorkflowRun(w.id, id);
      return ended(r) ? r : undefined;
    });
  };

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
    wf = await alice.client.createWorkflow({ name: "compared", steps: V1 });
    good = await runOf(wf, {});
    await alice.client.updateWorkflow(wf.id, { steps: V2 });
    bad = await runOf(wf, { fail: true });
  }, 90_000);
  afterAll(() => srv?.stop());

  it("compares a failed run with the last good one, step by step", async () => {
    expect(good).toMatchObject({ status: "success", version: 1 });
    expect(bad).toMatchObject({ status: "error", version: 2 });
    const c = await alice.client.compareWorkflowRuns(wf.id, bad.id, "last_success");
    expect(c.run).toEqual({
      id: bad.id,
      status: "error",
      test: false,
      version: 2,
      code_of: "version",
      started_at_ms: bad.started_at_ms,
      duration_ms: bad.duration_ms,
      error: bad.error,
    });
    expect(c.with).toMatchObject({
      id: good.id,
      status: "success",
      test: false,
      version: 1,
      code_of: "version",
      error: null,
    });
    // The run's steps in order; "old", only the good run's, after the step it followed there.
    expect(c.steps.map((s) => s.name)).toEqual(["a", "old", "b", "c"]);
    const [a, old, b, cStep] = c.steps;

    expect(a).toMatchObject({
      run: { status: "success", position: 1, duration_ms: expect.any(Number) },
      with: { status: "success", position: 1 },
      status_changed: false,
      code_changed: true,
      differing_paths: ["$return_value.items[2].id", "exports.total"],
      paths_truncated: false,
    });
    expect(a!.code_diff).toBe(
      [
        `--- a in ${good.id} (version 1)`,
        `+++ a in ${bad.id} (version 2)`,
        "@@ -1 +1 @@",
        `-${stepA(3, 6)}`,
        `+${stepA(30, 33)}`,
        "",
      ].join("\n"),
    );
    expect(old).toMatchObject({
      run: null,
      with: { status: "success", position: 2 },
      status_changed: true,
      code_changed: true,
      differing_paths: null,
    });
    expect(old!.code_diff).toMatch(/^-export default .*return "old";/m);
    expect(b).toMatchObject({
      run: { status: "error", position: 2 },
      with: { status: "success", position: 3 },
      status_changed: true,
      code_changed: true,
      // It failed in this run: it has no values to compare.
      differing_paths: null,
    });
    expect(cStep).toMatchObject({
      run: { status: "skipped", position: 3 },
      with: null,
      code_changed: true,
      differing_paths: null,
    });
    expect(cStep!.code_diff).toMatch(/^@@ -0,0 \+1 @@\n\+export default/m);
  });

  it("compares with a run named by id, in either direction; equal steps have no diff and no paths", async () => {
    const again = await runOf(wf, {});
    const c = await alice.client.compareWorkflowRuns(wf.id, again.id, bad.id);
    expect(c.with.id).toBe(bad.id);
    const a = c.steps.find((s) => s.name === "a")!;
    expect(a).toMatchObject({
      status_changed: false,
      code_changed: false,
      code_diff: null,
      differing_paths: [],
    });
    expect(c.steps.find((s) => s.name === "b")).toMatchObject({
      run: { status: "success" },
      with: { status: "error" },
      status_changed: true,
      code_changed: false,
    });
    // The good run against the failed one: the diff goes the other way.
    const back = await alice.client.compareWorkflowRuns(wf.id, good.id, bad.id);
    expect(back.steps.map((s) => s.name)).toEqual(["a", "old", "b", "c"]);
    expect(back.steps[0]!.code_diff).toMatch(
      new RegExp(`^--- a in ${bad.id} \\(version 2\\)\n\\+\\+\\+ a in ${good.id} \\(version 1\\)`),
    );
    expect(back.steps[0]!.differing_paths).toEqual(["$return_value.items[2].id", "exports.total"]);
    // last_success is the newest successful run other than this one.
    expect((await alice.client.compareWorkflowRuns(wf.id, bad.id)).with.id).toBe(again.id);
    expect((await alice.client.compareWorkflowRuns(wf.id, again.id)).with.id).toBe(good.id);
  });

  it("compares test runs: of the current version, and of local steps (their code as tested)", async () => {
    const ofVersion = await alice.client.testWorkflow(wf.id, { event: { body: {} } });
    const c = await alice.client.compareWorkflowRuns(wf.id, ofVersion.id);
    expect(c.run).toMatchObject({
      id: ofVersion.id,
      test: true,
      version: 2,
      code_of: "version",
      status: "success",
    });
    expect(c.steps.find((s) => s.name === "a")).toMatchObject({ code_changed: false, differing_paths: [] });

    const local = step(`return { items: [{ id: 1 }], label: "local" };`);
    const tested = await alice.client.testWorkflow(wf.id, {
      event: { body: {} },
      steps: [{ name: "a", code: local }],
    });
    // The code it ran is kept for the comparison, never answered.
    expect(Object.keys(tested.trigger)).toEqual(["type"]);
    expect(Object.keys((await alice.client.getWorkflowRun(wf.id, tested.id)).trigger)).toEqual(["type"]);
    const listed = (await alice.client.listWorkflowRuns(wf.id, { test: true })).data.find(
      (r) => r.id === tested.id,
    )!;
    expect(Object.keys(listed.trigger)).toEqual(["type"]);

    const vsGood = await alice.client.compareWorkflowRuns(wf.id, tested.id, good.id);
    expect(vsGood.run).toMatchObject({ test: true, version: null, code_of: "steps" });
    const a = vsGood.steps.find((s) => s.name === "a")!;
    expect(a.code_diff).toContain(`+++ a in ${tested.id} (local steps)\n`);
    expect(a.code_diff).toContain(`+${local}\n`);
    expect(a.differing_paths).toEqual([
      "$return_value.items[1]",
      "$return_value.items[2]",
      "$return_value.label",
      "exports.total",
      "exports.same",
    ]);
    // A test run can be the one compared with, too.
    const reverse = await alice.client.compareWorkflowRuns(wf.id, good.id, tested.id);
    expect(reverse.with).toMatchObject({ id: tested.id, code_of: "steps" });
    expect(reverse.steps.map((s) => s.name)).toEqual(["a", "old", "b"]);
  });

  it("lists at most 100 differing paths per step, and says more differ", async () => {
    const many = await alice.client.createWorkflow({
      name: "many",
      steps: [
        {
          name: "a",
          code: step(`return Array.from({ length: 150 }, (_, i) => i * (steps.trigger.event.body.k || 1));`),
        },
      ],
    });
    const one = await runOf(many, { k: 1 });
    const two = await runOf(many, { k: 2 });
    const [a] = (await alice.client.compareWorkflowRuns(many.id, two.id, one.id)).steps;
    expect(a!.differing_paths).toHaveLength(100);
    expect(a!.differing_paths![0]).toBe("$return_value[1]");
    expect(a!.paths_truncated).toBe(true);
  });

  it("is 404 for another user's workflow or run, a run not found or no other good run; 400 for a bad `with`", async () => {
    const c = alice.client;
    await expectApiError(bob.client.compareWorkflowRuns(wf.id, bad.id), 404, "not_found");
    await expectApiError(bob.client.compareWorkflowRuns(wf.id, bad.id, good.id), 404, "not_found");
    const theirs = await bob.client.createWorkflow({
      name: "bob's",
      steps: [{ name: "a", code: step(`return 1;`) }],
    });
    const bobsRun = await runOf(theirs, {}, bob);
    // Runs are found under their own workflow only: alice's run under bob's workflow, or bob's under alice's, are not found.
    await expectApiError(bob.client.compareWorkflowRuns(theirs.id, bad.id, bobsRun.id), 404, "not_found");
    await expectApiError(c.compareWorkflowRuns(wf.id, bad.id, bobsRun.id), 404, "not_found");
    await expectApiError(
      c.compareWorkflowRuns(wf.id, "r_0017966000000000000000abcdef", good.id),
      404,
      "not_found",
    );
    await expectApiError(
      c.compareWorkflowRuns(wf.id, bad.id, "r_0017966000000000000000abcdef"),
      404,
      "not_found",
    );
    await expectApiError(c.compareWorkflowRuns("p_nope", bad.id), 404, "not_found");

    const lonely = await c.createWorkflow({
      name: "lonely",
      steps: [{ name: "a", code: step(`return 1;`) }],
    });
    const only = await runOf(lonely, {});
    const none = await expectApiError(c.compareWorkflowRuns(lonely.id, only.id), 404, "not_found");
    expect(none.message).toBe(
      `no successful run of workflow ${lonely.id} other than ${only.id} to compare it with`,
    );

    const url = (q: string) => `${srv.baseUrl}/workflows/${wf.id}/runs/${bad.id}/compare${q}`;
    const missing = await rawRequest(url(""), { key: alice.key });
    expect(missing).toMatchObject({ status: 400, body: { code: "validation_failed" } });
    expect((missing.body as { details: Array<{ path: string }> }).details[0]!.path).toBe("query.with");
    expect(await rawRequest(url("?with="), { key: alice.key })).toMatchObject({ status: 400 });
    expect(await rawRequest(url("?with=yesterday"), { key: alice.key })).toMatchObject({
      status: 400,
      body: { code: "bad_request", error: 'with: a run\'s id (r_...) or last_success, not "yesterday"' },
    });
    expect(await rawRequest(url("?with=last_success"))).toMatchObject({ status: 401 });
  });
});
