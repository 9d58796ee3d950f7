/** Execution controls over the API (decisions.md "Execution controls"), on SQLite and PostgreSQL. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sleep, step } from "../delivery/helpers.js";

const send = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

async function until(
  user: TestUser,
  wf: string,
  run: string,
  done: (r: Run) => boolean,
  withinMs = 30_000,
): Promise<Run> {
  const end = Date.now() + withinMs;
  for (;;) {
    const r = await user.client.getWorkflowRun(wf, run).catch(() => undefined);
    if (r && done(r)) return r;
    if (Date.now() > end) throw new Error(`run ${run}: ${r?.status}`);
    await sleep(50);
  }
}
const ended = (r: Run) => ["success", "error", "exited", "cancelled"].includes(r.status);

describe.each(testDatabases())("execution controls on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db, env: { HEADWATER_SANDBOX_MAX_PROCESSES: "6" } });
    alice = await srv.newUser();
    bob = await srv.newUser();
  });
  afterAll(() => srv?.stop());

  it("shows the defaults, changes only the fields an update names, refuses values out of range", async () => {
    const wf = await alice.client.createWorkflow({ name: "ctl", steps: [{ code: step("return 1;") }] });
    expect(wf).toMatchObject({
      retry: { max_attempts: 1, initial_delay_seconds: 5, max_delay_seconds: 3600 },
      concurrency: 1,
      throttle: null,
    });
    const a = await alice.client.updateWorkflow(wf.id, { retry: { max_attempts: 3 } });
    expect(a).toMatchObject({
      retry: { max_attempts: 3, initial_delay_seconds: 5, max_delay_seconds: 3600 },
      concurrency: 1,
      throttle: null,
    });
    const b = await alice.client.updateWorkflow(wf.id, {
      concurrency: 4,
      throttle: { limit: 10, period_seconds: 60 },
    });
    expect(b).toMatchObject({
      retry: { max_attempts: 3 },
      concurrency: 4,
      throttle: { limit: 10, period_seconds: 60 },
    });
    expect(await alice.client.updateWorkflow(wf.id, { name: "renamed" })).toMatchObject({
      concurrency: 4,
      throttle: { limit: 10 },
      retry: { max_attempts: 3 },
    });
    for (const body of [
      { retry: { max_attempts: 11 } },
      { retry: { initial_delay_seconds: 0 } },
      { retry: { max_delay_seconds: 86_401 } },
      { concurrency: 0 },
      { concurrency: 101 },
      { concurrency: 1.5 },
      { throttle: { limit: 0, period_seconds: 1 } },
      { throttle: { limit: 5 } },
      { throttle: { limit: 5, period_seconds: 86_401 } },
    ]) {
      const e = await expectApiError(alice.client.raw("PUT", `/workflows/${wf.id}`, { body }), 400);
      expect(e.details?.length ?? 0, JSON.stringify(body)).toBeGreaterThan(0);
    }
    expect(await alice.client.getWorkflow(wf.id)).toMatchObject({
      name: "renamed",
      concurrency: 4,
      retry: { max_attempts: 3 },
      throttle: { limit: 10, period_seconds: 60 },
    });
    expect(await alice.client.updateWorkflow(wf.id, { throttle: null })).toMatchObject({
      throttle: null,
      concurrency: 4,
    });
  });

  it(
    "retries a failed run from its failed step, reusing the earlier ones, and emits $errors once after the last attempt",
    { timeout: 60_000 },
    async () => {
      // Step b fails on its first two attempts (counted in the worker, which the attempts share).
      const wf = await alice.client.createWorkflow({
        name: "flaky",
        retry: { max_attempts: 3, initial_delay_seconds: 1, max_delay_seconds: 1 },
        steps: [
          { name: "a", code: step(`console.log("a ran"); return Date.now();`) },
          {
            name: "b",
            code: step(
              `const n = (globalThis.__tries = (globalThis.__tries ?? 0) + 1); if (steps.trigger.event.body.always || n < 3) throw new Error("flaky " + n); return "ok after " + n;`,
            ),
          },
        ],
      });
      const res = await send(wf.endpoint_url, {});
      const id = res.headers.get("x-headwater-run-id")!;
      const retrying = await until(alice, wf.id, id, (r) => r.status === "retrying");
      expect(retrying.attempt).toBe(1);
      expect(retrying.next_attempt_at_ms).toBeGreaterThan(Date.now() - 1000);
      expect(retrying.steps.map((s) => s.status)).toEqual(["success", "error"]);
      const done = await until(alice, wf.id, id, ended);
      expect(done.status).toBe("success");
      expect(done.attempt).toBe(3);
      expect(done.steps[0]).toMatchObject({
        status: "success",
        return_value: retrying.steps[0]!.return_value,
        logs: [{ message: "a ran" }],
      });
      expect(done.steps[1]).toMatchObject({ status: "success", return_value: "ok after 3" });
      expect(done.attempts!.map((a) => [a.attempt, a.status])).toEqual([
        [1, "error"],
        [2, "error"],
        [3, "success"],
      ]);
      expect(done.attempts![0]!.error).toMatchObject({ message: "flaky 1", step: "b" });
      expect((await alice.client.listWorkflowErrors(wf.id)).data).toEqual([]);
    },
  );

  it(
    "gives up after max_attempts with one $errors event carrying error.attempts",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow({
        name: "hopeless",
        retry: { max_attempts: 2, initial_delay_seconds: 1, max_delay_seconds: 1 },
        steps: [{ name: "boom", code: step(`throw new Error("never works");`) }],
      });
      const res = await send(wf.endpoint_url, {});
      const done = await until(alice, wf.id, res.headers.get("x-headwater-run-id")!, ended);
      expect(done).toMatchObject({
        status: "error",
        attempt: 2,
        error: { message: "never works", step: "boom" },
      });
      await sleep(300);
      const errors = await alice.client.listWorkflowErrors(wf.id, { expand: "event" });
      expect(errors.data).toHaveLength(1);
      expect((errors.data[0]!.event as { error: { attempts: number } }).error.attempts).toBe(2);
    },
  );

  it("runs up to `concurrency` runs at once", { timeout: 60_000 }, async () => {
    const wf = await alice.client.createWorkflow({
      name: "parallel",
      concurrency: 4,
      steps: [
        {
          name: "wait",
          code: step(
            `const t = Date.now(); await new Promise((r) => setTimeout(r, 600)); return { t, end: Date.now() };`,
          ),
        },
      ],
    });
    const ids: string[] = [];
    for (let i = 0; i < 8; i++)
      ids.push((await send(wf.endpoint_url, { i })).headers.get("x-headwater-run-id")!);
    const runs = await Promise.all(ids.map((id) => until(alice, wf.id, id, ended)));
    expect(runs.every((r) => r.status === "success")).toBe(true);
    const spans = runs.map((r) => r.steps[0]!.return_value as { t: number; end: number });
    // At most 4 overlap at any moment, and more than one did.
    const overlapAt = (t: number) => spans.filter((s) => s.t <= t && t < s.end).length;
    const most = Math.max(...spans.map((s) => overlapAt(s.t)));
    expect(most).toBeLessThanOrEqual(4);
    expect(most).toBeGreaterThan(1);
    expect((await alice.client.listWorkflowRuns(wf.id, { limit: 100 })).data.map((r) => r.id).sort()).toEqual(
      [...ids].sort(),
    );
  });

  it("keeps the order of events at concurrency 1", async () => {
    const wf = await alice.client.createWorkflow({
      name: "ordered",
      steps: [{ code: step(`$.send.emit(steps.trigger.event.body.i); return 1;`) }],
    });
    for (let i = 0; i < 10; i++) await send(wf.endpoint_url, { i });
    const end = Date.now() + 20_000;
    let got: unknown[] = [];
    while (got.length < 10 && Date.now() < end) {
      got = (await alice.client.listWorkflowEvents(wf.id, { limit: 100 })).data.map(
        (e) => (e.event as { raw_event: number }).raw_event,
      );
      await sleep(50);
    }
    expect(got.reverse()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it(
    "throttles: the runs over the limit wait and start as the window allows, none dropped",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow({
        name: "throttled",
        throttle: { limit: 2, period_seconds: 2 },
        steps: [{ name: "s", code: step(`return Date.now();`) }],
      });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++)
        ids.push((await send(wf.endpoint_url, { i })).headers.get("x-headwater-run-id")!);
      // The last waits in the queue, listed as queued, with its start time.
      const waiting = await until(alice, wf.id, ids[4]!, (r) => r.status === "queued", 5000);
      expect(waiting.started_at_ms).toBeNull();
      const runs = await Promise.all(ids.map((id) => until(alice, wf.id, id, ended, 20_000)));
      const starts = runs.map((r) => r.steps[0]!.return_value as number).sort((x, y) => x - y);
      // Any two starts two apart are at least the period apart (at most 2 in any 2 s).
      for (let i = 2; i < starts.length; i++)
        expect(starts[i]! - starts[i - 2]!).toBeGreaterThanOrEqual(1990);
    },
  );

  it(
    "delays a run with $.flow.delay, goes on with the next step, and cancels a delayed run",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow({
        name: "reminder",
        steps: [
          { name: "first", code: step(`return $.flow.delay(steps.trigger.event.body.ms);`) },
          { name: "then", code: step(`return "sent after " + steps.first.$return_value.resume_at_ms;`) },
        ],
      });
      const res = await send(wf.endpoint_url, { ms: 700 });
      const id = res.headers.get("x-headwater-run-id")!;
      const delayed = await until(alice, wf.id, id, (r) => r.status === "delayed");
      expect(delayed.resume_at_ms).toBeGreaterThan(Date.now() - 700);
      expect(delayed.steps.map((s) => s.status)).toEqual(["success", "pending"]);
      const resumeAt = (delayed.steps[0]!.return_value as { resume_at_ms: number }).resume_at_ms;
      const done = await until(alice, wf.id, id, ended);
      expect(done.status).toBe("success");
      expect(done.steps[1]).toMatchObject({ status: "success", return_value: `sent after ${resumeAt}` });
      expect(done.steps[1]!.started_at_ms!).toBeGreaterThanOrEqual(resumeAt);

      const long = await send(wf.endpoint_url, { ms: 60_000 });
      const longId = long.headers.get("x-headwater-run-id")!;
      await until(alice, wf.id, longId, (r) => r.status === "delayed");
      await expectApiError(bob.client.cancelWorkflowRun(wf.id, longId), 404);
      const cancelled = await alice.client.cancelWorkflowRun(wf.id, longId);
      expect(cancelled.status).toBe("cancelled");
      expect((await alice.client.getWorkflowRun(wf.id, longId)).status).toBe("cancelled");
      await expectApiError(alice.client.cancelWorkflowRun(wf.id, longId), 409, "run_not_cancellable");
      await expectApiError(alice.client.cancelWorkflowRun(wf.id, id), 409, "run_not_cancellable");

      const bad = await send(wf.endpoint_url, { ms: 31 * 86_400_000 });
      const badRun = await until(alice, wf.id, bad.headers.get("x-headwater-run-id")!, ended);
      expect(badRun).toMatchObject({ status: "error", error: { code: "RangeError" } });
    },
  );
});
