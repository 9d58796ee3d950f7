/** The sandbox pieces without HTTP: workflow steps, the pool's bounds and owners, dedupe. */
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Quotas } from "../../server/quotas/quotas.js";
import { BundleCache } from "../../server/runtime/bundles.js";
import { applyDedupe } from "../../server/runtime/dedupe.js";
import { PackageCache } from "../../server/runtime/npm/cache.js";
import { SandboxPool } from "../../server/runtime/sandbox/pool.js";
import { createWorkflowStepRunner, type RunWorkflowSteps } from "../../server/runtime/workflow-steps.js";
import { openDb, type OpenedDb } from "../../server/store/db.js";
import { QuotasRepo } from "../../server/store/repos/quotas.js";

/** What each step that ran returned, by step id. */
const returned = (r: Awaited<ReturnType<RunWorkflowSteps>>) =>
  Object.fromEntries(r.steps.map((s) => [s.id, s.return_value]));
import { tempDataDir } from "./helpers.js";

describe("sandbox", () => {
  const dataDir = tempDataDir();
  let store: OpenedDb;
  let pool: SandboxPool;
  let runSteps: RunWorkflowSteps;

  beforeAll(async () => {
    store = await openDb({ dataDir });
    const packages = new PackageCache({ dir: path.join(dataDir, "npm"), allowInstall: false });
    pool = new SandboxPool({ isolation: "process", maxProcesses: 2, memoryMb: 64, npmDir: packages.dir, tmpRoot: path.join(dataDir, "sandbox") });
    const quotas = new Quotas(new QuotasRepo(store.db), { dailyInvocations: 1000, dailyComputeMs: 1e9 });
    runSteps = createWorkflowStepRunner({ pool, bundles: new BundleCache(packages), quotas, timeoutMs: 2000 });
  });
  afterAll(async () => {
    await pool?.close();
    await store?.close();
  });

  it("runs workflow steps in order with steps.trigger.event, $return_value, $.send.emit and legacy $send.emit", async () => {
    const result = await runSteps({
      ownerId: "u_wf",
      triggerEvent: { n: 2 },
      context: { workflow_id: "p_x" },
      steps: [
        { id: "c_1", name: "double", code: `export default defineComponent({ async run({ steps }) { return steps.trigger.event.n * 2; } })` },
        {
          id: "c_2",
          name: "send",
          code: `import { defineComponent } from "@pipedream/platform";
            export default defineComponent({ async run({ steps, $ }) {
              $.send.emit({ got: steps.double.$return_value });
              $.send.emit("hi", "named");
              $send.emit({ raw_event: { legacy: true } });
              console.log("not an error");
              return { ok: true };
            } })`,
        },
      ],
    });
    expect(result.error).toBeUndefined();
    expect(returned(result)).toEqual({ c_1: 4, c_2: { ok: true } });
    expect(result.logs).toEqual([{ level: "log", message: "not an error", step: 1, ts_ms: expect.any(Number) }]);
    expect(result.emits).toEqual([
      // Each emit names the step that made it (a test run shows them on their steps).
      { data: { raw_event: { got: 4 } }, channel: "", step: 1 },
      { data: { raw_event: "hi" }, channel: "named", step: 1 },
      { data: { raw_event: { legacy: true } }, channel: "", step: 1 },
    ]);
  });

  it("reports the failing step with its cellId, and stops there", async () => {
    const result = await runSteps({
      ownerId: "u_wf",
      triggerEvent: {},
      context: {},
      steps: [
        { id: "c_a", name: "a", code: `export default { async run({ $ }) { $.send.emit(1); return "a"; } }` },
        { id: "c_b", name: "b", code: `export default { async run() { throw new TypeError("bad input"); } }` },
        { id: "c_c", name: "c", code: `export default { async run({ $ }) { $.send.emit("never"); } }` },
      ],
    });
    expect(returned(result)).toEqual({ c_a: "a" });
    expect(result.emits).toEqual([{ data: { raw_event: 1 }, channel: "", step: 0 }]);
    expect(result.error).toMatchObject({ cellId: "c_b", code: "TypeError", message: "bad input", stack: expect.stringContaining("bad input") });
  });

  it("stops a looping step (TIMEOUT) and the owner's next run works", async () => {
    const looping = await runSteps({ ownerId: "u_wf", triggerEvent: {}, context: {}, steps: [{ id: "c_l", name: "l", code: `export default { run() { for (;;) {} } }` }] });
    expect(looping.error).toMatchObject({ code: "TIMEOUT", cellId: "c_l" });
    expect(looping.stoppedAt).toBe(0);
    const fine = await runSteps({ ownerId: "u_wf", triggerEvent: {}, context: {}, steps: [{ id: "c_f", name: "f", code: `export default { run() { return 1; } }` }] });
    expect(returned(fine)).toEqual({ c_f: 1 });
  });

  it("evaluates a step's module once per worker: warm runs keep its state, new code runs anew, a failed load is retried", async () => {
    const counting = (tag: string) => ({
      id: "c_n",
      name: "n",
      code: `let n = 0; export default { run() { n += 1; return "${tag}" + n; } }`,
    });
    const run = (step: { id: string; name: string; code: string }) =>
      runSteps({ ownerId: "u_warm", triggerEvent: {}, context: {}, steps: [step] });
    expect(returned(await run(counting("a")))).toEqual({ c_n: "a1" });
    // Code outside `run` runs once per warm worker, as on the hosted service.
    expect(returned(await run(counting("a")))).toEqual({ c_n: "a2" });
    expect(returned(await run(counting("b")))).toEqual({ c_n: "b1" });
    const broken = { id: "c_x", name: "x", code: `throw new RangeError("no module"); export default { run() {} }` };
    for (let i = 0; i < 2; i++) {
      const failed = await run(broken);
      expect(failed.error).toMatchObject({ cellId: "c_x", code: "RangeError", message: "no module" });
    }
    // A worker stopped by a timeout is replaced; the new one is sent the module again.
    const looping = await run({ id: "c_l", name: "l", code: `export default { run() { for (;;) {} } }` });
    expect(looping.error).toMatchObject({ code: "TIMEOUT" });
    expect(returned(await run(counting("a")))).toEqual({ c_n: "a1" });
  });

  it("never lends one owner's process to another, and bounds the total", async () => {
    const a = await pool.acquire("u_a");
    const b = await pool.acquire("u_b");
    expect(pool.size).toBe(2);
    let third: Awaited<ReturnType<typeof pool.acquire>> | undefined;
    const waiting = pool.acquire("u_c").then((l) => (third = l));
    await new Promise((r) => setTimeout(r, 50));
    expect(third).toBeUndefined();
    const pidA = a.proc;
    a.release();
    await waiting;
    expect(third!.proc).not.toBe(pidA);
    expect(pool.size).toBe(2);
    b.release();
    third!.release();
    const again = await pool.acquire("u_b");
    expect(again.proc).toBe(b.proc);
    again.release();
  });
});

