/**
 * What a run records, under faults (decisions.md "Runs under faults"), on SQLite and PostgreSQL:
 * user text that a database cannot hold as it is (a NUL, a lone surrogate) is stored with U+FFFD
 * in its place, a channel name past 256 characters fails the step, a run's size is bounded
 * (its response counts toward its values, its errors are cut), and credential values are `****`
 * in every field of the record.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Run } from "../../shared/resources/index.js";
import { step, waitForList, workflowErrors } from "../delivery/helpers.js";
import { waitForEvents } from "../runtime/helpers.js";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sendJson, until } from "./helpers.js";

const R = "\uFFFD";

/** An action whose account's key ends up in everything a run records, or whose run runs out of memory. */
const REVEAL = `
export default {
  key: "vault-reveal",
  name: "Reveal",
  version: "0.0.1",
  type: "action",
  props: { vault: { type: "app", app: "vault" }, mode: { type: "string" } },
  async run({ $ }) {
    const key = this.vault.$auth.api_key;
    console.log("the key is " + key);
    if (this.mode === "oom") {
      const hog = [];
      for (;;) hog.push(Buffer.alloc(16 * 1024 * 1024, 1));
    }
    await $.respond({ status: 200, headers: { "x-key": key }, body: { api_key: key, note: "key " + key } });
    if (this.mode === "exit") return $.flow.exit("leaving with " + key);
    const e = new Error("refused " + key);
    e.name = "Refused" + key;
    throw e;
  },
};`;

/** A source that emits what a run cannot store as it is. */
const ODD_SOURCE = `
export default {
  key: "odd-text",
  name: "Odd text",
  version: "0.0.1",
  props: { http: "$.interface.http" },
  async run(event) {
    if (event.body.long) return this.$emit({}, { name: "c".repeat(257) });
    console.log("log \\u0000 \\ud800");
    this.$emit({ v: "e\\u0000\\udc00" }, { name: "n\\u0000", summary: "s\\u0000\\ud800" });
  },
};`;

/** Waits until the run has ended. */
const ended = (u: TestUser, wf: string, run: string) =>
  until(`run ${run} to end`, async () => {
    const r = await u.client.getWorkflowRun(wf, run);
    return ["queued", "running"].includes(r.status) ? undefined : r;
  });

