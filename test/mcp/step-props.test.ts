/**
 * A code step's props for an agent (decisions.md "Code steps with props"): create_workflow,
 * update_workflow and update_draft take a code step's `configured_props` as REST does; the draft
 * answers what each code step declares (`step_props`) and a bad value as a problem naming the
 * prop; a bad value saved is refused with invalid_step naming the step and prop, nothing changed.
 */
import type { Client } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workflow, WorkflowDraft } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { call, connect, refused, type Connected } from "./helpers.js";

const CODE = `export default defineComponent({
  props: { github: { type: "app", app: "github" }, label: { type: "string" } },
  async run() { return this.label + ":" + this.github.$auth.oauth_access_token.length; },
});`;

describe("code step props over MCP", () => {
  let s: TestServer;
  let u: TestUser;
  let conn: Connected;
  let c: Client;
  let account: string;
  beforeAll(async () => {
    s = await startServer();
    u = await s.newUser();
    conn = await connect("http", s, u.key, "2026-07-28");
    c = conn.client;
    account = (
      await u.client.createAccount({ app: "github", auth: { oauth_access_token: "gho_mcp_token_12345" } })
    ).id;
  });
  afterAll(async () => {
    await conn?.close();
    await s?.stop();
  });

  it("configured_props pass through create, update and the draft; bad ones are clear refusals or problems", async () => {
    const good = { github: { authProvisionId: account }, label: "mcp" };
    const { workflow } = await call<{ workflow: Workflow }>(c, "create_workflow", {
      name: "agent props",
      steps: [{ name: "s", code: CODE, configured_props: good }],
    });
    expect(workflow.steps[0]).toMatchObject({ name: "s" });
    expect((await u.client.getWorkflow(workflow.id)).steps[0]!.configured_props).toEqual(good);

    const bad = await refused(c, "update_workflow", {
      id: workflow.id,
      steps: [{ name: "s", code: CODE, configured_props: { github: { authProvisionId: "apn_nope" } } }],
    });
    expect(bad.code).toBe("invalid_step");
    expect(bad.error).toMatch(/steps\.s\.configured_props\.github: account apn_nope not found/);
    expect(bad.error).toMatch(/steps\.s\.configured_props\.label: required/);
    expect((await u.client.getWorkflow(workflow.id)).version).toBe(1);

    const { draft } = await call<{ draft: WorkflowDraft }>(c, "update_draft", {
      id: workflow.id,
      steps: [{ name: "s", code: CODE, configured_props: { ...good, label: 7 } }],
    });
    expect(draft.step_props?.s?.map((p) => p.name)).toEqual(["github", "label"]);
    expect(draft.problems).toEqual([
      {
        step: "s",
        prop: "label",
        line: null,
        column: null,
        message: "prop label: must be a string, not the number 7",
      },
    ]);
    expect((await refused(c, "deploy_draft", { id: workflow.id })).code).toBe("invalid_step");
    await call(c, "update_draft", {
      id: workflow.id,
      steps: [{ name: "s", code: CODE, configured_props: { ...good, label: "drafted" } }],
    });
    const deployed = await call<{ workflow: Workflow }>(c, "deploy_draft", {
      id: workflow.id,
      base_version: 1,
    });
    expect(deployed.workflow.version).toBe(2);
    expect((await u.client.getWorkflow(workflow.id)).steps[0]!.configured_props).toEqual({
      ...good,
      label: "drafted",
    });
  });
});
