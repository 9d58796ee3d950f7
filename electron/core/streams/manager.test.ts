import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunBatch, StreamBatch, StreamStateUpdate } from "../../../shared/bridge.js";
import type { Run } from "../../../shared/resources/index.js";
import { createClient } from "../../../shared/client/index.js";
import { startFakeApi, type FakeApi } from "../testing/fake-api.js";
import { waitFor } from "../testing/wait.js";
import { StreamManager } from "./manager.js";

let api: FakeApi;
let manager: StreamManager;
let batches: StreamBatch[];
let runBatches: RunBatch[];
let states: StreamStateUpdate[];

beforeEach(async () => {
  api = await startFakeApi();
  batches = [];
  runBatches = [];
  states = [];
  manager = new StreamManager({
    onBatch: (b) => batches.push(b),
    onRunBatch: (b) => runBatches.push(b),
    onState: (s) => states.push(s),
    backoff: { initialMs: 20, maxMs: 100 },
    pollIntervalMs: 50,
  });
});
afterEach(async () => {
  manager.closeAll();
  await api.close();
});

const connection = (key?: string) => {
  const apiKey = key ?? api.key;
  return { client: createClient({ baseUrl: api.baseUrl, apiKey }), apiKey: () => apiKey };
};
const idsOf = (watchId: string) => batches.filter((b) => b.watchId === watchId).flatMap((b) => b.events.map((e) => e.id));
const statesOf = (watchId: string) => states.filter((s) => s.watchId === watchId).map((s) => s.state);

describe("StreamManager, sources", () => {
  it("delivers the recent history first, then live events, in batches, oldest first", async () => {
    const history = [api.emit("dc_a", { n: 0 }), api.emit("dc_a", { n: 1 })];
    const w = manager.watch("dc_a", "", connection());
    await waitFor(() => idsOf(w).length === 2);
    expect(idsOf(w)).toEqual(history.map((e) => e.id));

    const live = Array.from({ length: 300 }, (_, i) => api.emit("dc_a", { n: i + 2 }));
    await waitFor(() => idsOf(w).length === 302);
    expect(idsOf(w)).toEqual([...history, ...live].map((e) => e.id));
    // 300 events written at once reach the UI in a handful of batches, not 300 messages.
    expect(batches.filter((b) => b.watchId === w).length).toBeLessThan(20);
    expect(statesOf(w)).toEqual(["connecting", "open"]);
  });

  it("after a reconnect, back-fills over REST what a server without resume did not replay", async () => {
    api.resume = false;
    const w = manager.watch("dc_a", "", connection());
    await waitFor(() => statesOf(w).includes("open"));
    const before = api.emit("dc_a", { n: 1 });
    await waitFor(() => idsOf(w).length === 1);
    api.dropStreams();
    const missed = [api.emit("dc_a", { n: 2 }, { silent: true }), api.emit("dc_a", { n: 3 }, { silent: true })];
    await waitFor(() => statesOf(w).filter((s) => s === "open").length === 2);
    await waitFor(() => idsOf(w).length === 3);
    const after = api.emit("dc_a", { n: 4 });
    await waitFor(() => idsOf(w).length === 4);
    expect(idsOf(w)).toEqual([before, ...missed, after].map((e) => e.id));
    expect(statesOf(w)).toEqual(["connecting", "open", "reconnecting", "open"]);
  });

  it("with a resuming server, sends Last-Event-ID and delivers no duplicate of the replay and back-fill", async () => {
    const w = manager.watch("dc_a", "", connection());
    await waitFor(() => statesOf(w).includes("open"));
    const first = api.emit("dc_a", { n: 1 });
    await waitFor(() => idsOf(w).length === 1);
    api.dropStreams();
    const missed = api.emit("dc_a", { n: 2 }, { silent: true });
    await waitFor(() => statesOf(w).filter((s) => s === "open").length === 2);
    const live = api.emit("dc_a", { n: 3 });
    await waitFor(() => idsOf(w).length >= 3);
    await new Promise((r) => setTimeout(r, 150));
    expect(idsOf(w)).toEqual([first.id, missed.id, live.id]);
    const sse = api.requests.filter((r) => r.url.endsWith("/sse"));
    expect(sse.at(-1)!.lastEventId).toBe(first.id);
  });

  it("streams $logs and $errors from the observations stream, each watch only its channel", async () => {
    const logs = manager.watch("dc_a", "$logs", connection());
    const errors = manager.watch("dc_a", "$errors", connection());
    await waitFor(() => statesOf(logs).includes("open") && statesOf(errors).includes("open"));
    const l = api.emit("dc_a", { line: "hello" }, { channel: "$logs" });
    const e = api.emit("dc_a", { error: "boom" }, { channel: "$errors" });
    api.emit("dc_a", { ordinary: true });
    await waitFor(() => idsOf(logs).length === 1 && idsOf(errors).length === 1);
    expect(idsOf(logs)).toEqual([l.id]);
    expect(idsOf(errors)).toEqual([e.id]);
    expect(api.requests.some((r) => r.url === "/sse/dc/dc_a/observations")).toBe(true);
  });

  it("a refused key stops the watch as unauthorized, without retrying", async () => {
    const w = manager.watch("dc_a", "", connection("wrong-key"));
    await waitFor(() => statesOf(w).includes("unauthorized"));
    const final = states.find((s) => s.watchId === w && s.state === "unauthorized")!;
    expect(final.status).toBe(401);
    expect(final.message).toMatch(/refused the API key/);
    await new Promise((r) => setTimeout(r, 200));
    expect(api.requests.filter((r) => r.url.endsWith("/sse"))).toHaveLength(1);
    expect(manager.size).toBe(0);
  });

  it("unwatch closes the stream on the server and reports closed", async () => {
    const w = manager.watch("dc_a", "", connection());
    await waitFor(() => api.openStreams() === 1);
    expect(manager.unwatch(w)).toBe(true);
    await waitFor(() => api.openStreams() === 0);
    expect(statesOf(w).at(-1)).toBe("closed");
    expect(manager.unwatch(w)).toBe(false);
  });
});

