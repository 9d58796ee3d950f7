/**
 * Runs under faults (decisions.md "Runs under faults"), on SQLite and PostgreSQL: a cancel
 * answered 200 means that no step of the run starts after it; a run is readable from the moment
 * its id is handed out; turning a workflow off parks its waiting runs (they go on when it is
 * turned on); deleting it leaves nothing of its runs or its queue behind.
 *
 * The races are made deterministic with a gate: each step asks a server of this test for its
 * turn, and the test answers when it wants the step to end. Nothing is timed.
 */
import http from "node:http";
import path from "node:path";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { SQLite as Database } from "../../shared/sqlite-native.js";
import { sleep, step } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sendJson, until } from "./helpers.js";

/** A server whose requests (`/?i=<n>`) are held until the test lets them go. */
class Gate {
  readonly arrived: number[] = [];
  private readonly held = new Map<number, () => void>();
  private readonly server = http.createServer((req, res) => {
    const i = Number(new URL(req.url ?? "/", "http://gate").searchParams.get("i"));
    this.arrived.push(i);
    this.held.set(i, () => res.end("go"));
  });
  url = "";

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/`;
  }
  /** Resolves once the step of run `i` asked for its turn. */
  reached(i: number): Promise<true> {
    return until(`step ${i} at the gate`, async () => (this.arrived.includes(i) ? true : undefined));
  }
  release(i: number): void {
    this.held.get(i)?.();
    this.held.delete(i);
  }
  close(): void {
    for (const go of this.held.values()) go();
    this.server.closeAllConnections();
    this.server.close();
  }
}

const ended = (r: Run) => ["success", "error", "exited", "cancelled"].includes(r.status);

describe.each(testDatabases())("runs under faults on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let gate: Gate;
  /** A step's code that waits at the gate with the request's `i`, then returns it. */
  let atGate: string;
  /** A step of that code alone. */
  let gated: string;
  /** A step that delays the run when the request says `delay`, else waits at the gate. */
  let delayOrGate: string;

  beforeAll(async () => {
    gate = new Gate();
    await gate.start();
    atGate = `const i = steps.trigger.event.body.i; await fetch(${JSON.stringify(gate.url)} + "?i=" + i); return i;`;
    gated = step(atGate);
    delayOrGate = step(`const b = steps.trigger.event.body; if (b.delay) return $.flow.delay(b.delay); ${atGate}`);
    srv = await startServer({ db, env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1" } });
    alice = await srv.newUser();
  }, 60_000);
  afterAll(async () => {
    gate?.close();
    await srv?.stop();
  });

  const runOf = async (url: string, i: number) => {
    const res = await sendJson(url, { i });
    expect(res.status).toBe(200);
    return res.headers.get("x-headwater-run-id")!;
  };
  const get = (wf: string, id: string) => alice.client.getWorkflowRun(wf, id);
  const whenEnded = (wf: string, id: string) =>
    until(`run ${id} ended`, async () => {
      const r = await get(wf, id);
      return ended(r) ? r : undefined;
    });

  /** Rows of the server's database, read from a connection of its own. */
  async function rows(statement: string, param: string): Promise<unknown[]> {
    if (srv.databaseUrl) {
      const c = new pg.Client({ connectionString: srv.databaseUrl });
      await c.connect();
      try {
        return (await c.query(statement.replace("?", "$1"), [param])).rows;
      } finally {
        await c.end();
      }
    }
    const file = new Database(path.join(srv.dataDir, "headwater.db"), { readonly: true });
    try {
      return file.prepare(statement).all(param);
    } finally {
      file.close();
    }
  }

  it(
    "a run is readable at once; a cancel answered 200 means it never starts, one that started is 409",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow({ name: "gated", steps: [{ name: "wait", code: gated }] });
      const first = await runOf(wf.endpoint_url, 1);
      await gate.reached(1);
      const ids = [first, await runOf(wf.endpoint_url, 2), await runOf(wf.endpoint_url, 3), await runOf(wf.endpoint_url, 4)];
      // Waiting behind run 1, and only a job so far: readable (and listed as queued) at once.
      expect(await get(wf.id, ids[2]!)).toMatchObject({ id: ids[2], status: "queued", started_at_ms: null });
      // Run 1 ends; runs 2 to 4 are read as one batch, and run 2 starts while 3 and 4 wait in it.
      gate.release(1);
      await gate.reached(2);
      // Running from its first step, even before its row is written.
      expect(await get(wf.id, ids[1]!)).toMatchObject({ status: "running", started_at_ms: expect.any(Number) });
      await expectApiError(alice.client.cancelWorkflowRun(wf.id, ids[1]!), 409, "run_not_cancellable");
      const cancelled = await alice.client.cancelWorkflowRun(wf.id, ids[2]!);
      expect(cancelled).toMatchObject({ id: ids[2], status: "cancelled" });
      gate.release(2);
      await gate.reached(4);
      gate.release(4);
      expect((await whenEnded(wf.id, ids[3]!)).status).toBe("success");
      // Run 3 never reached its step, and stays cancelled.
      expect(gate.arrived.filter((i) => i >= 1 && i <= 4)).toEqual([1, 2, 4]);
      expect(await get(wf.id, ids[2]!)).toMatchObject({ status: "cancelled" });
      expect((await get(wf.id, ids[1]!)).status).toBe("success");
    },
  );

  it(
    "under concurrency, a run still queued in a run target's batch is cancelled for good",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow({ name: "two at once", concurrency: 2, steps: [{ code: gated }] });
      const ids: string[] = [];
      for (const i of [11, 12]) ids.push(await runOf(wf.endpoint_url, i));
      await gate.reached(11);
      await gate.reached(12);
      for (const i of [13, 14, 15, 16]) ids.push(await runOf(wf.endpoint_url, i));
      // Each slot's runner reads its queued runs as one batch when its running one ends.
      await until("runs placed", async () =>
        (await rows("select id from runs where workflow_id = ? and status = 'queued'", wf.id)).length === 4 ? true : undefined,
      );
      gate.release(11);
      gate.release(12);
      await until("two more started", async () => (gate.arrived.filter((i) => i >= 13).length === 2 ? true : undefined));
      const started = gate.arrived.filter((i) => i >= 13);
      const waiting = [13, 14, 15, 16].filter((i) => !started.includes(i));
      for (const i of started) expect((await get(wf.id, ids[i - 11]!)).status).toBe("running");
      for (const i of waiting) expect((await alice.client.cancelWorkflowRun(wf.id, ids[i - 11]!)).status).toBe("cancelled");
      for (const i of started) gate.release(i);
      for (const i of started) expect((await whenEnded(wf.id, ids[i - 11]!)).status).toBe("success");
      // Give a wrongly started run every chance to show up: the slots' queues are empty now.
      await until("queues drained", async () => ((await rows("select id from jobs where target_id like ?", `${wf.id}%`)).length === 0 ? true : undefined));
      expect(gate.arrived.filter((i) => i >= 13).sort()).toEqual(started.sort());
      for (const i of waiting) expect((await get(wf.id, ids[i - 11]!)).status).toBe("cancelled");
    },
  );

  it(
    "turning a workflow off parks its waiting runs, which go on when it is turned on; a re-run meanwhile is 409",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow({
        name: "pausable",
        steps: [
          { name: "wait", code: delayOrGate },
          { name: "then", code: step(`return "went on";`) },
        ],
      });
      const delayed = (await sendJson(wf.endpoint_url, { delay: 1500 })).headers.get("x-headwater-run-id")!;
      const due = await until("delayed", async () => {
        const r = await get(wf.id, delayed);
        return r.status === "delayed" ? r.resume_at_ms! : undefined;
      });
      const running = await runOf(wf.endpoint_url, 21);
      await gate.reached(21);
      const queued = await runOf(wf.endpoint_url, 22);
      const dropped = await runOf(wf.endpoint_url, 23);
      await alice.client.updateWorkflow(wf.id, { active: false });
      // The run in the middle of its step finishes it; the rest wait, visibly, past the delay's due time.
      gate.release(21);
      expect((await whenEnded(wf.id, running)).status).toBe("success");
      await sleep(Math.max(0, due - Date.now()) + 500);
      expect((await get(wf.id, delayed)).status).toBe("delayed");
      expect((await get(wf.id, queued)).status).toBe("queued");
      expect(gate.arrived).not.toContain(22);
      // Cancelled while parked; re-runs wait for the workflow to be on.
      expect((await alice.client.cancelWorkflowRun(wf.id, dropped)).status).toBe("cancelled");
      await expectApiError(alice.client.rerunWorkflowRun(wf.id, running), 409, "workflow_inactive");
      await alice.client.updateWorkflow(wf.id, { active: true });
      // In the order they were queued (concurrency 1): the queued run, then the delayed one.
      await gate.reached(22);
      gate.release(22);
      expect((await whenEnded(wf.id, queued)).status).toBe("success");
      expect(await whenEnded(wf.id, delayed)).toMatchObject({
        status: "success",
        steps: [{ status: "success" }, { return_value: "went on" }],
      });
      expect(gate.arrived).not.toContain(23);
      expect((await get(wf.id, dropped)).status).toBe("cancelled");
    },
  );

  it(
    "deleting a workflow deletes its runs and its queue, and a run that ends after it is not recorded",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow({
        name: "deleted",
        concurrency: 2,
        steps: [{ code: delayOrGate }],
      });
      const waiting = (await sendJson(wf.endpoint_url, { delay: 60_000 })).headers.get("x-headwater-run-id")!;
      await until("delayed", async () => ((await get(wf.id, waiting)).status === "delayed" ? true : undefined));
      const running = await runOf(wf.endpoint_url, 31);
      await gate.reached(31);
      // Its row is written while it runs (past its first moments).
      await until("running", async () => ((await get(wf.id, running)).status === "running" ? true : undefined));
      await alice.client.deleteWorkflow(wf.id);
      gate.release(31);
      // The run ends after the delete: its results are dropped, its row is not made again.
      await sleep(500);
      expect(await rows("select id from runs where workflow_id = ?", wf.id)).toEqual([]);
      expect(await rows("select id from jobs where target_id like ?", `%${wf.id}%`)).toEqual([]);
      expect(await rows("select target_id from job_targets where target_id like ?", `%${wf.id}%`)).toEqual([]);
      expect(await rows("select workflow_id from workflow_starts where workflow_id = ?", wf.id)).toEqual([]);
    },
  );
});
