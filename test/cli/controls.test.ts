/**
 * Execution controls from the command line: `workflows set` and `workflows show`, `runs cancel`,
 * and how `runs` and `runs show` tell a run that waits (`retrying`, `delayed`). The real binary
 * against a real server, checked by what it prints and by what the server then holds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run, Workflow } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { eventually, flags, ndjson, oneLine, post, runCli } from "./helpers.js";

/** Waits a minute at its first step: the run is `delayed` until then. */
const WAIT = `export default defineComponent({ async run({ $ }) { return $.flow.delay(60000); } });`;
const AFTER = `export default defineComponent({ async run() { return "after the wait"; } });`;
const FAIL = `export default defineComponent({ async run() { throw new Error("upstream down"); } });`;

describe("execution controls from the command line", { timeout: 180_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let waiting: Workflow;
  const cli = (args: string[], who: TestUser = user) => runCli([...flags(server.baseUrl, who.key), ...args]);
  /** Posts to the endpoint and waits for the new run to reach `status`. */
  const runUntil = async (wf: Workflow, status: string, who: TestUser = user): Promise<Run> => {
    const before = new Set((await who.client.listWorkflowRuns(wf.id, { limit: 100 })).data.map((r) => r.id));
    await post(wf.endpoint_url, { n: 1 });
    return eventually(
      async () =>
        (await who.client.listWorkflowRuns(wf.id, { limit: 100 })).data.find(
          (r) => !before.has(r.id) && r.status === status,
        ),
      30_000,
      `a run ${status}`,
    );
  };

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    waiting = await user.client.createWorkflow({
      name: "waits",
      steps: [
        { name: "wait", code: WAIT },
        { name: "after", code: AFTER },
      ],
    });
    // A second workflow: a run id alone is looked for in each.
    await user.client.createWorkflow({ name: "orders", steps: [{ name: "noop", code: AFTER }] });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("workflows set changes only the controls named and prints them; workflows show reads them back", async () => {
    const r = await cli([
      "workflows",
      "set",
      "orders",
      "--retries",
      "2",
      "--retry-delay",
      "10",
      "--concurrency",
      "4",
      "--throttle",
      "5/60",
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^updated orders \(p_[A-Za-z0-9]+\)$/m);
    expect(r.stdout).toMatch(/^retries\s+up to 2 \(3 attempts in all\)$/m);
    expect(r.stdout).toMatch(/^retry delay\s+10 s, doubled each retry, at most 3600 s \(1 h\)$/m);
    expect(r.stdout).toMatch(/^concurrency\s+4 runs at once$/m);
    expect(r.stdout).toMatch(/^throttle\s+at most 5 runs start per 60 s \(1 min\)$/m);
    const id = (await user.client.listMyWorkflows()).data.find((w) => w.name === "orders")!.id;
    expect(await user.client.getWorkflow(id)).toMatchObject({
      retry: { max_attempts: 3, initial_delay_seconds: 10, max_delay_seconds: 3600 },
      concurrency: 4,
      throttle: { limit: 5, period_seconds: 60 },
    });

    // Another retry field alone keeps the ones set before; --no-throttle removes the throttle.
    const more = await cli(["workflows", "set", id, "--retry-max-delay", "120", "--no-throttle", "--json"]);
    expect(more.code, more.stderr).toBe(0);
    const got = JSON.parse(more.stdout) as Workflow;
    expect(got).toMatchObject({
      id,
      retry: { max_attempts: 3, initial_delay_seconds: 10, max_delay_seconds: 120 },
      concurrency: 4,
      throttle: null,
    });

    const shown = await cli(["workflows", "show", "orders"]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^workflow\\s+orders \\(${id}\\)$`, "m"));
    expect(shown.stdout).toMatch(/^steps\s+noop$/m);
    expect(shown.stdout).toMatch(/^retries\s+up to 2 \(3 attempts in all\)$/m);
    expect(shown.stdout).toMatch(/^retry delay\s+10 s, doubled each retry, at most 120 s \(2 min\)$/m);
    expect(shown.stdout).toMatch(/^throttle\s+none$/m);
    const json = await cli(["workflows", "show", id, "--json"]);
    expect(JSON.parse(json.stdout)).toEqual(await user.client.getWorkflow(id));

    // --retries 0: no retry (one attempt).
    const off = await cli(["workflows", "set", "orders", "--retries", "0", "--concurrency", "1"]);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toMatch(/^retries\s+none \(a failed run is not tried again\)$/m);
    expect(off.stdout).toMatch(/^concurrency\s+1 run at a time, in order$/m);
    expect((await user.client.getWorkflow(id)).retry!.max_attempts).toBe(1);
  });

  it("a value out of range is the server's 400, naming the field and its flag; nothing changes", async () => {
    const before = await user.client.getWorkflow(waiting.id);
    const big = await cli(["workflows", "set", "waits", "--concurrency", "101"]);
    expect(big.code).toBe(1);
    expect(oneLine(big.stderr)).toMatch(
      /^headwater: the server refused the change: concurrency \(--concurrency\): .*100 \(validation_failed, HTTP 400\)$/,
    );

    const many = await cli(["workflows", "set", "waits", "--retries", "10", "--throttle", "0/60"]);
    expect(many.code).toBe(1);
    const line = oneLine(many.stderr);
    expect(line).toMatch(/retry\.max_attempts \(--retries, which is the attempts less one\): .*10/);
    expect(line).toMatch(/throttle\.limit \(--throttle's N\)/);
    expect(await user.client.getWorkflow(waiting.id)).toEqual(before);

    // A value of the wrong form, or nothing to change, is a usage error: nothing is sent.
    const form = await cli(["workflows", "set", "waits", "--throttle", "5"]);
    expect(form.code).toBe(2);
    expect(form.stderr).toMatch(/N\/SECONDS/);
    const nothing = await cli(["workflows", "set", "waits"]);
    expect(nothing.code).toBe(2);
    expect(oneLine(nothing.stderr)).toMatch(/nothing to change: give --retries/);
  });

  it("runs and runs show say when a delayed run resumes; runs cancel cancels it, and a second cancel is refused", async () => {
    const run = await runUntil(waiting, "delayed");
    const list = await cli(["runs", "waits"]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(
        `^${run.id}\\s+delayed\\s+HTTP\\s+.*\\s1/2\\s+resumes in (\\d+s|1m) \\(\\d\\d:\\d\\d:\\d\\d\\)$`,
        "m",
      ),
    );
    const shown = await cli(["runs", "show", run.id]);
    expect(shown.stdout).toMatch(/^status\s+delayed$/m);
    expect(shown.stdout).toMatch(/^resumes\s+\d{4}-\d\d-\d\dT\S+Z \(in (\d+s|1m)\)$/m);

    const r = await cli(["runs", "cancel", run.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^cancelled ${run.id} \\(it was delayed\\)$`, "m"));
    expect(r.stdout).toMatch(/^status\s+cancelled$/m);
    expect(r.stdout).not.toMatch(/^resumes/m);
    expect((await user.client.getWorkflowRun(waiting.id, run.id)).status).toBe("cancelled");

    const again = await cli(["runs", "cancel", run.id, "--workflow", "waits"]);
    expect(again.code).toBe(1);
    expect(oneLine(again.stderr)).toMatch(
      /^headwater: cannot cancel: .*cancel.*\(run_not_cancellable, HTTP 409\)$/,
    );
  });

  it("runs cancel --json prints the cancelled run; another user's run is not found", async () => {
    const run = await runUntil(waiting, "delayed");
    const r = await cli(["runs", "cancel", run.id, "--workflow", waiting.id, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ id: run.id, workflow_id: waiting.id, status: "cancelled" });

    const other = await server.newUser();
    const theirs = await other.client.createWorkflow({
      name: "theirs",
      steps: [{ name: "wait", code: WAIT }],
    });
    const theirRun = await runUntil(theirs, "delayed", other);
    const byId = await cli(["runs", "cancel", theirRun.id]);
    expect(byId.code).toBe(1);
    expect(oneLine(byId.stderr)).toMatch(new RegExp(`no run ${theirRun.id} in any of your 2 workflows`));
    const byWorkflow = await cli(["runs", "cancel", theirRun.id, "--workflow", theirs.id]);
    expect(byWorkflow.code).toBe(1);
    expect(oneLine(byWorkflow.stderr)).toMatch(new RegExp(`no workflow with id ${theirs.id}`));
    expect((await other.client.getWorkflowRun(theirs.id, theirRun.id)).status).toBe("delayed");
  });

  it("a retrying run shows its next attempt in runs, and its attempts in runs show; it can be cancelled", async () => {
    const flaky = await user.client.createWorkflow({
      name: "flaky",
      steps: [{ name: "call", code: FAIL }],
      retry: { max_attempts: 3, initial_delay_seconds: 600 },
    });
    const run = await runUntil(flaky, "retrying");
    const list = await cli(["runs", "flaky", "--json"]);
    expect((ndjson(list.stdout) as Run[])[0]).toMatchObject({ id: run.id, status: "retrying" });
    const table = await cli(["runs", "flaky"]);
    // The delay is 600 s, give or take the 20 % jitter.
    expect(table.stdout).toMatch(
      new RegExp(
        `^${run.id}\\s+retrying\\s+.*attempt 2 in (8|9|10|11|12)m \\(\\d\\d:\\d\\d:\\d\\d\\); step call: .*upstream down`,
        "m",
      ),
    );
    const shown = await cli(["runs", "show", run.id]);
    expect(shown.stdout).toMatch(/^status\s+retrying$/m);
    expect(shown.stdout).toMatch(/^next attempt\s+#2, \S+Z \(in (8|9|10|11|12)m\)$/m);
    expect(shown.stdout).toMatch(
      /^attempts\s+#1 {2}error {2}\d\d:\d\d:\d\d {2}\d+ ms {2}step call: .*upstream down$/m,
    );

    const r = await cli(["runs", "cancel", run.id]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^cancelled ${run.id} \\(it was retrying\\)$`, "m"));
    expect((await user.client.getWorkflowRun(flaky.id, run.id)).status).toBe("cancelled");
  });
});
