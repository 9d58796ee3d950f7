/**
 * Building workflows over the API (decisions.md "Building workflows"), on SQLite and PostgreSQL:
 * every change of a workflow's content is a numbered, immutable version; a stale `base_version`
 * changes nothing; versions are read whole and restored; the one draft keeps work in progress
 * (code that does not parse included) and deploys as the next version.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../shared/client/index.js";
import type { Run } from "../../shared/resources/index.js";
import type { Server } from "../../server/app.js";
import { step } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startSecondInstance, startServer, type TestServer, type TestUser } from "../support/server.js";
import { sendJson, until } from "./helpers.js";

const ended = (r: Run) => ["success", "error", "exited", "cancelled"].includes(r.status);

/** A workflow whose first step waits `delay` ms when the request says so, and whose second answers `said`. */
const twoSteps = (said: string) => [
  { name: "wait", code: step(`const d = steps.trigger.event.body.delay; if (d) return $.flow.delay(d); return 0;`) },
  { name: "say", code: step(`return ${JSON.stringify(said)};`) },
];

describe.each(testDatabases())("workflow versions and drafts on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
  }, 60_000);
  afterAll(() => srv?.stop());

  it("makes a version of each change of content, none of a toggle or a no-op, and refuses a stale base", async () => {
    const wf = await alice.client.createWorkflow({ name: "v", steps: [{ name: "a", code: step("return 1;") }] });
    expect(wf.version).toBe(1);
    const renamed = await alice.client.updateWorkflow(wf.id, { name: "v2", base_version: 1, message: "rename" });
    expect(renamed).toMatchObject({ name: "v2", version: 2 });
    // Turning it off and on, or sending the same content again, makes no version.
    expect((await alice.client.updateWorkflow(wf.id, { active: false })).version).toBe(2);
    expect((await alice.client.updateWorkflow(wf.id, { active: true, name: "v2" })).version).toBe(2);
    // A change made against version 1 is refused whole: nothing changes.
    const stale = await expectApiError(
      alice.client.updateWorkflow(wf.id, { name: "lost", concurrency: 3, base_version: 1 }),
      409,
      "version_conflict",
    );
    expect(stale.details).toEqual([{ path: "base_version", message: "the current version is 2" }]);
    expect(await alice.client.getWorkflow(wf.id)).toMatchObject({ name: "v2", concurrency: 1, version: 2 });
    // Controls and steps are content too.
    const v3 = await alice.client.updateWorkflow(wf.id, { steps: [{ name: "a", code: step("return 3;") }], origin: "push" });
    expect(v3.version).toBe(3);
    expect(v3.deployment_id).not.toBe(wf.deployment_id);

    const list = await alice.client.listWorkflowVersions(wf.id);
    expect(list.data.map((v) => [v.version, v.origin, v.message])).toEqual([
      [3, "push", null],
      [2, "update", "rename"],
      [1, "create", null],
    ]);
    const page = await alice.client.listWorkflowVersions(wf.id, { limit: 2 });
    expect(page.data.map((v) => v.version)).toEqual([3, 2]);
    const rest = await alice.client.listWorkflowVersions(wf.id, { limit: 2, after: page.page_info.end_cursor! });
    expect(rest.data.map((v) => v.version)).toEqual([1]);

    const first = await alice.client.getWorkflowVersion(wf.id, 1);
    expect(first).toMatchObject({ version: 1, origin: "create", workflow: { id: wf.id, name: "v", version: 1 } });
    expect(first.workflow.steps[0]!.code).toBe(step("return 1;"));
  });

  it("restores a version as a new one, with that version's content; history stays linear", async () => {
    const wf = await alice.client.createWorkflow({ name: "r1", steps: [{ name: "a", code: step("return 1;") }] });
    await alice.client.updateWorkflow(wf.id, { name: "r2", steps: [{ name: "a", code: step("return 2;") }], concurrency: 4 });
    await expectApiError(alice.client.restoreWorkflowVersion(wf.id, 1, { base_version: 1 }), 409, "version_conflict");
    const restored = await alice.client.restoreWorkflowVersion(wf.id, 1, { message: "back", base_version: 2 });
    expect(restored).toMatchObject({ name: "r1", version: 3, concurrency: 1 });
    expect(restored.steps[0]!.code).toBe(step("return 1;"));
    const [latest] = (await alice.client.listWorkflowVersions(wf.id)).data;
    expect(latest).toEqual({ version: 3, created_at: expect.any(Number), message: "back", origin: "restore", restored_from: 1 });
    await expectApiError(alice.client.restoreWorkflowVersion(wf.id, 9), 404, "not_found");
    await expectApiError(alice.client.getWorkflowVersion(wf.id, 9), 404, "not_found");
  });

  it("keeps a draft that does not parse, lists its problems, refuses to deploy it, then deploys it fixed", async () => {
    const wf = await alice.client.createWorkflow({ name: "d", steps: [{ name: "a", code: step("return 1;") }] });
    await expectApiError(alice.client.getWorkflowDraft(wf.id), 404, "no_draft");
    const broken = "export default defineComponent({\n  async run() {\n    return (1;\n  }\n});";
    const draft = await alice.client.updateWorkflowDraft(wf.id, {
      steps: [{ name: "a", code: step("return 1;") }, { name: "b", code: broken }],
    });
    expect(draft).toMatchObject({ base_version: 1, workflow: { name: "d", version: 1 } });
    expect(draft.workflow.steps.map((s) => s.name)).toEqual(["a", "b"]);
    // The unchanged step keeps its id.
    expect(draft.workflow.steps[0]!.id).toBe(wf.steps[0]!.id);
    expect(draft.problems).toEqual([{ step: "b", line: 3, column: expect.any(Number), message: expect.any(String) }]);
    // The draft is what was saved, read again; the workflow itself is unchanged.
    expect(await alice.client.getWorkflowDraft(wf.id)).toEqual(draft);
    expect((await alice.client.getWorkflow(wf.id)).steps).toHaveLength(1);
    const refused = await expectApiError(alice.client.deployWorkflowDraft(wf.id), 400, "invalid_step");
    expect(refused.details).toEqual([{ path: "steps.b", message: expect.stringMatching(/^line 3, column \d+: /) }]);
    // Fields it names replace the draft's; the rest stay.
    const fixed = await alice.client.updateWorkflowDraft(wf.id, {
      name: "deployed",
      steps: [{ name: "a", code: step("return 1;") }, { name: "b", code: step("return 2;") }],
    });
    expect(fixed.problems).toEqual([]);
    await expectApiError(alice.client.deployWorkflowDraft(wf.id, { base_version: 2 }), 409, "version_conflict");
    const deployed = await alice.client.deployWorkflowDraft(wf.id, { message: "add b", base_version: 1 });
    expect(deployed).toMatchObject({ name: "deployed", version: 2 });
    expect(deployed.steps.map((s) => s.name)).toEqual(["a", "b"]);
    expect((await alice.client.listWorkflowVersions(wf.id)).data[0]).toMatchObject({ version: 2, origin: "draft", message: "add b" });
    // The draft is gone after its deploy; a new one starts from the current version.
    await expectApiError(alice.client.getWorkflowDraft(wf.id), 404, "no_draft");
    await expectApiError(alice.client.discardWorkflowDraft(wf.id), 404, "no_draft");
    const next = await alice.client.updateWorkflowDraft(wf.id, { name: "again" });
    expect(next).toMatchObject({ base_version: 2, workflow: { name: "again" } });
    expect(next.workflow.steps.map((s) => s.name)).toEqual(["a", "b"]);
    await alice.client.discardWorkflowDraft(wf.id);
    await expectApiError(alice.client.getWorkflowDraft(wf.id), 404, "no_draft");
  });

  it("a run goes on with the version it started with; new runs and re-runs take the current one, or the one named", { timeout: 60_000 }, async () => {
    const wf = await alice.client.createWorkflow({ name: "kept", steps: twoSteps("v1") });
    const whenEnded = (id: string) =>
      until(`run ${id}`, async () => {
        const r = await alice.client.getWorkflowRun(wf.id, id);
        return ended(r) ? r : undefined;
      });
    const waiting = (await sendJson(wf.endpoint_url, { delay: 700 })).headers.get("x-headwater-run-id")!;
    await until("delayed", async () => ((await alice.client.getWorkflowRun(wf.id, waiting)).status === "delayed" ? true : undefined));
    expect((await alice.client.updateWorkflow(wf.id, { steps: twoSteps("v2") })).version).toBe(2);
    // Deployed while it waited: it ends with version 1's second step.
    const first = await whenEnded(waiting);
    expect(first).toMatchObject({ status: "success", version: 1, steps: [{ status: "success" }, { return_value: "v1" }] });
    const now = (await sendJson(wf.endpoint_url, {})).headers.get("x-headwater-run-id")!;
    expect(await whenEnded(now)).toMatchObject({ version: 2, steps: [{}, { return_value: "v2" }] });
    const again = await alice.client.rerunWorkflowRun(wf.id, waiting);
    expect(await whenEnded(again.id)).toMatchObject({ version: 2, steps: [{}, { return_value: "v2" }] });
    const older = await alice.client.rerunWorkflowRun(wf.id, waiting, { version: 1 });
    expect(await whenEnded(older.id)).toMatchObject({ version: 1, steps: [{}, { return_value: "v1" }] });
    await expectApiError(alice.client.rerunWorkflowRun(wf.id, waiting, { version: 9 }), 400);
  });

  it("answers 404 for another user's workflow, versions and draft, and 400 for a version that is no number", async () => {
    const wf = await alice.client.createWorkflow({ name: "mine", steps: [{ code: step("return 1;") }] });
    await alice.client.updateWorkflowDraft(wf.id, { name: "my draft" });
    await expectApiError(bob.client.listWorkflowVersions(wf.id), 404, "not_found");
    await expectApiError(bob.client.getWorkflowVersion(wf.id, 1), 404, "not_found");
    await expectApiError(bob.client.restoreWorkflowVersion(wf.id, 1), 404, "not_found");
    await expectApiError(bob.client.getWorkflowDraft(wf.id), 404, "not_found");
    await expectApiError(bob.client.updateWorkflowDraft(wf.id, { name: "theirs" }), 404, "not_found");
    await expectApiError(bob.client.discardWorkflowDraft(wf.id), 404, "not_found");
    await expectApiError(bob.client.deployWorkflowDraft(wf.id), 404, "not_found");
    await expectApiError(bob.client.updateWorkflow(wf.id, { name: "theirs", base_version: 1 }), 404, "not_found");
    expect((await alice.client.getWorkflowDraft(wf.id)).workflow.name).toBe("my draft");
    const res = await fetch(`${srv.baseUrl}/workflows/${wf.id}/versions/one`, { headers: { authorization: `Bearer ${alice.key}` } });
    expect(res.status).toBe(400);
  });
});

