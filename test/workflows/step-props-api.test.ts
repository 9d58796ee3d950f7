/**
 * Code steps with props over the API (decisions.md "Code steps with props"), on SQLite and
 * PostgreSQL: a code step declares props as a component does, its `configured_props` give their
 * values, and its run reads them as `this.<prop>` (an app prop with the account's credentials,
 * hidden in what the run records). Every bad value is a 400 `invalid_step` naming the step and
 * the prop, and changes nothing; a draft takes it and lists it in `problems`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CreateWorkflowBody, Run } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sendJson, until } from "./helpers.js";

/** A code step declaring an app prop, two plain ones with a default or optional, and a required boolean. */
const CODE = `export default defineComponent({
  props: {
    github: { type: "app", app: "github" },
    label: { type: "string", optional: true },
    limit: { type: "integer", default: 10 },
    dry: { type: "boolean" },
  },
  async run({ steps, $ }) {
    console.log("token " + this.github.$auth.oauth_access_token);
    return {
      app: this.github.app,
      token_ok: this.github.$auth.oauth_access_token.endsWith("props_secret_0123456789"),
      token: this.github.$auth.oauth_access_token,
      label: this.label ?? null,
      limit: this.limit,
      dry: this.dry,
      n: steps.trigger.event.n ?? null,
    };
  },
});`;

const TOKEN = "gho_step_props_secret_0123456789";

