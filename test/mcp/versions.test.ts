/**
 * Building workflows for an agent: get_draft, update_draft and deploy_draft; list_versions,
 * get_version and restore_version, driven by the SDK's own client over `/mcp` in both protocol
 * revisions and over `headwater mcp`. Each answer is checked against what REST then holds; a
 * stale base_version is refused with the current version named and changes nothing; another
 * user's workflow is as unknown as a missing one.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run, RunComparison, Workflow, WorkflowDraft, WorkflowVersion, WorkflowVersionInfo } from "../../shared/resources/index.js";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { until } from "../workflows/helpers.js";
import { call, connect, refused, type Connected, type Era, type Via } from "./helpers.js";

const step = (n: number) => `export default defineComponent({ async run() { return ${n}; } });`;
const BROKEN = `export default defineComponent({ async run() { return ( } });`;

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.stop();
});

const combos: Array<[Via, Era]> = [
  ["http", "2025-11-25"],
  ["http", "2026-07-28"],
  ["stdio", "2026-07-28"],
];

describe.each(combos)("over %s, protocol %s", (via, era) => {
  let u: TestUser;
  let conn: Connected;
  let c: Client;
  beforeAll(async () => {
    u = await s.newUser();
    conn = await connect(via, s, u.key, era);
    c = conn.client;
  });
  afterAll(async () => {
    await conn?.close();
  });

  it("a draft is changed without touching what runs, refused while it has problems or is stale, then deployed", async () => {
    const wf = await u.client.createWorkflow({ name: uniqueKey("drafted"), steps: [{ name: "one", code: step(1) }] });
    expect((await refused(c, "get_draft", { id: wf.id })).code).toBe("no_draft");

    // By name; code that does not parse is taken and listed.
    const started = await call<{ id: string; draft: WorkflowDraft }>(c, "update_draft", {
      id: wf.name,
      steps: [
        { name: "one", code: step(1) },
        { name: "two", code: BROKEN },
      ],
      concurrency: 2,
    });
    expect(started.id).toBe(wf.id);
    expect(started.draft).toMatchObject({ base_version: 1, workflow: { concurrency: 2 } });
    expect(started.draft.problems).toEqual([expect.objectContaining({ step: "two", line: expect.any(Number) })]);
    expect((await call<{ draft: WorkflowDraft }>(c, "get_draft", { id: wf.id })).draft).toEqual(
      await u.client.getWorkflowDraft(wf.id),
    );
    expect(await u.client.getWorkflow(wf.id)).toEqual(wf);

    const invalid = await refused(c, "deploy_draft", { id: wf.id });
    expect(invalid).toMatchObject({ code: "invalid_step", status: 400 });
    expect(JSON.stringify(invalid)).toMatch(/two/);

    await call(c, "update_draft", { id: wf.id, steps: [{ name: "one", code: step(1) }, { name: "two", code: step(2) }] });
    // Someone changes the workflow meanwhile: a deploy based on version 1 is refused.
    await u.client.updateWorkflow(wf.id, { name: `${wf.name}-renamed` });
    const stale = await refused(c, "deploy_draft", { id: wf.id, base_version: 1, message: "two steps" });
    expect(stale).toMatchObject({ code: "version_conflict", status: 409 });
    expect(JSON.stringify(stale)).toMatch(/version 2/);
    expect((await u.client.getWorkflow(wf.id)).version).toBe(2);
    expect((await u.client.getWorkflowDraft(wf.id)).workflow.steps).toHaveLength(2);

    const { workflow } = await call<{ workflow: Workflow }>(c, "deploy_draft", {
      id: wf.id,
      base_version: 2,
      message: "two steps",
    });
    expect(workflow).toMatchObject({ version: 3, concurrency: 2 });
    expect(workflow.steps.map((st) => st.name)).toEqual(["one", "two"]);
    expect(workflow).toEqual(await u.client.getWorkflow(wf.id));
    expect((await refused(c, "get_draft", { id: wf.id })).code).toBe("no_draft");
    expect((await refused(c, "deploy_draft", { id: wf.id })).code).toBe("no_draft");
  });

  it("lists and reads versions, and restores one as a new version (a stale base_version changes nothing)", async () => {
    const wf = await u.client.createWorkflow({ name: uniqueKey("history"), steps: [{ name: "s", code: step(1) }] });
    await u.client.updateWorkflow(wf.id, { steps: [{ name: "s", code: step(2) }], message: "returns 2" });

    const listed = await call<{ id: string; versions: WorkflowVersionInfo[]; total_count: number }>(c, "list_versions", {
      id: wf.name,
    });
    expect(listed.versions.map((v) => [v.version, v.origin, v.message])).toEqual([
      [2, "update", "returns 2"],
      [1, "create", null],
    ]);
    expect(listed.total_count).toBe(2);
    const paged = await call<{ versions: WorkflowVersionInfo[]; next_cursor: string | null }>(c, "list_versions", {
      id: wf.id,
      limit: 1,
    });
    expect(paged.versions.map((v) => v.version)).toEqual([2]);
    const rest = await call<{ versions: WorkflowVersionInfo[] }>(c, "list_versions", { id: wf.id, cursor: paged.next_cursor });
    expect(rest.versions.map((v) => v.version)).toEqual([1]);

    const first = await call<{ version: WorkflowVersion }>(c, "get_version", { id: wf.id, version: 1 });
    expect(first.version).toEqual(await u.client.getWorkflowVersion(wf.id, 1));
    expect(first.version.workflow.steps[0]!.code).toBe(step(1));
    expect((await refused(c, "get_version", { id: wf.id, version: 9 })).code).toBe("not_found");

    const stale = await refused(c, "restore_version", { id: wf.id, version: 1, base_version: 1 });
    expect(stale).toMatchObject({ code: "version_conflict", status: 409 });
    expect(JSON.stringify(stale)).toMatch(/version 2/);
    expect((await u.client.getWorkflow(wf.id)).version).toBe(2);

    const { workflow } = await call<{ workflow: Workflow }>(c, "restore_version", {
      id: wf.id,
      version: 1,
      base_version: 2,
      message: "back to 1",
    });
    expect(workflow).toMatchObject({ version: 3 });
    expect(workflow.steps[0]!.code).toBe(step(1));
    expect(workflow).toEqual(await u.client.getWorkflow(wf.id));
    expect((await u.client.listWorkflowVersions(wf.id)).data[0]).toMatchObject({
      version: 3,
      origin: "restore",
      restored_from: 1,
      message: "back to 1",
    });
  });

  it("tests the draft on an event: the run recorded as a test, its emits on their steps, nothing stored", async () => {
    const wf = await u.client.createWorkflow({ name: uniqueKey("tested"), active: false, steps: [{ name: "one", code: step(1) }] });
    await call(c, "update_draft", {
      id: wf.id,
      steps: [{ name: "one", code: `export default defineComponent({ async run({ steps, $ }) { $.send.emit({ n: steps.trigger.event.n }); return steps.trigger.event.n + 1; } });` }],
    });
    const { run } = await call<{ run: Run }>(c, "test_workflow", { id: wf.name, event: { n: 41 } });
    expect(run).toMatchObject({ test: true, status: "success", steps: [{ return_value: 42, emits: [{ channel: "default", data: { raw_event: { n: 41 } } }] }] });
    expect((await u.client.listWorkflowEvents(wf.id)).page_info.total_count).toBe(0);
    expect((await u.client.listWorkflowRuns(wf.id, { test: true })).data.map((r) => r.id)).toEqual([run.id]);
  });

  it("compares a test of the draft with the last good run: the step's code diff, status and values", async () => {
    const wf = await u.client.createWorkflow({
      name: uniqueKey("compared"),
      steps: [{ name: "one", code: `export default defineComponent({ async run() { return { n: 1, tag: "a" }; } });` }],
    });
    const good = await u.client.testWorkflow(wf.id, { event: {} });
    // A production run: the last good one.
    const res = await fetch(wf.endpoint_url, { method: "POST", body: "{}", headers: { "content-type": "application/json" } });
    const runId = res.headers.get("x-headwater-run-id")!;
    await until("the run", async () => ((await u.client.getWorkflowRun(wf.id, runId)).status === "success" ? true : undefined));
    await u.client.updateWorkflowDraft(wf.id, {
      steps: [{ name: "one", code: `export default defineComponent({ async run() { return { n: 2, tag: "a" }; } });` }],
    });
    const tested = await u.client.testWorkflow(wf.id, { event: {} });

    const { id, comparison } = await call<{ id: string; comparison: RunComparison }>(c, "compare_runs", { id: wf.name, run_id: tested.id });
    expect(id).toBe(wf.id);
    expect(comparison).toEqual(await u.client.compareWorkflowRuns(wf.id, tested.id, "last_success"));
    expect(comparison.with.id).toBe(runId);
    expect(comparison.run).toMatchObject({ test: true, code_of: "draft", version: null });
    expect(comparison.steps).toMatchObject([{ name: "one", status_changed: false, code_changed: true, differing_paths: ["$return_value.n"] }]);
    expect(comparison.steps[0]!.code_diff).toMatch(/^-.*n: 1.*\n\+.*n: 2/m);
    // Named by id: the test of the deployed version, the same code.
    const same = await call<{ comparison: RunComparison }>(c, "compare_runs", { id: wf.id, run_id: runId, with: good.id });
    expect(same.comparison.steps[0]).toMatchObject({ code_changed: false, code_diff: null, differing_paths: [] });
    expect((await refused(c, "compare_runs", { id: wf.id, run_id: runId, with: "r_0017966000000000000000abcdef" })).code).toBe("not_found");
  });

  it("another user's workflow is not found by any of them, and nothing of it changes", async () => {
    const other = await s.newUser();
    const theirs = await other.client.createWorkflow({ name: uniqueKey("theirs"), steps: [{ name: "s", code: step(1) }] });
    await other.client.updateWorkflowDraft(theirs.id, { concurrency: 5 });
    const calls: Array<[string, Record<string, unknown>]> = [
      ["get_draft", {}],
      ["update_draft", { concurrency: 3 }],
      ["deploy_draft", {}],
      ["list_versions", {}],
      ["get_version", { version: 1 }],
      ["restore_version", { version: 1 }],
      ["test_workflow", { event: {} }],
      ["compare_runs", { run_id: "r_0017966000000000000000abcdef" }],
    ];
    for (const [name, args] of calls) {
      expect((await refused(c, name, { id: theirs.id, ...args })).code, name).toBe("not_found");
      expect((await refused(c, name, { id: theirs.name, ...args })).code, name).toBe("not_found");
    }
    expect(await other.client.getWorkflow(theirs.id)).toEqual(theirs);
    expect((await other.client.getWorkflowDraft(theirs.id)).workflow.concurrency).toBe(5);
  });
});
