/**
 * list_runs, get_run and rerun, driven by the SDK's own client over `/mcp` in both protocol
 * revisions (and over `headwater mcp` in one): what an agent reads of a workflow's runs, how it
 * re-runs one from a step, and that another user's workflow or run is as unknown as a missing one.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { call, connect, echoSource, refused, type Connected, type Era, type Via } from "./helpers.js";

const PARSE = `export default defineComponent({ async run({ steps, $ }) {
  const n = steps.trigger.event.body?.n ?? 0;
  console.log("parsing", n);
  $.export("n", n);
  return { doubled: n * 2 };
} });`;
const CHECK = `export default defineComponent({ async run({ steps }) {
  if (steps.trigger.event.body?.fail) throw new TypeError("n was " + steps.parse.n);
  return "checked";
} });`;
const ENDED = ["success", "error", "exited", "cancelled"];

interface ListedStep {
  name: string;
  status: string;
  duration_ms: number | null;
  log_lines: number;
  error: { name: string; message: string } | null;
  logs?: unknown;
  return_value?: unknown;
}
type Listed = Omit<Run, "steps"> & { steps: ListedStep[] };
interface RunList {
  id: string;
  runs: Listed[];
  next_cursor: string | null;
  total_count: number;
}

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await s?.stop();
});

/** A workflow of two steps, run once with success and once failing; newest run first. */
async function workflowWithRuns(u: TestUser, name: string) {
  const wf = await u.client.createWorkflow({
    name,
    steps: [
      { name: "parse", code: PARSE },
      { name: "check", code: CHECK },
    ],
  });
  const ids: string[] = [];
  for (const body of [{ n: 2 }, { n: 3, fail: true }]) {
    const before = new Set((await u.client.listWorkflowRuns(wf.id, { limit: 100 })).data.map((r) => r.id));
    const res = await fetch(wf.endpoint_url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    for (let i = 0; ; i++) {
      const made = (await u.client.listWorkflowRuns(wf.id, { limit: 100 })).data.find(
        (r) => !before.has(r.id) && ENDED.includes(r.status),
      );
      if (made) {
        ids.push(made.id);
        break;
      }
      if (i > 300) throw new Error("the run did not end");
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return { wf, okId: ids[0]!, failedId: ids[1]! };
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
  let wf: { id: string; name: string };
  let okId: string;
  let failedId: string;
  beforeAll(async () => {
    u = await s.newUser();
    ({ wf, okId, failedId } = await workflowWithRuns(u, uniqueKey("orders")));
    conn = await connect(via, s, u.key, era);
    c = conn.client;
  });
  afterAll(async () => {
    await conn?.close();
  });

  it("list_runs: newest first, by name or id, compact steps, status filter and cursor", async () => {
    const all = await call<RunList>(c, "list_runs", { id: wf.name });
    expect(all).toMatchObject({ id: wf.id, total_count: 2, next_cursor: null });
    expect(all.runs.map((r) => r.id)).toEqual([failedId, okId]);
    const [failed, ok] = all.runs;
    expect(failed).toMatchObject({ status: "error", trigger: { type: "HTTP" }, error: { step: "check" } });
    expect(failed!.steps.map((st) => [st.name, st.status])).toEqual([
      ["parse", "success"],
      ["check", "error"],
    ]);
    // A listed step says how many log lines it has and why it failed, but carries no logs or values.
    expect(failed!.steps[0]).toMatchObject({ log_lines: 1, error: null });
    expect(failed!.steps[1]!.error).toEqual({ name: "TypeError", message: "n was 3" });
    for (const st of failed!.steps) expect([st.logs, st.return_value]).toEqual([undefined, undefined]);
    expect(ok!.status).toBe("success");

    const errors = await call<RunList>(c, "list_runs", { id: wf.id, status: "error" });
    expect(errors.runs.map((r) => r.id)).toEqual([failedId]);
    const first = await call<RunList>(c, "list_runs", { id: wf.id, limit: 1 });
    expect(first.runs.map((r) => r.id)).toEqual([failedId]);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await call<RunList>(c, "list_runs", { id: wf.id, limit: 1, cursor: first.next_cursor });
    expect(second.runs.map((r) => r.id)).toEqual([okId]);
  });

  it("get_run: the run whole, with each step's logs, return value, exports and error stack", async () => {
    const { run } = await call<{ run: Run }>(c, "get_run", { id: wf.id, run_id: failedId });
    expect(run).toEqual(await u.client.getWorkflowRun(wf.id, failedId));
    expect(run.steps[0]).toMatchObject({
      name: "parse",
      status: "success",
      return_value: { doubled: 6 },
      exports: { n: 3 },
    });
    expect(run.steps[0]!.logs.map((l) => l.message)).toEqual(["parsing 3"]);
    expect(run.steps[1]!.error).toMatchObject({
      name: "TypeError",
      message: "n was 3",
      stack: expect.stringContaining("n was 3"),
    });
    // The component's own frames only: never a path of the server's files.
    expect(run.steps[1]!.error!.stack).not.toMatch(/server\/runtime|node:internal/);
    expect(run.event).toMatchObject({ method: "POST", body: { n: 3, fail: true } });
  });

  it("rerun: a new run of the same event; from_step reuses the steps before it", async () => {
    const again = await call<{ run: Run }>(c, "rerun", { id: wf.name, run_id: failedId, from_step: "check" });
    expect(again.run.id).not.toBe(failedId);
    expect(again.run).toMatchObject({ status: "error", trigger: { type: "RERUN", rerun_of: failedId } });
    expect(again.run.steps.map((st) => st.status)).toEqual(["reused", "error"]);
    expect(again.run.steps[0]!.return_value).toEqual({ doubled: 6 });

    const whole = await call<{ run: Run }>(c, "rerun", { id: wf.id, run_id: okId });
    expect(whole.run).toMatchObject({ status: "success", trigger: { type: "RERUN", rerun_of: okId } });
    expect(whole.run.steps.map((st) => st.status)).toEqual(["success", "success"]);
    expect((await call<RunList>(c, "list_runs", { id: wf.id })).runs[0]!.id).toBe(whole.run.id);
  });

  it("refuses an unknown step, a run of another workflow, a source, and a bad run id", async () => {
    const total = (await u.client.listWorkflowRuns(wf.id)).page_info.total_count;
    expect((await refused(c, "rerun", { id: wf.id, run_id: okId, from_step: "nope" })).status).toBe(400);
    expect((await u.client.listWorkflowRuns(wf.id)).page_info.total_count).toBe(total);

    const other = await u.client.createWorkflow({
      name: uniqueKey("other"),
      steps: [{ code: "export default defineComponent({ async run() {} })" }],
    });
    expect((await refused(c, "get_run", { id: other.id, run_id: okId })).code).toBe("not_found");
    expect((await refused(c, "rerun", { id: other.id, run_id: okId })).code).toBe("not_found");

    const src = await u.client.createSource({
      component_code: echoSource(uniqueKey("not-a-workflow")),
      name: uniqueKey("src"),
    });
    expect((await refused(c, "list_runs", { id: src.id })).code).toBe("bad_request");
    expect((await refused(c, "list_runs", { id: "no-such-workflow" })).code).toBe("not_found");
    expect((await refused(c, "get_run", { id: wf.id, run_id: "12345" })).error).toMatch(/run_id/);
  });
});

describe("another user's runs", () => {
  it("are not found, through every runs tool, by id or name", async () => {
    const [alice, bob] = await Promise.all([s.newUser(), s.newUser()]);
    const theirs = await workflowWithRuns(bob, uniqueKey("bobs"));
    const conn = await connect("http", s, alice.key, "2026-07-28");
    try {
      for (const [tool, args] of [
        ["list_runs", { id: theirs.wf.id }],
        ["list_runs", { id: theirs.wf.name }],
        ["get_run", { id: theirs.wf.id, run_id: theirs.okId }],
        ["rerun", { id: theirs.wf.id, run_id: theirs.okId }],
      ] as const) {
        const r = await refused(conn.client, tool, args);
        expect(r.code, `${tool} ${JSON.stringify(r)}`).toBe("not_found");
      }
      expect((await bob.client.listWorkflowRuns(theirs.wf.id)).page_info.total_count).toBe(2);
    } finally {
      await conn.close();
    }
  });
});