describe("StreamManager, workflows (polled)", () => {
  it("delivers emits and $errors of a workflow as they appear", async () => {
    const old = api.emit("p_w", { raw_event: { n: 0 } });
    const w = manager.watch("p_w", "", connection());
    const errs = manager.watch("p_w", "$errors", connection());
    await waitFor(() => idsOf(w).length === 1);
    const fresh = api.emit("p_w", { raw_event: { n: 1 } });
    const err = api.emit("p_w", { error: { code: "Error" } }, { channel: "$errors" });
    await waitFor(() => idsOf(w).length === 2 && idsOf(errs).length === 1);
    expect(idsOf(w)).toEqual([old.id, fresh.id]);
    expect(idsOf(errs)).toEqual([err.id]);
    expect(statesOf(w)).toEqual(["connecting", "open"]);
  });

  it("reports a deleted workflow as closed and $logs as unavailable", async () => {
    const missing = manager.watch("p_missing", "", connection());
    const logs = manager.watch("p_w", "$logs", connection());
    await waitFor(() => statesOf(missing).includes("closed") && statesOf(logs).includes("closed"));
    expect(states.find((s) => s.watchId === missing && s.state === "closed")!.status).toBe(404);
    expect(states.find((s) => s.watchId === logs)!.message).toMatch(/no \$logs/);
  });
});

const run = (id: string, status: Run["status"], workflow_id = "p_w"): Run => ({
  id,
  workflow_id,
  status,
  trigger: { type: "HTTP" },
  attempt: 1,
  started_at_ms: 1_700_000_000_000,
  ended_at_ms: status === "running" ? null : 1_700_000_000_040,
  duration_ms: status === "running" ? null : 40,
  event: { body: {} },
  steps: [],
  response: null,
  error: null,
  exit_reason: null,
});
const runsOf = (watchId: string) =>
  runBatches.filter((b) => b.watchId === watchId).flatMap((b) => b.runs.map((r) => `${r.id}:${r.status}`));

describe("StreamManager, a workflow's runs (SSE)", () => {
  it("delivers the newest runs on connecting, then each change, a run's latest state once per batch", async () => {
    api.putRun(run("r_1", "success"));
    const w = manager.watchRuns("p_w", connection());
    await waitFor(() => runsOf(w).length === 1);
    expect(runsOf(w)).toEqual(["r_1:success"]);
    api.putRun(run("r_2", "running"));
    api.putRun(run("r_2", "error"));
    api.putRun(run("r_other", "running", "p_other"));
    await waitFor(() => runsOf(w).at(-1) === "r_2:error");
    // Another workflow's run is not this feed's; r_2's two changes (written at once) most often
    // share a batch, where only its last state is handed over.
    expect(runsOf(w).filter((r) => r !== "r_2:running")).toEqual(["r_1:success", "r_2:error"]);
    expect(api.requests.some((r) => r.url === "/workflows/p_w/runs/sse")).toBe(true);
    expect(statesOf(w)).toEqual(["connecting", "open"]);
  });

  it("after a reconnect, reads over REST the runs that changed while no stream was open", async () => {
    const w = manager.watchRuns("p_w", connection());
    await waitFor(() => statesOf(w).includes("open"));
    api.dropStreams();
    api.putRun(run("r_missed", "success"), { silent: true });
    // The catch-up read and the new stream's "open" come in either order.
    await waitFor(() => runsOf(w).includes("r_missed:success") && statesOf(w).length === 4);
    expect(statesOf(w)).toEqual(["connecting", "open", "reconnecting", "open"]);
  });

  it("reports a server without runs as closed with status 404, and stops", async () => {
    const w = manager.watchRuns("p_noruns", connection());
    await waitFor(() => statesOf(w).includes("closed"));
    expect(states.find((s) => s.watchId === w && s.state === "closed")!.status).toBe(404);
    expect(manager.size).toBe(0);
  });

  it("hands over a run changed several times within one batch once, as it is last", async () => {
    const slow = new StreamManager({
      onBatch: () => undefined,
      onState: () => undefined,
      onRunBatch: (b) => runBatches.push(b),
      batchIntervalMs: 400,
    });
    const w = slow.watchRuns("p_w", connection());
    await waitFor(() => api.openStreams() === 1);
    // Three changes written at once, against a flush every 400 ms: they share one batch.
    for (const status of ["queued", "running", "success"] as const) api.putRun(run("r_3", status));
    await waitFor(() => runsOf(w).length > 0, 2000);
    expect(runsOf(w)).toEqual(["r_3:success"]);
    slow.closeAll();
  });

  it("unwatch closes the runs stream on the server", async () => {
    const w = manager.watchRuns("p_w", connection());
    await waitFor(() => api.openStreams() === 1);
    expect(manager.unwatch(w)).toBe(true);
    await waitFor(() => api.openStreams() === 0);
    expect(statesOf(w).at(-1)).toBe("closed");
  });
});