describe("dedupe", () => {
  const id = (e: { id?: string | number }) => e.id;
  it("unique drops ids among the last 100", () => {
    let state = {};
    const first = applyDedupe("unique", state, [{ id: "a" }, { id: "b" }, { id: "a" }, {}], id);
    expect(first.kept).toEqual([{ id: "a" }, { id: "b" }, {}]);
    state = first.state;
    expect(applyDedupe("unique", state, [{ id: "b" }, { id: "c" }], id).kept).toEqual([{ id: "c" }]);
    const many = applyDedupe("unique", {}, Array.from({ length: 150 }, (_, i) => ({ id: i })), id).state;
    expect(applyDedupe("unique", many, [{ id: 10 }, { id: 120 }], id).kept).toEqual([{ id: 10 }]);
  });
  it("greatest keeps only ids above the greatest seen, numerically", () => {
    const { kept, state } = applyDedupe("greatest", {}, [{ id: 5 }, { id: 3 }, { id: 10 }, { id: "9" }], id);
    expect(kept).toEqual([{ id: 5 }, { id: 10 }]);
    expect(applyDedupe("greatest", state, [{ id: "11" }, { id: 10 }], id).kept).toEqual([{ id: "11" }]);
  });
  it("last emits only what follows the last emitted id, or everything when it is not there", () => {
    const { state } = applyDedupe("last", {}, [{ id: "x" }, { id: "y" }], id);
    expect(applyDedupe("last", state, [{ id: "x" }, { id: "y" }, { id: "z" }], id).kept).toEqual([{ id: "z" }]);
    expect(applyDedupe("last", state, [{ id: "p" }, { id: "q" }], id).kept).toEqual([{ id: "p" }, { id: "q" }]);
  });
});
