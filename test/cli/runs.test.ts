/**
 * `runs`, `runs -f`, `runs show` and `runs rerun`: the real binary against a real server, checked
 * by what it prints and by the runs the server then holds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { eventually, flags, ndjson, oneLine, post, runCli, startCli } from "./helpers.js";

/** Logs, exports and returns; the second step throws when the request asks it to. */
const PARSE = `export default defineComponent({ async run({ steps, $ }) {
  const n = steps.trigger.event.body?.n ?? 0;
  console.log("parsing", n);
  $.export("n", n);
  return { doubled: n * 2 };
} });`;
const CHECK = `export default defineComponent({ async run({ steps }) {
  if (steps.trigger.event.body?.fail) throw new TypeError("n was " + steps.parse.n);
  console.warn("all good");
  return "checked";
} });`;

const ENDED = ["success", "error", "exited", "cancelled"];

describe("workflow runs from the command line", { timeout: 180_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let workflowId: string;
  let endpoint: string;
  let okId: string;
  let failedId: string;
  const cli = (args: string[]) => runCli([...flags(server.baseUrl, user.key), ...args]);
  const runsOf = async (id: string) => (await user.client.listWorkflowRuns(id, { limit: 100 })).data;
  /** Posts to the endpoint and waits for the run it makes to end; returns that run. */
  const runOnce = async (body: unknown): Promise<Run> => {
    const before = new Set((await runsOf(workflowId)).map((r) => r.id));
    await post(endpoint, body);
    return eventually(
      async () => (await runsOf(workflowId)).find((r) => !before.has(r.id) && ENDED.includes(r.status)),
      30_000,
      "the run to end",
    );
  };

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    const wf = await user.client.createWorkflow({
      name: "orders",
      steps: [
        { name: "parse", code: PARSE },
        { name: "check", code: CHECK },
      ],
    });
    workflowId = wf.id;
    endpoint = wf.endpoint_url;
    okId = (await runOnce({ n: 2 })).id;
    failedId = (await runOnce({ n: 3, fail: true })).id;
    // A second workflow, so that finding a run by its id alone has more than one to look in.
    await user.client.createWorkflow({
      name: "bystander",
      steps: [{ name: "noop", code: "export default defineComponent({ async run() {} })" }],
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("runs <workflow> prints a table, newest first; --status and --limit narrow it; --json is one run a line", async () => {
    const r = await cli(["runs", "orders"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+TRIGGER\s+STARTED\s+DURATION\s+STEPS\s+RESULT$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/)[0])).toEqual([failedId, okId]);
    expect(lines[1]).toMatch(
      new RegExp(`^${failedId}\\s+error\\s+HTTP\\s+.*\\s1/2\\s+step check: .*n was 3`),
    );
    expect(lines[2]).toMatch(new RegExp(`^${okId}\\s+success\\s+HTTP\\s+.*\\d+ ms\\s+2/2`));

    const json = await cli(["runs", workflowId, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const rows = ndjson(json.stdout) as Run[];
    expect(rows.map((x) => x.id)).toEqual([failedId, okId]);
    expect(rows[0]).toMatchObject({
      workflow_id: workflowId,
      status: "error",
      trigger: { type: "HTTP" },
      error: { step: "check" },
    });

    const ok = await cli(["runs", "orders", "--status", "success", "--json"]);
    expect((ndjson(ok.stdout) as Run[]).map((x) => x.id)).toEqual([okId]);
    const one = await cli(["runs", "orders", "--limit", "1", "--json"]);
    expect((ndjson(one.stdout) as Run[]).map((x) => x.id)).toEqual([failedId]);

    const none = await cli(["runs", "orders", "--status", "cancelled"]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe("");
    expect(oneLine(none.stderr)).toBe(`no runs with status cancelled of orders (${workflowId}) yet`);
  });

  it("runs show <run> finds the run's workflow by itself and prints every step: logs, values, error and stack", async () => {
    const r = await cli(["runs", "show", failedId]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toMatch(new RegExp(`^run\\s+${failedId}$`, "m"));
    expect(out).toMatch(new RegExp(`^workflow\\s+orders \\(${workflowId}\\)$`, "m"));
    expect(out).toMatch(/^status\s+error$/m);
    expect(out).toMatch(/^trigger\s+HTTP\b/m);
    expect(out).toMatch(/^error\s+\S+ in step check: .*n was 3/m);
    expect(out).toMatch(/^event\s+POST \/ \{"n":3,"fail":true\}$/m);
    expect(out).toMatch(/^ {2}1\. {2}parse {2}success {2}\d+ ms$/m);
    expect(out).toMatch(/^ +\[log\] parsing 3$/m);
    expect(out).toMatch(/^ +returned \{"doubled":6\}$/m);
    expect(out).toMatch(/^ +export n = 3$/m);
    expect(out).toMatch(/^ {2}2\. {2}check {2}error/m);
    expect(out).toMatch(/^ +TypeError: n was 3$/m);
    expect(out).toMatch(/^ +at .*component/m);
    // The component's own frames only: never a path of the server's files.
    expect(out).not.toMatch(/server\/runtime|node:internal/);

    const same = await cli(["runs", "show", failedId, "--workflow", "orders", "--json"]);
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout)).toEqual(await user.client.getWorkflowRun(workflowId, failedId));
  });

  it("runs show: an unknown run, a run of another workflow, a bad id and an unknown workflow are one clear line", async () => {
    const missing = await cli(["runs", "show", "r_doesnotexist"]);
    expect(missing.code).toBe(1);
    expect(oneLine(missing.stderr)).toMatch(/no run r_doesnotexist in any of your 2 workflows/);

    const elsewhere = await cli(["runs", "show", okId, "--workflow", "bystander"]);
    expect(elsewhere.code).toBe(1);
    expect(oneLine(elsewhere.stderr)).toMatch(new RegExp(`no run ${okId} in workflow bystander`));

    const bad = await cli(["runs", "show", "12345"]);
    expect(bad.code).toBe(2);
    expect(oneLine(bad.stderr)).toMatch(/12345 is not a run id/);

    const noWf = await cli(["runs", "no-such-workflow"]);
    expect(noWf.code).toBe(1);
    expect(oneLine(noWf.stderr)).toMatch(/no workflow named no-such-workflow/);
  });

  it("runs rerun --from reuses the earlier steps, shows the new run, and exits 1 when it fails again", async () => {
    const r = await cli(["runs", "rerun", failedId, "--from", "check"]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/the re-run failed: step check: .*n was 3/);
    const newId = new RegExp(`^re-ran ${failedId} from step check as (r_[A-Za-z0-9]+)$`, "m").exec(
      r.stdout,
    )?.[1];
    expect(newId, r.stdout).toBeDefined();
    expect(r.stdout).toMatch(new RegExp(`^trigger\\s+RERUN of ${failedId} from check$`, "m"));
    expect(r.stdout).toMatch(/^ {2}1\. {2}parse {2}reused/m);
    const stored = await user.client.getWorkflowRun(workflowId, newId!);
    expect(stored).toMatchObject({ status: "error", trigger: { type: "RERUN", rerun_of: failedId } });
    expect(stored.steps.map((s) => s.status)).toEqual(["reused", "error"]);
  });

  it("runs rerun --json prints the new run; an unknown --from step is refused, naming the steps", async () => {
    const r = await cli(["runs", "rerun", okId, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const run = JSON.parse(r.stdout) as Run;
    expect(run).toMatchObject({
      status: "success",
      workflow_id: workflowId,
      trigger: { type: "RERUN", rerun_of: okId },
    });
    expect(run.id).not.toBe(okId);
    expect(run.steps.map((s) => s.status)).toEqual(["success", "success"]);

    const before = (await runsOf(workflowId)).length;
    const bad = await cli(["runs", "rerun", okId, "--from", "nope"]);
    expect(bad.code).toBe(1);
    expect(oneLine(bad.stderr)).toMatch(/HTTP 400.*the steps of orders are parse, check/);
    expect((await runsOf(workflowId)).length).toBe(before);
  });

  it("runs -f prints the newest runs, then each new run's changes once, in order; SIGINT exits 0", async () => {
    const existing = await runsOf(workflowId);
    const newest = existing[0]!;
    const follower = startCli([
      ...flags(server.baseUrl, user.key),
      "runs",
      "orders",
      "-f",
      "--limit",
      "1",
      "--json",
    ]);
    const seen = () => ndjson(follower.stdout()) as Run[];
    await eventually(() => (seen().length >= 1 ? true : undefined), 30_000, "the newest run");
    expect(seen()[0]!.id).toBe(newest.id);
    // The stream is open once a live run shows: post until one does.
    const live = await eventually(
      async () => {
        await post(endpoint, { n: 7 });
        return seen().find((r) => r.id !== newest.id && r.status === "success");
      },
      30_000,
      "a live run to end",
    );
    follower.kill("SIGINT");
    const r = await follower.done(20_000);
    expect(r.code, r.stderr).toBe(0);
    const mine = seen()
      .filter((x) => x.id === live.id)
      .map((x) => x.status);
    expect(mine.at(-1)).toBe("success");
    expect(new Set(mine).size).toBe(mine.length);
    // After the one run asked for, only runs that started later.
    const old = new Set(existing.map((x) => x.id));
    expect(
      seen()
        .slice(1)
        .filter((x) => old.has(x.id)),
    ).toEqual([]);
  });

  it("runs -f shows a run that ran while the server was down, once, after reconnecting", async () => {
    const follower = startCli([
      ...flags(server.baseUrl, user.key),
      "runs",
      "orders",
      "-f",
      "--limit",
      "1",
      "--json",
      "--status",
      "success",
    ]);
    const seen = () => ndjson(follower.stdout()) as Run[];
    const before = await eventually(
      () => (seen().length >= 1 ? seen()[0] : undefined),
      30_000,
      "the newest run",
    );
    await eventually(
      async () => {
        await post(endpoint, { n: 8 });
        return seen().some((x) => x.id !== before.id) ? true : undefined;
      },
      30_000,
      "the follower to be live",
    );
    await server.restart();
    const during = await runOnce({ n: 9 });
    await follower.waitFor(/reconnected/, "stderr", 60_000);
    await eventually(
      () => (seen().some((x) => x.id === during.id) ? true : undefined),
      30_000,
      "the run made while disconnected",
    );
    follower.kill("SIGTERM");
    const r = await follower.done(20_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/connection lost/);
    expect(
      seen()
        .filter((x) => x.id === during.id)
        .map((x) => x.status),
    ).toEqual(["success"]);
    expect(seen().every((x) => x.status === "success")).toBe(true);
  });
});
