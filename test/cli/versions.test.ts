/**
 * A workflow's versions from the command line: `workflows versions`, `workflows diff` (a
 * unified diff, step by step, with name and settings changes) and `workflows restore`. The real
 * binary against a real server, checked by what it prints and what the server then holds.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workflow } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { flags, oneLine, runCli } from "./helpers.js";

const PARSE_1 = `export default defineComponent({
  async run({ steps }) {
    const n = steps.trigger.event.body.n;
    return n;
  },
});`;
const PARSE_2 = PARSE_1.replace("return n;", "return n * 2;");
const NOTIFY = `export default defineComponent({ async run() { return "sent"; } });`;

describe("workflow versions from the command line", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let wf: Workflow;
  const cli = (args: string[], who: TestUser = user) => runCli([...flags(server.baseUrl, who.key), ...args]);

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    wf = await user.client.createWorkflow({ name: "orders", steps: [{ name: "parse", code: PARSE_1 }] });
    // Version 2: parse changed, a step added, a setting and the name changed.
    await user.client.updateWorkflow(wf.id, {
      name: "orders-v2",
      steps: [
        { name: "parse", code: PARSE_2 },
        { name: "notify", code: NOTIFY },
      ],
      concurrency: 3,
      message: "double it, then notify",
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("versions lists them newest first, the current one marked", async () => {
    const r = await cli(["workflows", "versions", "orders-v2"]);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toMatch(/^VERSION\s+CREATED\s+ORIGIN\s+MESSAGE$/);
    expect(lines[1]).toMatch(/^2 \(current\)\s+(?:just now|\d+[sm] ago)\s+update\s+double it, then notify$/);
    expect(lines[2]).toMatch(/^1\s+(?:just now|\d+[sm] ago)\s+create$/);
    expect(lines).toHaveLength(3);

    const json = await cli(["workflows", "versions", wf.id, "--json"]);
    expect(json.stdout.trim().split("\n").map((l) => JSON.parse(l) as { version: number; origin: string })).toMatchObject([
      { version: 2, origin: "update", message: "double it, then notify" },
      { version: 1, origin: "create", message: null },
    ]);
  });

  it("diff shows the previous version against the current one: name, settings, then each step", async () => {
    const r = await cli(["workflows", "diff", "orders-v2"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        "--- orders-v2 version 1",
        "+++ orders-v2 version 2 (current)",
        'name: "orders" -> "orders-v2"',
        "concurrency: 1 -> 3",
        "step parse: changed",
        "@@ -1,6 +1,6 @@",
        " export default defineComponent({",
        "   async run({ steps }) {",
        "     const n = steps.trigger.event.body.n;",
        "-    return n;",
        "+    return n * 2;",
        "   },",
        " });",
        "step notify: added",
        "@@ -0,0 +1 @@",
        `+${NOTIFY}`,
        "",
      ].join("\n"),
    );

    // Either way round, by id, as JSON.
    const back = await cli(["workflows", "diff", wf.id, "2", "1", "--json"]);
    expect(back.code, back.stderr).toBe(0);
    expect(JSON.parse(back.stdout)).toMatchObject({
      id: wf.id,
      from: 2,
      to: 1,
      fields: [
        { field: "name", from: "orders-v2", to: "orders" },
        { field: "concurrency", from: 3, to: 1 },
      ],
      order: null,
      steps: [
        { step: "parse", change: "changed" },
        { step: "notify", change: "removed" },
      ],
    });
  });

  it("restore makes an old version's content current as a new version; diff then shows nothing between them", async () => {
    const r = await cli(["workflows", "restore", "orders-v2", "1", "--message", "back to plain n"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`restored orders (${wf.id}): version 3 has version 1's content\n`);
    const now = await user.client.getWorkflow(wf.id);
    expect(now).toMatchObject({ version: 3, name: "orders", concurrency: 1 });
    expect(now.steps.map((s) => [s.name, s.code])).toEqual([["parse", PARSE_1]]);
    expect((await user.client.listWorkflowVersions(wf.id)).data[0]).toMatchObject({
      version: 3,
      origin: "restore",
      restored_from: 1,
      message: "back to plain n",
    });

    const same = await cli(["workflows", "diff", "orders", "1", "3"]);
    expect(same.stdout).toBe("--- orders version 1\n+++ orders version 3 (current)\n");
    const list = await cli(["workflows", "versions", "orders"]);
    expect(list.stdout).toMatch(/^3 \(current\)\s+(?:just now|\d+[sm] ago)\s+restore of 1\s+back to plain n$/m);

    // Restoring what is already current makes no version.
    const again = await cli(["workflows", "restore", "orders", "3"]);
    expect(again.stdout).toMatch(/already has version 3's content: no new version/);
    expect((await user.client.getWorkflow(wf.id)).version).toBe(3);
  });

  it("refuses an unknown version, a bad number, a workflow with one version, and another user's workflow", async () => {
    const missing = await cli(["workflows", "restore", "orders", "9"]);
    expect(missing.code).toBe(1);
    expect(oneLine(missing.stderr)).toBe(`headwater: orders (${wf.id}) has no version 9: it is at version 3`);
    const missingDiff = await cli(["workflows", "diff", "orders", "9"]);
    expect(missingDiff.code).toBe(1);
    expect(oneLine(missingDiff.stderr)).toMatch(/has no version 9/);

    const bad = await cli(["workflows", "diff", "orders", "x"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/must be a version number/);

    const single = await user.client.createWorkflow({ name: "single", steps: [{ name: "s", code: NOTIFY }] });
    const one = await cli(["workflows", "diff", "single"]);
    expect(one.code).toBe(1);
    expect(oneLine(one.stderr)).toMatch(/single \(p_\w+\) has only version 1: there is nothing before it/);

    const other = await server.newUser();
    const theirs = await other.client.createWorkflow({ name: "theirs", steps: [{ name: "s", code: NOTIFY }] });
    for (const args of [["versions", theirs.id], ["diff", theirs.id, "1", "1"], ["restore", theirs.id, "1"], ["versions", "theirs"]]) {
      const r = await cli(["workflows", ...args]);
      expect(r.code, args.join(" ")).toBe(1);
      expect(r.stderr).toMatch(/no workflow/);
    }
    expect((await other.client.getWorkflow(theirs.id)).version).toBe(1);
    expect(single.version).toBe(1);
  });
});
