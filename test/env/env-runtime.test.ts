/**
 * Environment variables in code (decisions.md "Workflow triggers, environment variables and data
 * stores"), on SQLite and PostgreSQL: steps, actions and sources read the user's variables as
 * `process.env.NAME` and nothing of the server's environment; an action step's props may say
 * `{{process.env.NAME}}`; a secret's value is `****` in what runs leave behind (logs, errors,
 * return values, exports, emits, the recorded response, `$logs` / `$errors` events, an action's
 * answer); on SQLite the database file and its WAL never hold it.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import {
  post,
  sourceEvents,
  step,
  waitForList,
  workflowErrors,
  workflowEvents,
} from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sendJson, until } from "../workflows/helpers.js";

const SECRET = "sk-live-9d2e44b1c0";
const PLAIN = "plain-value-eu";
/** What no answer may hold: the secret, and its JSON-escaped form is the same text. */
const SECRET_AT_REST = "at-rest-secret-3f1b9e77";
const hidden = (x: unknown) => {
  const text = JSON.stringify(x);
  expect(text).not.toContain(SECRET);
  expect(text).not.toContain(SECRET_AT_REST);
};

const ENV_SOURCE = `
export default {
  name: "env reader",
  version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) {
    console.log("source token " + process.env.API_TOKEN);
    this.$emit({ keys: Object.keys(process.env).sort(), plain: process.env.PLAIN_ONE, token: process.env.API_TOKEN, n: process.env.API_TOKEN.length });
  },
};`;

const ECHO_ACTION = `
export default {
  key: "env-echo",
  name: "Echo",
  version: "0.0.1",
  type: "action",
  props: { token: { type: "string" }, label: { type: "string" } },
  async run({ $ }) {
    console.log("action sees " + this.token);
    $.export("token", this.token);
    return { reversed: this.token.split("").reverse().join(""), label: this.label, own: process.env.PLAIN_ONE };
  },
};`;

const ended = (r: Run) => ["success", "error", "exited", "cancelled"].includes(r.status);

describe.each(testDatabases())("environment variables in code on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    await alice.client.setEnvVar("API_TOKEN", { value: SECRET });
    await alice.client.setEnvVar("PLAIN_ONE", { value: PLAIN, secret: false });
    await alice.client.createComponent({ component_code: ECHO_ACTION });
  }, 60_000);
  afterAll(() => srv?.stop());

  it("a step reads the user's variables and nothing of the server's environment", async () => {
    // The test process (the server's) has PATH, HOME and HEADWATER_* variables of its own.
    expect(process.env.PATH).toBeDefined();
    const wf = await alice.client.createWorkflow({
      name: "env",
      steps: [
        {
          name: "keys",
          code: step(
            `return { keys: Object.keys(process.env).sort(), plain: process.env.PLAIN_ONE, n: process.env.API_TOKEN.length };`,
          ),
        },
        {
          name: "again",
          code: step(
            `process.env.PLAIN_ONE = "changed"; return process.env.PATH ?? process.env.HOME ?? null;`,
          ),
        },
      ],
    });
    const run = await alice.client.testWorkflow(wf.id);
    expect(run.status).toBe("success");
    expect(run.steps[0]!.return_value).toEqual({
      keys: ["API_TOKEN", "PLAIN_ONE", "TMPDIR"],
      plain: PLAIN,
      n: SECRET.length,
    });
    expect(run.steps[1]!.return_value).toBe(null);
    // What one run changed in process.env is not what the next run reads.
    const next = await alice.client.testWorkflow(wf.id);
    expect((next.steps[0]!.return_value as { plain: string }).plain).toBe(PLAIN);
  });

  it("hides a secret's value in a run's logs, return values, exports, errors, emits and recorded response", async () => {
    const wf = await alice.client.createWorkflow({
      name: "leaky",
      http_response: "workflow",
      steps: [
        {
          name: "leak",
          code: step(`
            const t = process.env.API_TOKEN;
            console.log("token is", t);
            console.error({ nested: { t } });
            $.export("tok", "Bearer " + t);
            $.send.emit({ token: t, note: "x" + t });
            await $.respond({ body: { t } });
            return { t, quoted: JSON.stringify({ t }) };`),
        },
        { name: "boom", code: step(`throw new Error("failed with " + process.env.API_TOKEN);`) },
      ],
    });
    const res = await sendJson(wf.endpoint_url, {});
    // The caller is the workflow's own audience: it gets the answer whole.
    expect(await res.json()).toEqual({ t: SECRET });
    const runId = res.headers.get("x-headwater-run-id")!;
    const run = await until("the run", async () => {
      const r = await alice.client.getWorkflowRun(wf.id, runId);
      return ended(r) ? r : undefined;
    });
    hidden(run);
    const [leak, boom] = run.steps;
    expect(leak!.logs.map((l) => l.message)).toEqual(["token is ****", expect.stringContaining("t: '****'")]);
    expect(leak!.return_value).toEqual({ t: "****", quoted: '{"t":"****"}' });
    expect(leak!.exports).toEqual({ tok: "Bearer ****" });
    expect(boom!.error?.message).toBe("failed with ****");
    expect(run.error?.message).toBe("failed with ****");
    expect(run.response?.body).toEqual({ t: "****" });
    const emitted = await waitForList(workflowEvents(alice.client, wf.id), 1);
    expect(emitted[0]!.event).toEqual({ raw_event: { token: "****", note: "x****" } });
    const errors = await waitForList(workflowErrors(alice.client, wf.id), 1);
    hidden(errors);
    expect(JSON.stringify(errors[0]!.event)).toContain("failed with ****");
    // A test run keeps the same record.
    hidden(await alice.client.testWorkflow(wf.id));
  });

  it("resolves {{process.env.NAME}} in an action step's props; the action's own answer hides the secret too", async () => {
    const wf = await alice.client.createWorkflow({
      name: "templated",
      steps: [
        {
          name: "echo",
          action: "env-echo",
          props: {
            token: "{{process.env.API_TOKEN}}",
            label: "region {{ process.env.PLAIN_ONE }}/{{process.env.NOPE}}",
          },
        },
        { name: "after", code: step(`return steps.echo.$return_value.reversed.length;`) },
      ],
    });
    const run = await alice.client.testWorkflow(wf.id);
    expect(run.status).toBe("success");
    hidden(run);
    expect(run.steps[0]!.return_value).toEqual({
      reversed: [...SECRET].reverse().join(""),
      label: `region ${PLAIN}/`,
      own: PLAIN,
    });
    expect(run.steps[0]!.exports).toEqual({ token: "****" });
    expect(run.steps[0]!.logs[0]!.message).toBe("action sees ****");
    expect(run.steps[1]!.return_value).toBe(SECRET.length);

    const ran = await alice.client.runAction({
      key: "env-echo",
      configured_props: { token: `x${SECRET}`, label: "l" },
    });
    hidden(ran);
    expect(ran).toMatchObject({
      exports: { token: "x****" },
      logs: [{ message: "action sees x****" }],
      ret: { own: PLAIN },
    });
  });

  it("a variable may be named __proto__ (the name pattern allows it): it is a variable, not a prototype", async () => {
    await alice.client.setEnvVar("__proto__", { value: "proto-value", secret: false });
    const wf = await alice.client.createWorkflow({
      name: "proto",
      steps: [
        {
          name: "p",
          code: step(
            `return { own: Object.getOwnPropertyDescriptor(process.env, "__proto__")?.value ?? null, plain: process.env.PLAIN_ONE };`,
          ),
        },
      ],
    });
    expect((await alice.client.testWorkflow(wf.id)).steps[0]!.return_value).toEqual({
      own: "proto-value",
      plain: PLAIN,
    });
    expect((await alice.client.listMyEnvVars()).find((v) => v.name === "__proto__")).toMatchObject({
      value: "proto-value",
    });
    await alice.client.deleteEnvVar("__proto__");
  });

  it("a source reads the variables (and its own PD_COMPONENT); its $logs and emits hide the secret", async () => {
    const src = await alice.client.createSource({ component_code: ENV_SOURCE });
    const url = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
    expect(await post(url, { go: 1 })).toBe(200);
    const [emit] = await waitForList(sourceEvents(alice.client, src.id), 1);
    expect(emit!.event).toEqual({
      keys: ["API_TOKEN", "PD_COMPONENT", "PLAIN_ONE", "TMPDIR"],
      plain: PLAIN,
      token: "****",
      n: SECRET.length,
    });
    const [log] = await waitForList(sourceEvents(alice.client, src.id, "$logs"), 1);
    expect((log!.event as { message: string }).message).toBe("source token ****");
  });
});