describe.each(testDatabases())("code steps with props on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let account: string;
  let bobs: string;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
    account = (await alice.client.createAccount({ app: "github", auth: { oauth_access_token: TOKEN } })).id;
    bobs = (
      await bob.client.createAccount({
        app: "github",
        auth: { oauth_access_token: "gho_bobs_own_token_987654321" },
      })
    ).id;
  }, 60_000);
  afterAll(() => srv?.stop());

  const body = (configured: Record<string, unknown>, code = CODE): CreateWorkflowBody => ({
    name: "props",
    active: true,
    steps: [{ name: "s", code, configured_props: configured }],
  });

  it(
    "a run reads its props as this.<prop>: the account's credentials, typed values, defaults; the token is hidden in the record",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow(
        body({ github: { authProvisionId: account }, label: "hi", dry: true }),
      );
      expect(wf.steps[0]).toMatchObject({
        name: "s",
        configured_props: { github: { authProvisionId: account }, label: "hi", dry: true },
      });
      // What the workflow answers holds the reference, never the credentials.
      expect(JSON.stringify(wf)).not.toContain(TOKEN);
      expect((await alice.client.getAccount(account)).used_by).toBe(1);

      const test = await alice.client.testWorkflow(wf.id, { event: { n: 3 } });
      expect(test.status).toBe("success");
      expect(test.steps[0]!.return_value).toEqual({
        app: "github",
        token_ok: true,
        token: "****",
        label: "hi",
        limit: 10,
        dry: true,
        n: 3,
      });
      expect(test.steps[0]!.logs.map((l) => l.message)).toEqual(["token ****"]);
      expect(JSON.stringify(test)).not.toContain(TOKEN);

      // A production run takes the same path.
      expect((await sendJson(wf.endpoint_url, { n: 4 })).status).toBe(200);
      const run = await until("the production run", async () => {
        const r = (await alice.client.listWorkflowRuns(wf.id)).data[0];
        return r && r.status === "success" ? r : undefined;
      });
      const full: Run = await alice.client.getWorkflowRun(wf.id, run.id);
      expect(full.steps[0]!.return_value).toMatchObject({ token_ok: true, token: "****", limit: 10 });
      expect(full.steps[0]!.logs.map((l) => l.message)).toEqual(["token ****"]);

      // The account is the workflow's to use: it cannot be deleted while the step uses it.
      await expectApiError(alice.client.deleteAccount(account), 409, "account_in_use");
      await alice.client.deleteWorkflow(wf.id);
      expect((await alice.client.getAccount(account)).used_by).toBe(0);
    },
  );

  it(
    "each bad value is 400 invalid_step naming the step and the prop, and changes nothing",
    { timeout: 60_000 },
    async () => {
      const good = { github: { authProvisionId: account }, dry: false };
      const wf = await alice.client.createWorkflow(body(good));
      const before = (await alice.client.listMyWorkflows()).page_info.total_count;
      const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
        ["missing required", { github: { authProvisionId: account } }, "dry", /required/],
        ["wrong type", { ...good, limit: "10" }, "limit", /must be an integer/],
        ["not whole", { ...good, limit: 2.5 }, "limit", /must be an integer/],
        ["string for boolean", { ...good, dry: "true" }, "dry", /true or false/],
        [
          "unknown prop",
          { ...good, nope: 1 },
          "nope",
          /not a prop of this step's code \(its props: github, label, limit, dry\)/,
        ],
        [
          "inline credentials",
          { ...good, github: { $auth: { oauth_access_token: "x" } } },
          "github",
          /connected account/,
        ],
        ["another user's account", { ...good, github: { authProvisionId: bobs } }, "github", /not found/],
        [
          "a missing account",
          { ...good, github: { authProvisionId: "apn_doesnotexist" } },
          "github",
          /not found/,
        ],
      ];
      const messages: Record<string, string> = {};
      for (const [what, configured, prop, message] of cases) {
        const onCreate = await expectApiError(
          alice.client.createWorkflow(body(configured)),
          400,
          "invalid_step",
        );
        expect(onCreate.details, what).toContainEqual({
          path: `steps.s.configured_props.${prop}`,
          message: expect.stringMatching(message),
        });
        const onUpdate = await expectApiError(
          alice.client.updateWorkflow(wf.id, {
            steps: [{ name: "s", code: CODE, configured_props: configured }],
            base_version: 1,
          }),
          400,
          "invalid_step",
        );
        expect(onUpdate.details, what).toEqual(onCreate.details);
        messages[what] = onCreate.message;
      }
      // Another user's account looks exactly like one that does not exist.
      expect(messages["another user's account"]!.replace(bobs, "ID")).toBe(
        messages["a missing account"]!.replace("apn_doesnotexist", "ID"),
      );
      // Nothing was made or changed.
      expect((await alice.client.listMyWorkflows()).page_info.total_count).toBe(before);
      expect(await alice.client.getWorkflow(wf.id)).toMatchObject({
        version: 1,
        steps: [{ configured_props: good }],
      });

      // A prop of a type code steps do not take, and values on a step that declares none.
      const dir = `export default defineComponent({ props: { tmp: { type: "dir" } }, async run() { return 1; } })`;
      const e1 = await expectApiError(alice.client.createWorkflow(body({}, dir)), 400, "invalid_step");
      expect(e1.details).toEqual([
        {
          path: "steps.s.configured_props.tmp",
          message: expect.stringMatching(/props of type "dir" are not supported in a code step/),
        },
      ]);
      const plain = `export default defineComponent({ async run() { return 1; } })`;
      const e2 = await expectApiError(
        alice.client.createWorkflow(body({ x: 1 }, plain)),
        400,
        "invalid_step",
      );
      expect(e2.details).toEqual([
        { path: "steps.s.configured_props.x", message: "not a prop of this step's code (it declares none)" },
      ]);
      // `props` stays an action step's.
      await expectApiError(
        alice.client.createWorkflow({ name: "p", steps: [{ name: "s", code: plain, props: { x: 1 } }] }),
        400,
      );
    },
  );

  it(
    "a draft takes bad props and lists them; its deploy is refused until they are right",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow(body({ github: { authProvisionId: account }, dry: true }));
      const draft = await alice.client.updateWorkflowDraft(wf.id, {
        steps: [
          { name: "s", code: CODE, configured_props: { github: { authProvisionId: bobs }, limit: "many" } },
        ],
      });
      expect(draft.step_props?.s?.map((p) => [p.name, p.type])).toEqual([
        ["github", "app"],
        ["label", "string"],
        ["limit", "integer"],
        ["dry", "boolean"],
      ]);
      expect(draft.problems).toEqual([
        {
          step: "s",
          prop: "github",
          line: null,
          column: null,
          message: `prop github: account ${bobs} not found`,
        },
        {
          step: "s",
          prop: "limit",
          line: null,
          column: null,
          message: expect.stringMatching(/^prop limit: must be an integer/),
        },
        {
          step: "s",
          prop: "dry",
          line: null,
          column: null,
          message: expect.stringMatching(/^prop dry: required/),
        },
      ]);
      const refused = await expectApiError(
        alice.client.deployWorkflowDraft(wf.id, { base_version: 1 }),
        400,
        "invalid_step",
      );
      expect(refused.details?.map((d) => d.path)).toEqual([
        "steps.s.configured_props.github",
        "steps.s.configured_props.limit",
        "steps.s.configured_props.dry",
      ]);
      // A test of the draft is refused the same way (its values are not right yet).
      await expectApiError(alice.client.testWorkflow(wf.id, { event: {} }), 400, "invalid_step");
      expect((await alice.client.getWorkflow(wf.id)).version).toBe(1);

      const fixed = await alice.client.updateWorkflowDraft(wf.id, {
        steps: [
          {
            name: "s",
            code: CODE,
            configured_props: { github: { authProvisionId: account }, limit: 3, dry: false, label: "draft" },
          },
        ],
      });
      expect(fixed.problems).toEqual([]);
      const tested = await alice.client.testWorkflow(wf.id, { event: {} });
      expect(tested.steps[0]!.return_value).toMatchObject({
        label: "draft",
        limit: 3,
        dry: false,
        token_ok: true,
      });
      const deployed = await alice.client.deployWorkflowDraft(wf.id, { base_version: 1 });
      expect(deployed).toMatchObject({
        version: 2,
        steps: [{ configured_props: { label: "draft", limit: 3, dry: false } }],
      });
      const v2 = await alice.client.getWorkflowVersion(wf.id, 2);
      expect(v2.workflow.steps[0]!.configured_props).toEqual({
        github: { authProvisionId: account },
        limit: 3,
        dry: false,
        label: "draft",
      });
    },
  );

  it(
    "a restore whose account is gone is refused; the same values again make no version",
    { timeout: 60_000 },
    async () => {
      const other = (
        await alice.client.createAccount({
          app: "github",
          auth: { oauth_access_token: "gho_another_one_5555555555" },
        })
      ).id;
      const code = CODE.replace(
        `github: { type: "app", app: "github" }`,
        `github: { type: "app", app: "github", optional: true }`,
      );
      const wf = await alice.client.createWorkflow(
        body({ github: { authProvisionId: other }, dry: true }, code),
      );
      const same = await alice.client.updateWorkflow(wf.id, {
        steps: [{ name: "s", code, configured_props: { github: { authProvisionId: other }, dry: true } }],
      });
      expect(same.version).toBe(1);
      const v2 = await alice.client.updateWorkflow(wf.id, {
        steps: [{ name: "s", code, configured_props: { dry: true } }],
      });
      expect(v2.version).toBe(2);
      // No longer used, the account can go; version 1 then names an account that does not exist.
      await alice.client.deleteAccount(other);
      const e = await expectApiError(alice.client.restoreWorkflowVersion(wf.id, 1), 400, "invalid_step");
      expect(e.details).toEqual([
        { path: "steps.s.configured_props.github", message: `account ${other} not found` },
      ]);
      expect((await alice.client.getWorkflow(wf.id)).version).toBe(2);
    },
  );
});
