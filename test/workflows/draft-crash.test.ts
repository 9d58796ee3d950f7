/**
 * A draft never loses an acknowledged save: a server killed with kill -9 right after answering a
 * draft's PUT, and after a deploy, has both after its restart.
 */
import { afterAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { crashableServer } from "../support/crash-server.js";
import { step } from "../delivery/helpers.js";

describe.each(testDatabases())("drafts across kill -9 on $name", (db) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it("keeps every acknowledged draft save and deploy after kill -9", { timeout: 120_000 }, async () => {
    const crash = await crashableServer(db, cleanups);
    let { server, client } = crash;

    const wf = await client.createWorkflow({
      name: "drafted",
      steps: [{ name: "a", code: step(`return 1;`) }],
    });
    // Saves as the builder's autosave sends them, one after the other; the kill follows the last answer at once.
    let last = "";
    for (let i = 1; i <= 20; i++) {
      last = step(`return ${i};`);
      await client.updateWorkflowDraft(wf.id, { steps: [{ name: "a", code: last }] });
    }
    await server.killGroup();

    ({ server, client } = await crash.restart());
    const draft = await client.getWorkflowDraft(wf.id);
    expect(draft.workflow.steps[0]?.code).toBe(last);
    expect(draft.base_version).toBe(1);

    const deployed = await client.deployWorkflowDraft(wf.id, { message: "twenty", base_version: 1 });
    expect(deployed.version).toBe(2);
    await server.killGroup();

    ({ client } = await crash.restart());
    const after = await client.getWorkflow(wf.id);
    expect([after.version, after.steps[0]?.code]).toEqual([2, last]);
    const versions = await client.listWorkflowVersions(wf.id);
    expect(versions.data.map((v) => [v.version, v.origin, v.message])).toEqual([
      [2, "draft", "twenty"],
      [1, "create", null],
    ]);
    await expect(client.getWorkflowDraft(wf.id)).rejects.toMatchObject({ status: 404, code: "no_draft" });
  });
});