const postgres = testDatabases().find((d) => d.name === "postgres");

// Skipped without HEADWATER_TEST_DATABASE_URL: instances share a database only on PostgreSQL.
describe.skipIf(!postgres)("workflow versions across two instances on one PostgreSQL database", () => {
  let first: TestServer;
  let secondInstance: Awaited<ReturnType<typeof startSecondInstance>>;
  let second: Server;
  let alice: TestUser;

  beforeAll(async () => {
    first = await startServer({ db: postgres! });
    secondInstance = await startSecondInstance(first);
    second = secondInstance.server;
    alice = await first.newUser();
  }, 60_000);
  afterAll(async () => {
    await secondInstance?.close();
    await first?.stop();
  });

  it("a version deployed on one instance is the one the other runs; a stale base from either is refused", { timeout: 60_000 }, async () => {
    const wf = await alice.client.createWorkflow({ name: "shared", http_response: "workflow", steps: [{ code: step(`await $.respond({ body: "v1" });`) }] });
    const onSecond = createClient({ baseUrl: `${second.url}/v1`, apiKey: alice.key });
    const call = async () => (await sendJson(`${second.url}/e/${wf.id}`, {})).text();
    expect(await call()).toBe("v1");
    await alice.client.updateWorkflowDraft(wf.id, { steps: [{ code: step(`await $.respond({ body: "v2" });`) }] });
    expect((await alice.client.deployWorkflowDraft(wf.id, { base_version: 1 })).version).toBe(2);
    expect(await call()).toBe("v2");
    await expectApiError(onSecond.updateWorkflow(wf.id, { name: "late", base_version: 1 }), 409, "version_conflict");
  });
});
