/**
 * `workflows test [dir]`: a test run of a folder's local files against a real server, nothing
 * deployed. Each step's result is printed (status, duration, logs, return value, exports, what it
 * would emit, the recorded answer); the exit code says whether the run failed; `--event`,
 * `--event-id` and the workflow's latest trigger event; `--step` runs up to a step; a folder
 * without an id, a bad event file and another user's workflow are refused clearly.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run, Workflow } from "../../shared/resources/index.js";
import { relaySource, sourceEvents, waitForList } from "../delivery/helpers.js";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sendJson, until } from "../workflows/helpers.js";
import { flags, oneLine, runCli, tempDir } from "./helpers.js";

const PARSE = `export default defineComponent({
  async run({ steps }) {
    return { deployed: true };
  },
});
`;
/** The local change: logs, exports, emits and answers, from the event's order (an HTTP request's body, or a relayed event). */
const PARSE_LOCAL = `export default defineComponent({
  async run({ steps, $ }) {
    const e = steps.trigger.event;
    const order = e.body ? e.body.order : e.order;
    console.log("order", order);
    $.export("total", order * 10);
    $.send.emit({ order });
    await $.respond({ status: 201, body: { order } });
    return { order, local: true };
  },
});
`;
const NOTIFY = `export default defineComponent({
  async run({ steps }) {
    if (steps.parse.$return_value.order === 13) throw new RangeError("unlucky order");
    return "notified " + steps.parse.total;
  },
});
`;