describe.each(testDatabases())("what a run records, on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db, env: { HEADWATER_SANDBOX_MEMORY_MB: "64" } });
    alice = await srv.newUser();
    await alice.client.createComponent({ component_code: REVEAL });
  }, 60_000);
  afterAll(() => srv?.stop());

  it("stores a NUL or a lone surrogate of any string a step produces as U+FFFD", async () => {
    const wf = await alice.client.createWorkflow({
      name: "odd text",
      http_response: "workflow",
      steps: [
        {
          name: "a",
          code: step(
            `console.log("log \\u0000 and \\ud800 end");
             $.send.emit({ v: "e\\u0000\\udc00" }, "ch\\u0000an");
             $.export("x\\u0000", "x\\ud800");
             await $.respond({ status: 200, body: { b: "r\\u0000\\ud83d" } });
             return { v: "r\\u0000", lone: "\\udfff" };`,
          ),
        },
        { name: "b", code: step(`$.flow.exit("a\\u0000b\\ud800");`) },
      ],
    });
    const res = await sendJson(wf.endpoint_url, {});
    expect(res.status).toBe(200);
    const run = await ended(alice, wf.id, res.headers.get("x-headwater-run-id")!);
    expect(run).toMatchObject({ status: "exited", exit_reason: `a${R}b${R}`, error: null });
    expect(run.steps[0]).toMatchObject({
      status: "success",
      return_value: { v: `r${R}`, lone: R },
      exports: { [`x${R}`]: `x${R}` },
      logs: [{ message: `log ${R} and ${R} end` }],
    });
    expect(run.response).toMatchObject({ status: 200, body: { b: `r${R}${R}` } });
    const emitted = await waitForList((q) => alice.client.listWorkflowEvents(wf.id, q), 1, `ch${R}an`);
    expect(emitted[0]!.event).toEqual({ raw_event: { v: `e${R}${R}` } });
  });

  it("stores a source's emits, summaries, channels and logs the same way", async () => {
    const src = await alice.client.createSource({ component_code: ODD_SOURCE });
    const url = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
    expect((await sendJson(url, {})).status).toBe(200);
    const [event] = await waitForEvents(alice.client, src.id, `n${R}`, 1);
    expect(event).toMatchObject({ event: { v: `e${R}${R}` }, metadata: { summary: `s${R}${R}` } });
    const [log] = await waitForEvents(alice.client, src.id, "$logs", 1);
    expect(log!.event).toMatchObject({ message: `log ${R} ${R}` });
    // A channel name past 256 characters fails the run with a clear error.
    expect((await sendJson(url, { long: true })).status).toBe(200);
    const [error] = await waitForEvents(alice.client, src.id, "$errors", 1);
    expect((error!.event as { error: { message: string } }).error.message).toMatch(/256 characters/);
  });

  it("fails a step that emits on a channel name longer than 256 characters, with a clear error", async () => {
    const wf = await alice.client.createWorkflow({
      name: "long channel",
      steps: [
        { name: "fine", code: step(`$.send.emit({ n: 1 }, "c".repeat(256)); return 1;`) },
        { name: "long", code: step(`$.send.emit({ n: 2 }, "c".repeat(257)); return 2;`) },
      ],
    });
    const res = await sendJson(wf.endpoint_url, {});
    const run = await ended(alice, wf.id, res.headers.get("x-headwater-run-id")!);
    expect(run.status).toBe("error");
    expect(run.steps.map((s) => s.status)).toEqual(["success", "error"]);
    expect(run.error).toMatchObject({ step: "long", message: expect.stringMatching(/channel.*256 characters/) });
  });

  it("bounds a run: its response counts toward its values, its errors are cut at 8 KB of message and 16 KB of stack", async () => {
    const wf = await alice.client.createWorkflow({
      name: "big",
      http_response: "workflow",
      steps: [
        { name: "value", code: step(`return "v".repeat(100_000);`) },
        {
          name: "answer",
          code: step(
            `await $.respond({ status: 201, headers: { "x-a": "b" }, body: { big: "r".repeat(300_000) } });
             const e = new Error("m".repeat(20_000));
             e.stack = "Error: " + "s".repeat(40_000);
             throw e;`,
          ),
        },
      ],
    });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await sendJson(wf.endpoint_url, {});
      // The caller gets the whole answer; the record keeps what the run's budget allows.
      expect(res.status).toBe(201);
      expect(((await res.json()) as { big: string }).big).toHaveLength(300_000);
      ids.push(res.headers.get("x-headwater-run-id")!);
    }
    const run = await ended(alice, wf.id, ids[0]!);
    expect(run.status).toBe("error");
    expect(run.steps[0]!.return_value).toHaveLength(100_000);
    expect(run.response).toMatchObject({
      status: 201,
      headers: { "x-a": "b" },
      truncated: true,
      body: { truncated: true, size: expect.any(Number), preview: expect.any(String) },
    });
    const failed = run.steps[1]!.error!;
    expect(Buffer.byteLength(failed.message)).toBeLessThanOrEqual(8 * 1024);
    expect(failed.message.startsWith("mmm")).toBe(true);
    expect(Buffer.byteLength(failed.stack)).toBeLessThanOrEqual(16 * 1024);
    expect(Buffer.byteLength(run.error!.message)).toBeLessThanOrEqual(8 * 1024);
    // One run's answer, and a page of them, stay within the values' budget and the cut errors.
    const one = await fetch(`${srv.baseUrl}/workflows/${wf.id}/runs/${ids[0]}`, {
      headers: { authorization: `Bearer ${alice.key}` },
    });
    expect((await one.arrayBuffer()).byteLength).toBeLessThan(256 * 1024 + 32 * 1024);
    for (const id of ids) await ended(alice, wf.id, id);
    const page = await fetch(`${srv.baseUrl}/workflows/${wf.id}/runs?limit=3`, {
      headers: { authorization: `Bearer ${alice.key}` },
    });
    expect((await page.arrayBuffer()).byteLength).toBeLessThan(3 * (256 * 1024 + 32 * 1024));
    const errors = await waitForList(workflowErrors(alice.client, wf.id), 1);
    const error = (errors[0]!.event as { error: { message: string } }).error;
    expect(Buffer.byteLength(error.message)).toBeLessThanOrEqual(8 * 1024);
  });

  it("hides credential values in the recorded response, exit reason, error and logs", async () => {
    const account = await alice.client.createAccount({ app: "vault", auth: { api_key: "vault-key-8842" } });
    const runOf = async (mode: string): Promise<Run> => {
      const wf = await alice.client.createWorkflow({
        name: `reveal ${mode}`,
        http_response: "workflow",
        steps: [{ name: "reveal", action: "vault-reveal", props: { vault: { authProvisionId: account.id }, mode } }],
      });
      const res = await sendJson(wf.endpoint_url, {});
      return ended(alice, wf.id, res.headers.get("x-headwater-run-id")!);
    };
    const exited = await runOf("exit");
    expect(exited.status).toBe("exited");
    expect(exited.exit_reason).toBe("leaving with ****");
    expect(exited.response).toMatchObject({ headers: { "x-key": "****" }, body: { api_key: "****", note: "key ****" } });
    expect(exited.steps[0]!.logs.map((l) => l.message)).toEqual(["the key is ****"]);

    const threw = await runOf("throw");
    expect(threw.status).toBe("error");
    expect(threw.error).toMatchObject({ code: "Refused****", message: "refused ****" });
    expect(threw.steps[0]!.error).toMatchObject({ name: "Refused****", message: "refused ****" });

    const oom = await runOf("oom");
    expect(oom.error).toMatchObject({ code: "OUT_OF_MEMORY" });
    expect(oom.steps[0]!.logs.map((l) => l.message)).toEqual(["the key is ****"]);

    for (const run of [exited, threw, oom]) expect(JSON.stringify(run)).not.toContain("vault-key-8842");
  }, 60_000);
});
