/** `POST /sources/{id}/events/replay` and `POST /workflows/{id}/events/replay` (decisions.md "Event inspection"). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { relaySource, sourceEvents, step, waitForList, workflowEvents, sleep } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { emitDirect, newSource } from "./fixtures.js";

describe.each(testDatabases())("event replay on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db, env: { HEADWATER_EVENT_RETENTION: "10000" } });
    alice = await srv.newUser();
    bob = await srv.newUser();
  });
  afterAll(() => srv?.stop());

  const relay = async (u: TestUser) => (await u.client.createSource({ component_code: relaySource(uniqueKey("relay")), name: "relay" })).id;

  it("delivers a range again, in id order, to every listener or only listener_id", async () => {
    const source = await newSource(alice);
    const l1 = await relay(alice);
    const l2 = await relay(alice);
    await alice.client.createSubscription({ emitter_id: source, listener_id: l1 });
    await alice.client.createSubscription({ emitter_id: source, listener_id: l2 });
    const ids = await emitDirect(srv, alice, source, [{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    await waitForList(sourceEvents(alice.client, l1), 4);
    await waitForList(sourceEvents(alice.client, l2), 4);

    // Every listener, a range: events 2..3 again, in order.
    const all = await alice.client.replaySourceEvents(source, { start_id: ids[1]!, end_id: ids[2]! });
    expect(all).toEqual({ events: 2, deliveries: 4 });
    const got1 = await waitForList(sourceEvents(alice.client, l1), 6);
    expect(got1.map((e) => e.event)).toEqual([
      { relayed: { n: 1 } },
      { relayed: { n: 2 } },
      { relayed: { n: 3 } },
      { relayed: { n: 4 } },
      { relayed: { n: 2 } },
      { relayed: { n: 3 } },
    ]);
    await waitForList(sourceEvents(alice.client, l2), 6);

    // Only l2, the whole channel.
    const one = await alice.client.replaySourceEvents(source, { listener_id: l2 });
    expect(one).toEqual({ events: 4, deliveries: 4 });
    const got2 = await waitForList(sourceEvents(alice.client, l2), 10);
    expect(got2.slice(6).map((e) => e.event)).toEqual([1, 2, 3, 4].map((n) => ({ relayed: { n } })));
    await sleep(300);
    expect((await alice.client.listSourceEvents(l1)).page_info.total_count).toBe(6);
  });

  it("replays a named channel and a workflow's events", async () => {
    const wf = await alice.client.createWorkflow({ name: "emitter", steps: [{ code: step("") }] });
    const listener = await relay(alice);
    await alice.client.createSubscription({ emitter_id: wf.id, listener_id: listener, event_name: "orders" });
    await emitDirect(srv, alice, wf.id, [{ o: 1 }], "orders");
    await emitDirect(srv, alice, wf.id, [{ d: 1 }]);
    await waitForList(sourceEvents(alice.client, listener), 1);
    // The default channel has no listener: nothing to deliver.
    expect(await alice.client.replayWorkflowEvents(wf.id)).toEqual({ events: 1, deliveries: 0 });
    expect(await alice.client.replayWorkflowEvents(wf.id, { event_name: "orders" })).toEqual({ events: 1, deliveries: 1 });
    const got = await waitForList(sourceEvents(alice.client, listener), 2);
    expect(got.map((e) => e.event)).toEqual([{ relayed: { o: 1 } }, { relayed: { o: 1 } }]);
    expect(await waitForList(workflowEvents(alice.client, wf.id), 1)).toHaveLength(1);
  });

  it("refuses bad input with a 4xx and queues nothing", async () => {
    const source = await newSource(alice);
    const listener = await relay(alice);
    await alice.client.createSubscription({ emitter_id: source, listener_id: listener });
    const ids = await emitDirect(srv, alice, source, [{ n: 1 }, { n: 2 }]);
    await waitForList(sourceEvents(alice.client, listener), 2);
    const other = await relay(alice);
    const bobs = await relay(bob);
    const cases: Array<[string, unknown, unknown, number, RegExp]> = [
      ["backwards", source, { start_id: ids[1], end_id: ids[0] }, 400, /start_id is later than end_id/],
      ["bad id", source, { start_id: "nope" }, 400, /start_id/],
      ["unknown field", source, { start: ids[0] }, 400, /start/],
      ["not a listener", source, { listener_id: other }, 404, /does not listen/],
      ["another user's listener", source, { listener_id: bobs }, 404, /does not listen/],
      ["unknown listener", source, { listener_id: "p_nope" }, 404, /does not listen/],
      ["unknown source", "dc_nope", {}, 404, /source/],
      ["a workflow's id on the source path", "p_nope", {}, 404, /source/],
    ];
    for (const [what, id, body, status, message] of cases) {
      const res = await fetch(`${srv.baseUrl}/sources/${String(id)}/events/replay`, {
        method: "POST",
        headers: { authorization: `Bearer ${alice.key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(res.status, what).toBe(status);
      const err = (await res.json()) as { error: string; code: string };
      expect(err.error, what).toMatch(message);
    }
    await expect(bob.client.replaySourceEvents(source)).rejects.toMatchObject({ status: 404 });
    await sleep(300);
    expect((await alice.client.listSourceEvents(listener)).page_info.total_count).toBe(2);
  });

  it("queues a replay of 10,000 events in batches, answering other requests meanwhile", async () => {
    const source = await newSource(alice);
    for (let b = 0; b < 10; b++) await emitDirect(srv, alice, source, Array.from({ length: 1000 }, (_, i) => ({ n: b * 1000 + i })));
    // Subscribed after the appends: only the replay delivers to it.
    const listener = await relay(alice);
    await alice.client.createSubscription({ emitter_id: source, listener_id: listener });
    const order: string[] = [];
    const replay = alice.client.replaySourceEvents(source).then((r) => {
      order.push("replay");
      return r;
    });
    // Sent while the replay is being queued: answered before it ends, as the loop is not held.
    await new Promise((r) => setTimeout(r, 20));
    const health = fetch(`${srv.origin}/healthz`).then((r) => {
      order.push("healthz");
      return r.status;
    });
    expect(await replay).toEqual({ events: 10_000, deliveries: 10_000 });
    expect(await health).toBe(200);
    expect(order).toEqual(["healthz", "replay"]);
    // Its 10,000 runs are not this test's subject.
    await alice.client.deleteSource(listener);
  }, 120_000);
});
