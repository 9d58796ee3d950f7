import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startFakeApi, type FakeApi } from "../../electron/core/testing/fake-api.js";
import { waitFor } from "../../electron/core/testing/wait.js";
import { backoffDelay } from "./backoff.js";
import { connectSse, type SseConnection, type SseMessage, type SseStateInfo } from "./client.js";
import { toEventSummary, unwrapEmit } from "./unwrap.js";

let api: FakeApi;
let conn: SseConnection | undefined;

beforeEach(async () => {
  api = await startFakeApi();
});
afterEach(async () => {
  conn?.close();
  conn = undefined;
  await api.close();
});

function open(extra: Partial<Parameters<typeof connectSse>[0]> = {}) {
  const messages: SseMessage[] = [];
  const states: SseStateInfo[] = [];
  conn = connectSse({
    url: `${api.url}/sources/dc_abc/sse`,
    headers: { Authorization: `Bearer ${api.key}` },
    backoff: { initialMs: 20, maxMs: 100 },
    onMessage: (m) => messages.push(m),
    onState: (s) => states.push(s),
    ...extra,
  });
  return { messages, states };
}

describe("connectSse", () => {
  it("receives messages with their ids and JSON data, sending the Authorization header", async () => {
    const { messages, states } = open();
    await waitFor(() => api.openStreams() === 1);
    const a = api.emit("dc_abc", { n: 1 });
    const b = api.emit("dc_abc", { n: 2 });
    await waitFor(() => messages.length === 2);
    expect(messages.map((m) => m.id)).toEqual([a.id, b.id]);
    expect(messages[1]!.data).toMatchObject({ id: b.id, event: { n: 2 } });
    expect(states.map((s) => s.state)).toEqual(["connecting", "open"]);
    expect(api.requests[0]!.authorization).toBe(`Bearer ${api.key}`);
    expect(conn!.lastEventId).toBe(b.id);
  });

  it("reconnects after the stream breaks and resumes with Last-Event-ID, without gap or duplicate", async () => {
    const { messages, states } = open();
    await waitFor(() => api.openStreams() === 1);
    const first = api.emit("dc_abc", { n: 1 });
    await waitFor(() => messages.length === 1);
    api.dropStreams();
    // Emitted while the client is away: the resume must replay it.
    const missed = api.emit("dc_abc", { n: 2 }, { silent: true });
    await waitFor(() => messages.length === 2);
    await waitFor(() => api.openStreams() === 1);
    const live = api.emit("dc_abc", { n: 3 });
    await waitFor(() => messages.length === 3);
    expect(messages.map((m) => m.id)).toEqual([first.id, missed.id, live.id]);
    const sse = api.requests.filter((r) => r.url.endsWith("/sse"));
    expect(sse).toHaveLength(2);
    expect(sse[1]!.lastEventId).toBe(first.id);
    expect(states.map((s) => s.state)).toEqual(["connecting", "open", "reconnecting", "open"]);
    expect(states[3]!.resumed).toBe(true);
    expect(states[2]!.message).toMatch(/closed|broke/);
  });

  it("stops on 401 and reports unauthorized, with no retry", async () => {
    const { states } = open({ headers: { Authorization: "Bearer wrong" } });
    await waitFor(() => states.some((s) => s.state === "unauthorized"));
    const last = states.at(-1)!;
    expect(last).toMatchObject({ state: "unauthorized", status: 401 });
    expect(last.message).toMatch(/refused the API key/);
    await new Promise((r) => setTimeout(r, 200));
    expect(api.requests).toHaveLength(1);
    expect(conn!.state).toBe("unauthorized");
  });

  it("stops on 404 and reports closed", async () => {
    const { states } = open({ url: `${api.url}/sources/dc_missing/sse` });
    await waitFor(() => states.some((s) => s.state === "closed"));
    expect(states.at(-1)).toMatchObject({ state: "closed", status: 404 });
    await new Promise((r) => setTimeout(r, 200));
    expect(api.requests).toHaveLength(1);
  });

  it("reconnects when no byte arrives for the watchdog period, and handshakes keep it alive", async () => {
    api.mute = true;
    const { states } = open({ watchdogMs: 300 });
    await waitFor(() => states.some((s) => s.state === "reconnecting"));
    expect(states.find((s) => s.state === "reconnecting")!.message).toMatch(/no data for/);

    // Now a talking server: handshakes every 100 ms keep a 300 ms watchdog from firing.
    conn!.close();
    api.mute = false;
    const second = open({ watchdogMs: 300 });
    await waitFor(() => api.openStreams() === 1);
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 100));
      api.handshake();
    }
    expect(second.states.map((s) => s.state)).toEqual(["connecting", "open"]);
  });

  it("retries a server that cannot be reached, with growing delays, until closed", async () => {
    const { states } = open({ url: "http://127.0.0.1:1/sources/dc_abc/sse" });
    await waitFor(() => states.filter((s) => s.state === "reconnecting").length >= 3);
    conn!.close();
    const retries = states.filter((s) => s.state === "reconnecting");
    expect(retries[0]!.message).toMatch(/cannot reach/);
    expect(retries.map((r) => r.attempt)).toEqual(retries.map((_, i) => i + 1));
    expect(states.at(-1)!.state).toBe("closed");
  });
});

describe("backoffDelay", () => {
  it("grows exponentially up to the cap, with jitter inside 50-100 % of the base", () => {
    const lo = (n: number) => backoffDelay(n, { initialMs: 100, maxMs: 1000, random: () => 0 });
    const hi = (n: number) => backoffDelay(n, { initialMs: 100, maxMs: 1000, random: () => 0.999999 });
    expect([0, 1, 2, 3, 4, 10].map(hi)).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect([0, 1, 2].map(lo)).toEqual([50, 100, 200]);
  });
});

describe("toEventSummary", () => {
  const ctx = { messageId: "1700000000000-3", emitterId: "dc_x", channel: "" };

  it("passes a summary item through and unwraps the hosted service's {k:emit, e} form", () => {
    const summary = { id: "1-0", indexed_at_ms: 1, event: { a: 1 }, metadata: { emit_id: "x", name: "", emitter_id: "dc_x" } };
    expect(toEventSummary(summary, ctx)).toEqual(summary);
    expect(toEventSummary({ k: "emit", e: summary }, ctx)).toEqual(summary);
    expect(unwrapEmit({ k: "other", e: 1 })).toEqual({ k: "other", e: 1 });
  });

  it("wraps a bare event into a summary keyed by the message id", () => {
    expect(toEventSummary({ k: "emit", e: { title: "hi" } }, ctx)).toEqual({
      id: "1700000000000-3",
      indexed_at_ms: 1700000000000,
      event: { title: "hi" },
      metadata: { emit_id: "1700000000000-3", name: "", emitter_id: "dc_x" },
    });
    expect(toEventSummary({ title: "no id" }, { ...ctx, messageId: undefined })).toBeUndefined();
  });
});
