/**
 * A server killed with kill -9 in the middle of a run runs it after its restart and records it
 * once: the run is never left `running`, and its emit is stored once.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { crashableServer } from "../support/crash-server.js";
import { sleep, step } from "../delivery/helpers.js";
import { until } from "./helpers.js";

describe.each(testDatabases())("runs across kill -9 on $name", (db) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it(
    "runs a run cut short by kill -9 after the restart, and records it once",
    { timeout: 120_000 },
    async () => {
      const crash = await crashableServer(db, cleanups);
      const { server } = crash;
      let { client } = crash;

      const wf = await client.createWorkflow({
        name: "slow",
        steps: [
          {
            name: "wait",
            code: step(
              `await new Promise((r) => setTimeout(r, 1500)); $.send.emit({ n: steps.trigger.event.body.n }); return "waited";`,
            ),
          },
          { name: "after", code: step(`return "after";`) },
        ],
      });
      const res = await fetch(`${server.origin}/e/${wf.id}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"n":1}',
      });
      expect(res.status).toBe(200);
      const runId = res.headers.get("x-headwater-run-id")!;
      // The run is under way (its step waits): kill the whole server, workers and all.
      await until("the run to start", async () =>
        (await client.getWorkflowRun(wf.id, runId)).status === "running" ? true : undefined,
      );
      await server.killGroup();

      ({ client } = await crash.restart());
      const run: Run = await until("the run to end after the restart", async () => {
        const r = await client.getWorkflowRun(wf.id, runId);
        return r.status === "running" ? undefined : r;
      });
      expect(run.status).toBe("success");
      expect(run.steps.map((s) => [s.name, s.status, s.return_value])).toEqual([
        ["wait", "success", "waited"],
        ["after", "success", "after"],
      ]);
      await sleep(500);
      const runs = await client.listWorkflowRuns(wf.id, { limit: 100 });
      expect(runs.data.map((r) => [r.id, r.status])).toEqual([[runId, "success"]]);
      const emitted = await client.listWorkflowEvents(wf.id, { limit: 100 });
      expect(emitted.data.map((e) => e.event)).toEqual([{ raw_event: { n: 1 } }]);
    },
  );
});
