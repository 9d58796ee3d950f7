/**
 * A code step's props in workflow files (decisions.md "Code steps with props", "Workflow
 * files"): pull writes a code step's configured props as its `props` in workflow.yaml, push sends
 * them back; a round trip of an unchanged folder changes nothing, a changed value is shown and
 * deployed, and a bad one is the server's 400 naming the step and the prop, with no new version.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import type { Workflow } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { flags, oneLine, runCli, tempDir } from "./helpers.js";

const CODE = `export default defineComponent({
  props: {
    github: { type: "app", app: "github" },
    label: { type: "string", optional: true },
    limit: { type: "integer", default: 10 },
  },
  async run() {
    return { label: this.label, limit: this.limit, token: this.github.$auth.oauth_access_token.length };
  },
});
`;

describe("code step props in workflow files", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let wf: Workflow;
  let account: string;
  const cli = (args: string[]) => runCli([...flags(server.baseUrl, user.key), ...args]);
  const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), "utf8");
  const versions = async () => (await user.client.listWorkflowVersions(wf.id)).data.length;

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    account = (
      await user.client.createAccount({
        app: "github",
        auth: { oauth_access_token: "gho_files_token_0123456789" },
      })
    ).id;
    wf = await user.client.createWorkflow({
      name: "labelled",
      steps: [
        {
          name: "tag",
          code: CODE,
          configured_props: { github: { authProvisionId: account }, label: "first" },
        },
      ],
    });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("pull writes a code step's props; pushing the folder back changes nothing", async () => {
    const dir = tempDir();
    expect((await cli(["workflows", "pull", wf.id, dir])).code).toBe(0);
    expect(read(dir, "tag.mjs")).toBe(CODE);
    expect((parse(read(dir, "workflow.yaml")) as { steps: unknown }).steps).toEqual([
      { name: "tag", file: "tag.mjs", props: { github: { authProvisionId: account }, label: "first" } },
    ]);
    const push = await cli(["workflows", "push", dir]);
    expect(push.code, push.stderr).toBe(0);
    expect(push.stdout).toBe(`no changes: labelled (${wf.id}) stays at version 1\n`);
    expect(await user.client.getWorkflow(wf.id)).toEqual(wf);
    expect(await versions()).toBe(1);
  });

  it("a changed value is shown and deployed; a bad one is refused naming the step and prop, and nothing changes", async () => {
    const dir = tempDir();
    expect((await cli(["workflows", "pull", wf.id, dir])).code).toBe(0);
    const yaml = read(dir, "workflow.yaml");
    fs.writeFileSync(
      path.join(dir, "workflow.yaml"),
      yaml.replace("label: first", "label: second\n      limit: 3"),
    );
    const r = await cli(["workflows", "push", dir]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^step tag: changed$/m);
    expect(r.stdout).toMatch(/^- {2}"label": "first"$/m);
    expect(r.stdout).toMatch(/^\+ {2}"label": "second",$/m);
    expect(r.stdout).toMatch(new RegExp(`deployed labelled \\(${wf.id}\\) as version 2`));
    const now = await user.client.getWorkflow(wf.id);
    expect(now.steps[0]!.configured_props).toEqual({
      github: { authProvisionId: account },
      label: "second",
      limit: 3,
    });
    const run = await user.client.testWorkflow(wf.id, { event: {} });
    expect(run.steps[0]!.return_value).toEqual({ label: "second", limit: 3, token: 26 });

    const bad = read(dir, "workflow.yaml").replace("limit: 3", "limit: three");
    fs.writeFileSync(path.join(dir, "workflow.yaml"), bad);
    const refused = await cli(["workflows", "push", dir]);
    expect(refused.code).toBe(1);
    expect(oneLine(refused.stderr)).toMatch(/steps\.tag\.configured_props\.limit: must be an integer/);
    expect((await user.client.getWorkflow(wf.id)).version).toBe(2);
    expect(await versions()).toBe(2);
  });
});
