/**
 * Workflow runs with two server processes on one PostgreSQL database: the runs of both are one
 * list, a stream followed on one instance hears of runs the other ran, a caller waiting for
 * `$.respond` is answered whichever instance ran the workflow, and a workflow's concurrency holds
 * across both.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { step } from "../delivery/helpers.js";
import { readRuns } from "../workflows/helpers.js";
import { postgresForScale, startCluster, type Cluster } from "./cluster.js";

const send = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe.skipIf(!postgresForScale())("workflow runs across instances", () => {
  let cluster: Cluster;

  beforeAll(async () => {
    cluster = await startCluster(["a", "b"]);
  }, 180_000);
  afterAll(() => cluster?.stop());

  it(
    "lists and streams the runs of both instances as one, and answers callers from either",
    { timeout: 90_000 },
    async () => {
      const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
      const wf = await a.client.createWorkflow({
        name: "shared",
        http_response: "workflow",
        steps: [
          {
            name: "reply",
            code: step(
              `await $.respond({ status: 200, body: { i: steps.trigger.event.body.i } }); return steps.trigger.event.body.i;`,
            ),
          },
        ],
      });

      // Follow the runs on a only.
      const ac = new AbortController();
      const stream = await fetch(a.client.workflowRunsStreamUrl(wf.id), {
        headers: { authorization: `Bearer ${cluster.apiKey}` },
        signal: ac.signal,
      });
      expect(stream.status).toBe(200);
      const ended = new Set<string>();
      const reading = readRuns(stream, (run) => {
        if (run.status === "success") ended.add(run.id);
      });

      const ids: string[] = [];
      for (let i = 0; i < 10; i++) {
        const via = i % 2 === 0 ? a : b;
        const res = await send(`${via.server.origin}/e/${wf.id}`, { i });
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ i });
        ids.push(res.headers.get("x-headwater-run-id")!);
      }
      const deadline = Date.now() + 20_000;
      while (ids.some((id) => !ended.has(id)) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      ac.abort();
      await reading;
      expect(ids.filter((id) => !ended.has(id))).toEqual([]);

      const fromA = await a.client.listWorkflowRuns(wf.id, { limit: 100 });
      const fromB = await b.client.listWorkflowRuns(wf.id, { limit: 100 });
      expect(fromA.data.map((r) => r.id).sort()).toEqual([...ids].sort());
      expect(fromB.data.map((r) => r.id)).toEqual(fromA.data.map((r) => r.id));
      expect(fromA.data.every((r) => r.status === "success")).toBe(true);
    },
  );

  it("holds a workflow's concurrency across both instances", { timeout: 90_000 }, async () => {
    const [a, b] = cluster.instances as [(typeof cluster.instances)[0], (typeof cluster.instances)[0]];
    const wf = await a.client.createWorkflow({
      name: "two at once",
      concurrency: 2,
      steps: [
        {
          name: "wait",
          code: step(
            `const t = Date.now(); await new Promise((r) => setTimeout(r, 800)); return { t, end: Date.now() };`,
          ),
        },
      ],
    });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++) {
      const via = i % 2 === 0 ? a : b;
      ids.push((await send(`${via.server.origin}/e/${wf.id}`, { i })).headers.get("x-headwater-run-id")!);
    }
    const deadline = Date.now() + 60_000;
    let runs: Run[] = [];
    while (Date.now() < deadline) {
      runs = (await b.client.listWorkflowRuns(wf.id, { limit: 100 })).data;
      if (runs.length === 8 && runs.every((r) => r.status === "success")) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(runs.map((r) => r.id).sort()).toEqual([...ids].sort());
    expect(runs.every((r) => r.status === "success")).toBe(true);
    const spans = runs.map((r) => r.steps[0]!.return_value as { t: number; end: number });
    const most = Math.max(...spans.map((s) => spans.filter((o) => o.t <= s.t && s.t < o.end).length));
    expect(most).toBe(2);
  });
});
