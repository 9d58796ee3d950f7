/**
 * kill -9 while runs are retrying, delayed or throttled: after the restart each goes on once, at
 * its time, and none runs twice (its last step emits once; its record says success).
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { crashableServer } from "../support/crash-server.js";
import { sleep, step } from "../delivery/helpers.js";
import { sendJson as post, until } from "./helpers.js";

describe.each(testDatabases())("execution controls across kill -9 on $name", (db) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it(
    "resumes retrying, delayed and throttled runs once each, at their time",
    { timeout: 120_000 },
    async () => {
      const crash = await crashableServer(db, cleanups);
      let { server, client } = crash;
      const endpoint = (id: string) => `${server.origin}/e/${id}`;

      // Fails while the request's deadline has not passed, so the attempt after the restart succeeds.
      const retried = await client.createWorkflow({
        name: "retried",
        retry: { max_attempts: 3, initial_delay_seconds: 3, max_delay_seconds: 3 },
        steps: [
          {
            name: "call",
            code: step(
              `if (Date.now() < steps.trigger.event.body.okAfter) throw new Error("not yet"); $.send.emit("retried done"); return 1;`,
            ),
          },
        ],
      });
      const delayed = await client.createWorkflow({
        name: "delayed",
        steps: [
          { name: "wait", code: step(`return $.flow.delay(3000);`) },
          { name: "send", code: step(`$.send.emit("delayed done"); return Date.now();`) },
        ],
      });
      const throttled = await client.createWorkflow({
        name: "throttled",
        throttle: { limit: 1, period_seconds: 3 },
        steps: [{ name: "s", code: step(`$.send.emit(steps.trigger.event.body.i); return Date.now();`) }],
      });

      const r1 = (await post(endpoint(retried.id), { okAfter: Date.now() + 2000 })).headers.get(
        "x-headwater-run-id",
      )!;
      const r2 = (await post(endpoint(delayed.id), {})).headers.get("x-headwater-run-id")!;
      const r3: string[] = [];
      for (let i = 0; i < 3; i++)
        r3.push((await post(endpoint(throttled.id), { i })).headers.get("x-headwater-run-id")!);
      const status = (wf: string, id: string, want: Run["status"]) =>
        until(`${id} ${want}`, async () =>
          (await client.getWorkflowRun(wf, id)).status === want ? true : undefined,
        );
      await status(retried.id, r1, "retrying");
      await status(delayed.id, r2, "delayed");
      await status(throttled.id, r3[2]!, "queued");
      const resumeAt = (await client.getWorkflowRun(delayed.id, r2)).resume_at_ms!;
      await server.killGroup();

      ({ server, client } = await crash.restart());
      const done = (wf: string, id: string) =>
        until(`${id} to end`, async () => {
          const r = await client.getWorkflowRun(wf, id);
          return r.status === "success" || r.status === "error" ? r : undefined;
        });
      const a = await done(retried.id, r1);
      expect(a).toMatchObject({ status: "success" });
      expect(a.attempt).toBeGreaterThan(1);
      const b = await done(delayed.id, r2);
      expect(b.status).toBe("success");
      expect(b.steps[1]!.return_value as number).toBeGreaterThanOrEqual(resumeAt);
      const c = await Promise.all(r3.map((id) => done(throttled.id, id)));
      // Admitted a period apart, also those that were due during the restart.
      const starts = c.map((r) => r.started_at_ms!).sort((x, y) => x - y);
      for (let i = 1; i < starts.length; i++)
        expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(2900);

      await sleep(1000);
      const emitted = async (id: string) =>
        (await client.listWorkflowEvents(id, { limit: 100 })).data.map(
          (e) => (e.event as { raw_event: unknown }).raw_event,
        );
      expect(await emitted(retried.id)).toEqual(["retried done"]);
      expect(await emitted(delayed.id)).toEqual(["delayed done"]);
      expect((await emitted(throttled.id)).sort()).toEqual([0, 1, 2]);
      for (const [wf, n] of [
        [retried.id, 1],
        [delayed.id, 1],
        [throttled.id, 3],
      ] as const) {
        expect((await client.listWorkflowRuns(wf, { limit: 100 })).data.length).toBe(n);
      }
    },
  );
});
