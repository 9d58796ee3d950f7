/**
 * A workflow as files: `workflows pull` writes workflow.yaml and a .mjs per code step;
 * `workflows push` creates a workflow from a folder without an id, else shows what changes and
 * deploys it against the pulled version (a conflict stops, `--force` overrides), makes no version
 * for an unchanged folder, and refuses a broken folder naming the file and line. The real binary
 * against a real server, checked by what it prints, what it writes and what the server holds.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Workflow } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { flags, oneLine, runCli, tempDir } from "./helpers.js";

const PARSE = `export default defineComponent({
  async run({ steps }) {
    return steps.trigger.event.body;
  },
});
`;
const NOTIFY = `export default defineComponent({ async run() { return "sent"; } });`;

describe("workflow files from the command line", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let wf: Workflow;
  const cli = (args: string[], who: TestUser = user) => runCli([...flags(server.baseUrl, who.key), ...args]);
  const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");
  const versions = async (id: string) => (await user.client.listWorkflowVersions(id)).data.length;

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    wf = await user.client.createWorkflow({
      name: "orders",
      steps: [
        { name: "parse", code: PARSE },
        { name: "notify", code: NOTIFY },
      ],
      concurrency: 2,
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("pull writes workflow.yaml and one file per code step; pushing it back changes nothing", async () => {
    const dir = path.join(tempDir(), "orders");
    const r = await cli(["workflows", "pull", "orders", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`pulled orders (${wf.id}) version 1 into ${dir}: workflow.yaml, parse.mjs, notify.mjs\n`);
    expect(fs.readdirSync(dir).sort()).toEqual(["notify.mjs", "parse.mjs", "workflow.yaml"]);
    expect(read(dir, "parse.mjs")).toBe(PARSE);
    expect(read(dir, "notify.mjs")).toBe(NOTIFY);
    expect(Object.keys(parse(read(dir, "workflow.yaml")) as object)).toEqual([
      "id", "version", "name", "http_response", "retry", "concurrency", "throttle", "schedules", "http_auth", "steps",
    ]);
    expect(parse(read(dir, "workflow.yaml"))).toEqual({
      id: wf.id,
      version: 1,
      name: "orders",
      http_response: "immediate",
      retry: { max_attempts: 1, initial_delay_seconds: 5, max_delay_seconds: 3600 },
      concurrency: 2,
      throttle: null,
      // The server's triggers: none yet, and an open endpoint.
      schedules: [],
      http_auth: { type: "none" },
      steps: [
        { name: "parse", file: "parse.mjs" },
        { name: "notify", file: "notify.mjs" },
      ],
    });

    const yamlBefore = read(dir, "workflow.yaml");
    const push = await cli(["workflows", "push", dir]);
    expect(push.code, push.stderr).toBe(0);
    expect(push.stdout).toBe(`no changes: orders (${wf.id}) stays at version 1\n`);
    expect(await user.client.getWorkflow(wf.id)).toEqual(wf);
    expect(await versions(wf.id)).toBe(1);
    expect(read(dir, "workflow.yaml")).toBe(yamlBefore);
  });

  it("push shows what changes step by step, deploys against the pulled version and records the new one", async () => {
    const dir = tempDir();
    expect((await cli(["workflows", "pull", wf.id, dir])).code).toBe(0);
    fs.writeFileSync(path.join(dir, "parse.mjs"), PARSE.replace("return steps.trigger.event.body;", "return { ...steps.trigger.event.body, seen: true };"));
    fs.writeFileSync(path.join(dir, "workflow.yaml"), read(dir, "workflow.yaml").replace("concurrency: 2", "concurrency: 4"));

    const r = await cli(["workflows", "push", dir, "--message", "mark seen"]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        "--- orders version 1 (deployed)",
        `+++ ${dir} (local)`,
        "concurrency: 2 -> 4",
        "step parse: changed",
        "@@ -1,5 +1,5 @@",
        " export default defineComponent({",
        "   async run({ steps }) {",
        "-    return steps.trigger.event.body;",
        "+    return { ...steps.trigger.event.body, seen: true };",
        "   },",
        " });",
        `deployed orders (${wf.id}) as version 2`,
        "",
      ].join("\n"),
    );
    const now = await user.client.getWorkflow(wf.id);
    expect(now).toMatchObject({ version: 2, concurrency: 4 });
    expect(now.steps[0]!.code).toMatch(/seen: true/);
    expect((await user.client.listWorkflowVersions(wf.id)).data[0]).toMatchObject({ version: 2, message: "mark seen", origin: "push" });
    expect(parse(read(dir, "workflow.yaml"))).toMatchObject({ id: wf.id, version: 2 });
    // The file's comments and layout are kept: only the version changed.
    expect(read(dir, "workflow.yaml")).toMatch(/^# A Headwater workflow/);

    // A step removed from the file is removed from the workflow.
    fs.writeFileSync(path.join(dir, "workflow.yaml"), read(dir, "workflow.yaml").replace(/ {2}- name: notify\n {4}file: notify.mjs\n/, ""));
    const removed = await cli(["workflows", "push", dir]);
    expect(removed.code, removed.stderr).toBe(0);
    expect(removed.stdout).toMatch(/^step notify: removed$/m);
    expect((await user.client.getWorkflow(wf.id)).steps.map((s) => s.name)).toEqual(["parse"]);
    expect(parse(read(dir, "workflow.yaml"))).toMatchObject({ version: 3 });
  });

  it("a change made since the pull stops the push, naming both versions; --force overrides it", async () => {
    const dir = tempDir();
    expect((await cli(["workflows", "pull", "orders", dir])).code).toBe(0);
    const pulledAt = (await user.client.getWorkflow(wf.id)).version!;
    await user.client.updateWorkflow(wf.id, { concurrency: 7 });
    fs.writeFileSync(path.join(dir, "parse.mjs"), PARSE);

    const r = await cli(["workflows", "push", dir]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toBe(
      `headwater: not pushed: ${path.join(dir, "workflow.yaml")} was pulled at version ${pulledAt}, and orders is at version ${pulledAt + 1} now: pull it into another folder to see what changed, or push --force to overwrite it`,
    );
    const held = await user.client.getWorkflow(wf.id);
    expect(held).toMatchObject({ version: pulledAt + 1, concurrency: 7 });
    expect(parse(read(dir, "workflow.yaml"))).toMatchObject({ version: pulledAt });

    const forced = await cli(["workflows", "push", dir, "--force"]);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/^concurrency: 7 -> 4$/m);
    expect(await user.client.getWorkflow(wf.id)).toMatchObject({ version: pulledAt + 2, concurrency: 4 });
    expect(read(dir, "parse.mjs")).toBe(PARSE);
    expect((await user.client.getWorkflow(wf.id)).steps[0]!.code).toBe(PARSE);
    expect(parse(read(dir, "workflow.yaml"))).toMatchObject({ version: pulledAt + 2 });
  });

  it("a folder without an id creates the workflow and then names it", async () => {
    const dir = tempDir();
    fs.writeFileSync(path.join(dir, "workflow.yaml"), "name: signups\nconcurrency: 3\nsteps:\n  - name: greet\n    file: greet.mjs\n");
    fs.writeFileSync(path.join(dir, "greet.mjs"), NOTIFY);
    const r = await cli(["workflows", "push", dir]);
    expect(r.code, r.stderr).toBe(0);
    const created = (await user.client.listMyWorkflows()).data.find((w) => w.name === "signups")!;
    expect(r.stdout).toBe(`created signups (${created.id}) at version 1; workflow.yaml now names it\n`);
    expect(created).toMatchObject({ version: 1, concurrency: 3 });
    expect(created.steps.map((s) => [s.name, s.code])).toEqual([["greet", NOTIFY]]);
    expect(read(dir, "workflow.yaml")).toBe(`id: ${created.id}\nversion: 1\nname: signups\nconcurrency: 3\nsteps:\n  - name: greet\n    file: greet.mjs\n`);
    // Pushed again: it is that workflow, unchanged.
    expect((await cli(["workflows", "push", dir])).stdout).toMatch(/^no changes: signups/);
  });

  it("a broken folder is refused naming the file (and line), and changes nothing", async () => {
    const dir = tempDir();
    expect((await cli(["workflows", "pull", "orders", dir])).code).toBe(0);
    const before = await user.client.getWorkflow(wf.id);
    const yaml = read(dir, "workflow.yaml");

    fs.rmSync(path.join(dir, "parse.mjs"));
    const missing = await cli(["workflows", "push", dir]);
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toBe(
      `headwater: ${path.join(dir, "parse.mjs")}: no such file (step parse of ${path.join(dir, "workflow.yaml")})`,
    );
    fs.writeFileSync(path.join(dir, "parse.mjs"), PARSE);

    const lines = yaml.split("\n");
    const at = lines.findIndex((l) => l.startsWith("name:"));
    fs.writeFileSync(path.join(dir, "workflow.yaml"), [...lines.slice(0, at), "name: [orders", ...lines.slice(at + 1)].join("\n"));
    const invalid = await cli(["workflows", "push", dir]);
    expect(invalid.code).toBe(2);
    expect(oneLine(invalid.stderr)).toMatch(new RegExp(`^headwater: ${path.join(dir, "workflow.yaml")} line \\d+: not valid YAML: `));

    fs.writeFileSync(path.join(dir, "workflow.yaml"), yaml.replace("concurrency: 4", "concurrency: lots"));
    const wrong = await cli(["workflows", "push", dir]);
    expect(wrong.code).toBe(2);
    const line = yaml.split("\n").findIndex((l) => l.startsWith("concurrency:")) + 1;
    expect(oneLine(wrong.stderr)).toMatch(new RegExp(`^headwater: ${path.join(dir, "workflow.yaml")} line ${line}: concurrency: `));
    expect(await user.client.getWorkflow(wf.id)).toEqual(before);

    // Another user's workflow is as unknown as a missing one.
    const other = await server.newUser();
    fs.writeFileSync(path.join(dir, "workflow.yaml"), yaml);
    const theirs = await cli(["workflows", "push", dir], other);
    expect(theirs.code).toBe(1);
    expect(oneLine(theirs.stderr)).toBe(`headwater: no workflow with id ${wf.id}`);
    expect((await cli(["workflows", "pull", wf.id, tempDir()], other)).code).toBe(1);
    expect(await user.client.getWorkflow(wf.id)).toEqual(before);
  });
});
