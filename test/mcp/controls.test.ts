/**
 * Execution controls for an agent: create_workflow and update_workflow with retry, concurrency
 * and throttle (REST's ranges in the input schema, a partial update as PUT makes it), and
 * cancel_run on a delayed run, driven by the SDK's own client over `/mcp` in both protocol
 * revisions and over `headwater mcp`. Each answer is checked against what REST then holds.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run, Workflow } from "../../shared/resources/index.js";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { call, connect, refused, type Connected, type Era, type Via } from "./helpers.js";

const WAIT = `export default defineComponent({ async run({ $ }) { return $.flow.delay(60000); } });`;
const NOOP = `export default defineComponent({ async run() { return 1; } });`;

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.stop();
});

/** Posts to the workflow's endpoint and waits for its new run to be `delayed`. */
async function delayedRun(u: TestUser, wf: { id: string; endpoint_url: string }): Promise<Run> {
  const before = new Set((await u.client.listWorkflowRuns(wf.id, { limit: 100 })).data.map((r) => r.id));
  const res = await fetch(wf.endpoint_url, {
    method: "POST",
    body: "{}",
    headers: { "content-type": "application/json" },
  });
  expect(res.status).toBe(200);
  for (let i = 0; i < 300; i++) {
    const run = (await u.client.listWorkflowRuns(wf.id, { limit: 100 })).data.find(
      (r) => !before.has(r.id) && r.status === "delayed",
    );
    if (run) return run;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("the run was not delayed");
}

interface JsonSchema {
  type?: string;
  minimum?: number;
  maximum?: number;
  description?: string;
  properties?: Record<string, JsonSchema>;
}

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

  it("the workflow tools' schemas hold REST's ranges of the controls", async () => {
    const { tools } = await c.listTools();
    for (const name of ["create_workflow", "update_workflow"]) {
      const props = (tools.find((t) => t.name === name)!.inputSchema as JsonSchema).properties!;
      expect(props.concurrency, name).toMatchObject({ type: "integer", minimum: 1, maximum: 100 });
      expect(props.retry!.properties!.max_attempts, name).toMatchObject({ minimum: 1, maximum: 10 });
      expect(props.retry!.properties!.initial_delay_seconds, name).toMatchObject({
        minimum: 1,
        maximum: 3600,
      });
      expect(props.retry!.properties!.max_delay_seconds, name).toMatchObject({ minimum: 1, maximum: 86400 });
      expect(JSON.stringify(props.throttle), name).toMatch(/"maximum":10000/);
      expect(props.retry!.description, name).toMatch(/left out keep their value/);
    }
  });

  it("create_workflow sets the controls; update_workflow changes only those named", async () => {
    const name = uniqueKey("controlled");
    const { workflow } = await call<{ workflow: Workflow }>(c, "create_workflow", {
      name,
      steps: [{ name: "noop", code: NOOP }],
      retry: { max_attempts: 4, initial_delay_seconds: 30 },
      concurrency: 3,
      throttle: { limit: 20, period_seconds: 60 },
    });
    expect(workflow).toMatchObject({
      retry: { max_attempts: 4, initial_delay_seconds: 30, max_delay_seconds: 3600 },
      concurrency: 3,
      throttle: { limit: 20, period_seconds: 60 },
    });
    expect(workflow).toEqual(await u.client.getWorkflow(workflow.id));

    // By name; another retry field alone keeps the ones set; null removes the throttle.
    const changed = await call<{ workflow: Workflow }>(c, "update_workflow", {
      id: name,
      retry: { max_delay_seconds: 600 },
      throttle: null,
    });
    expect(changed.workflow).toMatchObject({
      id: workflow.id,
      name,
      retry: { max_attempts: 4, initial_delay_seconds: 30, max_delay_seconds: 600 },
      concurrency: 3,
      throttle: null,
    });
    expect(changed.workflow.steps.map((st) => st.name)).toEqual(["noop"]);
    expect(changed.workflow).toEqual(await u.client.getWorkflow(workflow.id));

    const more = await call<{ workflow: Workflow }>(c, "update_workflow", {
      id: workflow.id,
      concurrency: 100,
      active: false,
    });
    expect(more.workflow).toMatchObject({ concurrency: 100, active: false, retry: { max_attempts: 4 } });
  });

  it("refuses values out of range, a source, and another user's workflow; nothing changes", async () => {
    const { workflow } = await call<{ workflow: Workflow }>(c, "create_workflow", {
      name: uniqueKey("ranges"),
      steps: [{ code: NOOP }],
    });
    const before = await u.client.getWorkflow(workflow.id);
    expect((await refused(c, "update_workflow", { id: workflow.id, concurrency: 101 })).error).toMatch(
      /concurrency/,
    );
    expect(
      (await refused(c, "update_workflow", { id: workflow.id, retry: { max_attempts: 11 } })).error,
    ).toMatch(/max_attempts/);
    expect(
      (await refused(c, "update_workflow", { id: workflow.id, throttle: { limit: 0, period_seconds: 60 } }))
        .error,
    ).toMatch(/limit/);
    expect(
      (await refused(c, "create_workflow", { name: "x", steps: [{ code: NOOP }], concurrency: 0 })).error,
    ).toMatch(/concurrency/);
    expect(await u.client.getWorkflow(workflow.id)).toEqual(before);

    const other = await s.newUser();
    const theirs = await other.client.createWorkflow({ name: uniqueKey("theirs"), steps: [{ code: NOOP }] });
    expect((await refused(c, "update_workflow", { id: theirs.id, concurrency: 5 })).code).toBe("not_found");
    expect((await refused(c, "update_workflow", { id: theirs.name, concurrency: 5 })).code).toBe("not_found");
    expect((await other.client.getWorkflow(theirs.id)).concurrency).toBe(1);
    expect((await refused(c, "update_workflow", { id: "dc_abc", concurrency: 5 })).code).toBe("bad_request");
  });

  it("cancel_run cancels a delayed run; a second cancel and another user's run are refused", async () => {
    const wf = await u.client.createWorkflow({
      name: uniqueKey("waits"),
      steps: [
        { name: "wait", code: WAIT },
        { name: "after", code: NOOP },
      ],
    });
    const run = await delayedRun(u, wf);
    const got = await call<{ run: Run }>(c, "get_run", { id: wf.id, run_id: run.id });
    expect(got.run).toMatchObject({ status: "delayed", resume_at_ms: expect.any(Number) });

    const { run: cancelled } = await call<{ run: Run }>(c, "cancel_run", { id: wf.name, run_id: run.id });
    expect(cancelled).toMatchObject({ id: run.id, status: "cancelled" });
    expect((await u.client.getWorkflowRun(wf.id, run.id)).status).toBe("cancelled");

    const again = await refused(c, "cancel_run", { id: wf.id, run_id: run.id });
    expect(again).toMatchObject({ code: "run_not_cancellable", status: 409 });

    const other = await s.newUser();
    const theirs = await other.client.createWorkflow({
      name: uniqueKey("theirs"),
      steps: [{ name: "wait", code: WAIT }],
    });
    const theirRun = await delayedRun(other, theirs);
    expect((await refused(c, "cancel_run", { id: theirs.id, run_id: theirRun.id })).code).toBe("not_found");
    expect((await refused(c, "cancel_run", { id: wf.id, run_id: theirRun.id })).code).toBe("not_found");
    expect((await other.client.getWorkflowRun(theirs.id, theirRun.id)).status).toBe("delayed");
  });
});
