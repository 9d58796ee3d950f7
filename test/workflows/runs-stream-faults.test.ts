/**
 * The runs stream under load (decisions.md "Runs under faults", Streams keep up): a client that
 * does not read is disconnected before it costs the server unbounded memory while one that reads
 * gets every run (both databases); and, with two instances on one PostgreSQL, a follower on one
 * hears of every run of the other, however many fall in the window it looks back over.
 */
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Server } from "../../server/app.js";
import type { RunRow } from "../../server/store/repos/runs.js";
import { step } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { startSecondInstance, startServer, type TestServer, type TestUser } from "../support/server.js";
import { openSse, type SseMessageSeen } from "../streams/sse-reader.js";
import { sendJson, until } from "./helpers.js";

/** A finished run's row as an instance writes it. */
function runRow(id: string, workflowId: string, ownerId: string, ms: number, steps = "[]"): RunRow {
  return {
    id,
    workflow_id: workflowId,
    owner_id: ownerId,
    status: "success",
    trigger_json: '{"type":"HTTP"}',
    attempt: 1,
    created_ms: ms,
    started_ms: ms,
    ended_ms: ms,
    updated_ms: ms,
    event_json: "null",
    steps_json: steps,
    response_json: null,
    error_json: null,
    exit_reason: null,
    pending_job_id: null,
    next_at_ms: null,
    attempts_json: "[]",
  };
}

const idsOf = (messages: SseMessageSeen[]) => messages.map((m) => m.id!);

describe.each(testDatabases())("the runs stream of a client that does not read, on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
  });
  afterAll(() => srv?.stop());

  it("is disconnected, bounded, while a client that reads gets every run, in order", async () => {
    const wf = await alice.client.createWorkflow({ name: "busy", steps: [{ name: "a", code: step("return 1;") }] });
    const changes = srv.server.services.runs.changes;
    const url = alice.client.workflowRunsStreamUrl(wf.id);
    const auth = { authorization: `Bearer ${alice.key}` };
    const slow = await openSse(url, auth);
    const fast = await openSse(url, auth);
    // A stream follows the runs once its headers are out: the client may see those first.
    await until("both streams to follow", async () => (changes.followers(wf.id) === 2 ? true : undefined));
    slow.pause();
    // Runs of 128 KB each, in batches the reading client takes before the next one comes, until
    // the server lets the stalled stream go: the kernel's loopback buffers take some megabytes
    // before the server's own limits (1 MB unsent, 1 MB of runs waiting) are reached.
    const steps = JSON.stringify([{ logs: "x".repeat(128 * 1024) }]);
    const told: string[] = [];
    for (let batch = 0; changes.followers(wf.id) > 1; batch++) {
      if (batch >= 200) throw new Error("the stalled stream was never dropped");
      for (let i = 0; i < 5; i++) {
        const id = `r_busy${batch}x${i}`;
        changes.changed(runRow(id, wf.id, alice.user.id, Date.now(), steps));
        told.push(id);
      }
      await fast.waitFor(told.length, 30_000);
    }
    expect(idsOf(fast.messages)).toEqual(told);
    expect(fast.isEnded()).toBe(false);
    slow.resume();
    await slow.ended;
    expect(slow.messages.length).toBeLessThan(told.length);
    expect(idsOf(slow.messages)).toEqual(told.slice(0, slow.messages.length));
    // The one that read is still followed, and hears what comes next.
    changes.changed(runRow("r_after", wf.id, alice.user.id, Date.now()));
    expect(idsOf(await fast.waitFor(told.length + 1)).at(-1)).toBe("r_after");
    fast.close();
  }, 60_000);
});

const postgres = testDatabases().find((d) => d.name === "postgres");

// Skipped without HEADWATER_TEST_DATABASE_URL: other instances exist only on PostgreSQL.
describe.skipIf(!postgres)("the runs stream with two instances on one PostgreSQL database", () => {
  let first: TestServer;
  let secondInstance: Awaited<ReturnType<typeof startSecondInstance>>;
  let second: Server;
  let alice: TestUser;

  beforeAll(async () => {
    first = await startServer({ db: postgres! });
    secondInstance = await startSecondInstance(first);
    second = secondInstance.server;
    alice = await first.newUser();
  });
  afterAll(async () => {
    await secondInstance?.close();
    await first?.stop();
  });

  it("tells a follower on one instance of every run of the other, however many fall at once", async () => {
    const wf = await alice.client.createWorkflow({ name: "shared", steps: [{ name: "a", code: step("return 1;") }] });
    const stream = await openSse(alice.client.workflowRunsStreamUrl(wf.id), { authorization: `Bearer ${alice.key}` });
    expect(stream.status).toBe(200);
    // 450 runs recorded elsewhere in the same millisecond (more than one look reads at once),
    // as a busy instance's commits land: written here from a connection of the test's own.
    const c = new pg.Client({ connectionString: first.databaseUrl });
    await c.connect();
    const many = Array.from({ length: 450 }, (_, i) => `r_elsewhere${String(i).padStart(3, "0")}`);
    try {
      const ms = Date.now();
      await c.query(
        `INSERT INTO runs (id, workflow_id, owner_id, status, trigger_json, attempt, created_ms, started_ms,
           ended_ms, updated_ms, event_json, steps_json, attempts_json)
         SELECT id, $2, $3, 'success', '{"type":"HTTP"}', 1, $4, $4, $4, $4, 'null', '[]', '[]' FROM unnest($1::text[]) AS id`,
        [many, wf.id, alice.user.id, ms],
      );
    } finally {
      await c.end();
    }
    const got = await stream.waitFor(many.length, 20_000);
    expect(idsOf(got).sort()).toEqual(many);
    // And it keeps hearing: runs the second instance runs, after those.
    const ran: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await sendJson(`${second.url}/e/${wf.id}`, { i });
      expect(res.status).toBe(200);
      ran.push(res.headers.get("x-headwater-run-id")!);
    }
    // (A run of some length may be told `running` first: its end is what is waited for.)
    const endedThere = () =>
      stream.messages.map((m) => JSON.parse(m.data) as { id: string; status: string }).filter((r) => r.status === "success");
    await until("the second instance's runs on the stream", async () =>
      ran.every((id) => endedThere().some((r) => r.id === id)) ? true : undefined,
    );
    stream.close();
  }, 60_000);
});
