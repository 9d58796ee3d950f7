/**
 * Two instances on one PostgreSQL database tick a workflow's schedule together: each tick starts
 * exactly one run (decisions.md "Workflow triggers": exactly one run per tick across every
 * instance), whichever instance claims it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sleep, step } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { startSecondInstance, startServer, type TestServer, type TestUser } from "../support/server.js";

const postgres = testDatabases().find((d) => d.name === "postgres");

// Skipped without HEADWATER_TEST_DATABASE_URL: instances share a database only on PostgreSQL.
describe.skipIf(!postgres)("schedules across two instances on one PostgreSQL database", () => {
  let first: TestServer;
  let second: Awaited<ReturnType<typeof startSecondInstance>>;
  let alice: TestUser;

  beforeAll(async () => {
    first = await startServer({ db: postgres! });
    second = await startSecondInstance(first);
    alice = await first.newUser();
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await first?.stop();
  });

  it("runs each tick once", { timeout: 30_000 }, async () => {
    const wf = await alice.client.createWorkflow({
      name: "shared ticks",
      steps: [{ name: "s", code: step("return steps.trigger.event.scheduled_at_ms;") }],
      schedules: [{ interval_seconds: 1 }],
    });
    await sleep(5_500);
    await alice.client.updateWorkflow(wf.id, { active: false });
    await sleep(1_500);
    const runs = (await alice.client.listWorkflowRuns(wf.id, { limit: 100, expand: "event" })).data;
    const ticks = runs.map((r) => (r.event as { scheduled_at_ms: number }).scheduled_at_ms);
    expect(runs.length).toBeGreaterThanOrEqual(4);
    expect(runs.length).toBeLessThanOrEqual(7);
    expect(new Set(ticks).size, `ticks: ${ticks.join(", ")}`).toBe(ticks.length);
    for (const r of runs) expect(r.trigger).toEqual({ type: "SCHEDULE", schedule: 0 });
  });
});