describe("testing a workflow folder from the command line", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let wf: Workflow;
  let dir: string;
  const cli = (args: string[], who: TestUser = user) => runCli([...flags(server.baseUrl, who.key), ...args]);
  const write = (file: string, text: string) => fs.writeFileSync(path.join(dir, file), text);

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    wf = await user.client.createWorkflow({
      name: "orders",
      http_response: "workflow",
      steps: [
        { name: "parse", code: PARSE },
        { name: "notify", code: NOTIFY },
      ],
    });
    dir = path.join(tempDir(), "orders");
    expect((await cli(["workflows", "pull", wf.id, dir])).code).toBe(0);
    write("parse.mjs", PARSE_LOCAL);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("runs the local steps on an event file and prints each step's result; nothing is deployed or stored", async () => {
    write("event.json", JSON.stringify({ body: { order: 4 } }));
    const r = await cli(["workflows", "test", dir, "--event", path.join(dir, "event.json")]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    expect(out).toContain(
      `tested ${dir} as orders (${wf.id}): a test run, nothing deployed, sent or stored as an event\n`,
    );
    expect(out).toMatch(/^status\s+success$/m);
    expect(out).toMatch(/^trigger\s+TEST$/m);
    expect(out).toMatch(/^response \(recorded\)\s+201 \{"order":4\}$/m);
    expect(out).toMatch(/^ {2}1\. {2}parse {2}success {2}\d+ ms$/m);
    expect(out).toMatch(/^ {7}\[log\] order 4$/m);
    expect(out).toMatch(/^ {7}returned \{"order":4,"local":true\}$/m);
    expect(out).toMatch(/^ {7}export total = 40$/m);
    expect(out).toMatch(/^ {7}emit \{"raw_event":\{"order":4\}\}$/m);
    expect(out).toMatch(/^ {2}2\. {2}notify {2}success/m);
    expect(out).toMatch(/^ {7}returned "notified 40"$/m);

    // Nothing deployed, nothing stored as an event; the test run is listed with the test runs.
    const now = await user.client.getWorkflow(wf.id);
    expect(now.version).toBe(1);
    expect(now.steps[0]!.code).toBe(PARSE);
    expect((await user.client.listWorkflowEvents(wf.id)).page_info.total_count).toBe(0);
    const tests = (await user.client.listWorkflowRuns(wf.id, { test: true })).data;
    expect(tests[0]).toMatchObject({ test: true, status: "success", event: { body: { order: 4 } } });
  });

  it("--step runs up to that step; a failing run exits 1 with the step's error printed", async () => {
    write("unlucky.json", JSON.stringify({ body: { order: 13 } }));
    const upTo = await cli([
      "workflows",
      "test",
      dir,
      "--event",
      path.join(dir, "unlucky.json"),
      "--step",
      "parse",
    ]);
    expect(upTo.code, upTo.stderr).toBe(0);
    expect(upTo.stdout).toMatch(/^ {2}2\. {2}notify {2}skipped$/m);

    const failed = await cli(["workflows", "test", dir, "--event", path.join(dir, "unlucky.json")]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toMatch(/^status\s+error$/m);
    expect(failed.stdout).toMatch(/^ {7}RangeError: unlucky order$/m);
    expect(oneLine(failed.stderr)).toMatch(
      /^headwater: the test run failed: step notify: \w+: unlucky order$/,
    );

    // `--event -` reads the event from stdin; --json prints the run.
    const piped = await runCli(
      [...flags(server.baseUrl, user.key), "workflows", "test", dir, "--event", "-", "--json"],
      {
        input: JSON.stringify({ body: { order: 5 } }),
      },
    );
    expect(piped.code, piped.stderr).toBe(0);
    expect(JSON.parse(piped.stdout)).toMatchObject({
      test: true,
      status: "success",
      steps: [{ return_value: { order: 5, local: true } }, {}],
    });
  });

  it("takes a stored event by id, or by default the workflow's latest trigger event", async () => {
    const relay = await user.client.createSource({
      component_code: relaySource(uniqueKey("relay")),
      name: "relay",
    });
    await sendJson((relay.configured_props as { http: { endpoint_url: string } }).http.endpoint_url, {
      order: 7,
    });
    const [event] = await waitForList(sourceEvents(user.client, relay.id), 1);
    const byId = await cli(["workflows", "test", dir, "--event-id", event!.id, "--json"]);
    expect(byId.code, byId.stderr).toBe(0);
    const run = JSON.parse(byId.stdout) as Run;
    expect(run).toMatchObject({ test: true, status: "success", event: { order: 7 } });
    expect(run.steps[0]!.emits).toEqual([{ channel: "default", data: { raw_event: { order: 7 } } }]);

    // A request to the endpoint runs the deployed workflow; its event is then the default one.
    const res = await sendJson(wf.endpoint_url, { order: 9 });
    const id = res.headers.get("x-headwater-run-id")!;
    await until("the run", async () =>
      (await user.client.getWorkflowRun(wf.id, id)).status === "success" ? true : undefined,
    );
    const latest = await cli(["workflows", "test", dir]);
    expect(latest.code, latest.stderr).toBe(0);
    expect(latest.stdout).toMatch(/^ {7}returned \{"order":9,"local":true\}$/m);

    const unknown = await cli(["workflows", "test", dir, "--event-id", "1700000000000-0"]);
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown.stderr)).toBe(`headwater: no event 1700000000000-0 of yours to test orders on`);
  });

  it("refuses a folder without an id, a bad event or step, and another user's workflow", async () => {
    const fresh = tempDir();
    fs.writeFileSync(path.join(fresh, "workflow.yaml"), "name: new\nsteps:\n  - name: a\n    file: a.mjs\n");
    fs.writeFileSync(path.join(fresh, "a.mjs"), PARSE);
    const noId = await cli(["workflows", "test", fresh]);
    expect(noId.code).toBe(2);
    expect(oneLine(noId.stderr)).toBe(
      `headwater: ${path.join(fresh, "workflow.yaml")} has no id: a test runs as a test of a workflow on the server (its events, accounts and quota); headwater workflows push ${fresh} creates it first`,
    );

    write("bad.json", "{ order: ");
    const bad = await cli(["workflows", "test", dir, "--event", path.join(dir, "bad.json")]);
    expect(bad.code).toBe(2);
    expect(oneLine(bad.stderr)).toMatch(
      new RegExp(`^headwater: --event ${path.join(dir, "bad.json")}: not JSON: `),
    );
    const missing = await cli(["workflows", "test", dir, "--event", path.join(dir, "nope.json")]);
    expect(oneLine(missing.stderr)).toBe(`headwater: --event ${path.join(dir, "nope.json")}: no such file`);
    const both = await cli([
      "workflows",
      "test",
      dir,
      "--event",
      path.join(dir, "event.json"),
      "--event-id",
      "1-0",
    ]);
    expect(oneLine(both.stderr)).toBe("headwater: give --event or --event-id, not both");
    const step = await cli(["workflows", "test", dir, "--step", "charge"]);
    expect(step.code).toBe(2);
    expect(oneLine(step.stderr)).toBe(
      "headwater: --step charge: the folder has no such step (its steps: parse, notify)",
    );

    const other = await server.newUser();
    const theirs = await cli(["workflows", "test", dir, "--event", path.join(dir, "event.json")], other);
    expect(theirs.code).toBe(1);
    expect(oneLine(theirs.stderr)).toBe(`headwater: no workflow with id ${wf.id}`);
    expect((await user.client.listWorkflowRuns(wf.id, { test: true })).data.every((r) => r.test)).toBe(true);
  });
});
