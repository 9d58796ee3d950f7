/**
 * A workflow run's data store writes are made once per attempt (docs/api.md "Data stores"): a
 * server killed with kill -9 while a run's step waits after its increments runs the run again
 * after its restart, and the increments it made before the kill are not made again; a retry by
 * the workflow's retry policy (the step threw) is a new attempt, and its increment counts.
 */
import { afterAll, describe, expect, it } from "vitest";
import { type Client } from "../../shared/client/index.js";
import type { Run } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { crashableServer } from "../support/crash-server.js";
import { until } from "../workflows/helpers.js";

/** A code step with a data store prop `store`. */
const withStore = (body: string) => `export default defineComponent({
  props: { store: { type: "data_store" } },
  async run({ steps, $ }) { ${body} },
});`;

const value = async (client: Client, store: string, key: string) => {
  try {
    return (await client.getDataStoreRecord(store, key)).value;
  } catch {
    return undefined;
  }
};

describe.each(testDatabases())("a run's data store writes across kill -9 on $name", (db) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it(
    "makes a step's increments once when the run runs again after the restart; a retry makes them again",
    { timeout: 120_000 },
    async () => {
      const crash = await crashableServer(db, cleanups);
      let { server, client } = crash;
      const store = await client.createDataStore("counts");

      // One increment, five more of another key (and a set), then a wait: the kill comes in it.
      const counting = await client.createWorkflow({
        name: "counting",
        steps: [
          {
            name: "count",
            code: withStore(`
              const once = await this.store.increment("once");
              for (let i = 0; i < 5; i++) await this.store.increment("five");
              await this.store.set("last", once);
              await new Promise((r) => setTimeout(r, 2500));
              return once;`),
            configured_props: { store: store.id },
          },
          {
            name: "after",
            code: withStore(`return await this.store.increment("after");`),
            configured_props: { store: store.id },
          },
        ],
      });
      // Throws on its first attempt, after its increment: the retry increments again.
      const retried = await client.createWorkflow({
        name: "retried",
        retry: { max_attempts: 2, initial_delay_seconds: 1, max_delay_seconds: 1 },
        steps: [
          {
            name: "try",
            code: withStore(`
              const n = await this.store.increment("tries");
              if (n < 2) throw new Error("not yet");
              return n;`),
            configured_props: { store: store.id },
          },
        ],
      });

      const res = await fetch(`${server.origin}/e/${counting.id}`, { method: "POST", body: "{}" });
      expect(res.status).toBe(200);
      const runId = res.headers.get("x-headwater-run-id")!;
      // The step has made its writes and waits: kill the whole server, workers and all.
      await until("the step's increments", async () =>
        (await value(client, store.id, "last")) === 1 ? true : undefined,
      );
      expect(await value(client, store.id, "five")).toBe(5);
      await server.killGroup();

      ({ server, client } = await crash.restart());
      const run: Run = await until("the run to end after the restart", async () => {
        const r = await client.getWorkflowRun(counting.id, runId);
        return r.status === "running" || r.status === "queued" ? undefined : r;
      });
      expect(run.status).toBe("success");
      expect(run.steps.map((s) => [s.name, s.status, s.return_value])).toEqual([
        ["count", "success", 1],
        ["after", "success", 1],
      ]);
      expect(await value(client, store.id, "once")).toBe(1);
      expect(await value(client, store.id, "five")).toBe(5);
      expect(await value(client, store.id, "after")).toBe(1);

      // A new run of the same workflow is a new run: its writes are made.
      const again = await fetch(`${server.origin}/e/${counting.id}`, { method: "POST", body: "{}" });
      const againId = again.headers.get("x-headwater-run-id")!;
      const second = await until("the second run to end", async () => {
        const r = await client.getWorkflowRun(counting.id, againId);
        return r.status === "success" || r.status === "error" ? r : undefined;
      });
      expect(second.steps.map((s) => s.return_value)).toEqual([2, 2]);
      expect(await value(client, store.id, "five")).toBe(10);

      const tried = await fetch(`${server.origin}/e/${retried.id}`, { method: "POST", body: "{}" });
      const triedId = tried.headers.get("x-headwater-run-id")!;
      const retriedRun = await until("the retried run to end", async () => {
        const r = await client.getWorkflowRun(retried.id, triedId);
        return r.status === "success" || r.status === "error" ? r : undefined;
      });
      expect(retriedRun.status).toBe("success");
      expect((retriedRun.attempts ?? []).map((a) => a.status)).toEqual(["error", "success"]);
      expect(retriedRun.steps[0]?.return_value).toBe(2);
      expect(await value(client, store.id, "tries")).toBe(2);
    },
  );
});