describe("secret values at rest on SQLite", () => {
  let srv: TestServer;
  let alice: TestUser;
  beforeAll(async () => {
    srv = await startServer();
    alice = await srv.newUser();
  }, 60_000);
  afterAll(() => srv?.stop());

  /** Every file of the data dir that holds `value`, by its path in the dir. */
  const filesHolding = (value: string): string[] => {
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile() && fs.readFileSync(p).includes(value)) found.push(path.relative(srv.dataDir, p));
      }
    };
    walk(srv.dataDir);
    return found;
  };

  it("neither the database file nor its WAL nor the search index holds a secret's value, after runs that printed it", async () => {
    const secret = SECRET_AT_REST;
    // Plain first, then made secret: the plain text it replaced must not stay behind either,
    // neither in its page nor in the pages a long value spills over to (looked for in pieces).
    const long = `long-head-${"Lq7".repeat(20_000)}-long-tail`;
    await alice.client.setEnvVar("AT_REST", { value: secret, secret: false });
    await alice.client.setEnvVar("LONG", { value: long, secret: false });
    // More rows after them: the table's pages split, and their rows are copied on the way.
    for (let i = 0; i < 60; i++)
      await alice.client.setEnvVar(`FILL_${i}`, { value: `fill-${i}-${"f".repeat(i * 9)}`, secret: false });
    await alice.client.setEnvVar("AT_REST", { value: secret });
    await alice.client.setEnvVar("LONG", { value: long });
    const wf = await alice.client.createWorkflow({
      name: "prints",
      steps: [
        {
          name: "p",
          code: step(
            `console.log("v=" + process.env.AT_REST); $.send.emit({ v: process.env.AT_REST }); return process.env.AT_REST;`,
          ),
        },
      ],
    });
    for (let i = 0; i < 3; i++) expect(await post(wf.endpoint_url, { i })).toBe(200);
    await waitForList(workflowEvents(alice.client, wf.id), 3);
    // A search builds the index (its own file in the data dir) over these events; it finds them masked.
    const found = await alice.client.listWorkflowEvents(wf.id, { q: "****", expand: "event" });
    expect(found.data.length).toBeGreaterThan(0);
    hidden(found);
    expect(filesHolding(secret)).toEqual([]);
    expect(filesHolding("long-head-Lq7Lq7")).toEqual([]);
    expect(filesHolding("Lq7Lq7-long-tail")).toEqual([]);
    // The plain value of another variable is stored as it is (the search works on the same files).
    await alice.client.setEnvVar("OPEN", { value: "open-value-8c2d1a", secret: false });
    expect(filesHolding("open-value-8c2d1a").length).toBeGreaterThan(0);
  });
});
