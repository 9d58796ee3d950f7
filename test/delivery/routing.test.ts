import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkflowErrorEvent } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { post, relaySource, sleep, sourceEvents, step, waitForList, workflowEvents } from "./helpers.js";

const endpoint = (srv: TestServer, id: string) => `${srv.origin}/e/${id}`;

describe.each(testDatabases())("delivery from emitters to listeners on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
  });
  afterAll(() => srv?.stop());

  const relay = async (u: TestUser) =>
    (await u.client.createSource({ component_code: relaySource(uniqueKey("relay")), name: uniqueKey("relay") })).id;

  /** A workflow that emits what it was triggered with, tagged. */
  const collector = (u: TestUser, tag: string) =>
    u.client.createWorkflow({ name: tag, steps: [{ name: "fwd", code: step(`$.send.emit({ tag: ${JSON.stringify(tag)}, got: steps.trigger.event });`) }] });

  it("delivers each event of a source to a subscribed workflow once, in order", async () => {
    const src = await relay(alice);
    const wf = await collector(alice, "direct");
    await alice.client.createSubscription({ emitter_id: src, listener_id: wf.id });
    for (let i = 0; i < 5; i++) expect(await post(endpoint(srv, src), { i })).toBe(200);
    const got = await waitForList(workflowEvents(alice.client, wf.id), 5);
    expect(got.map((e) => e.event)).toEqual([0, 1, 2, 3, 4].map((i) => ({ raw_event: { tag: "direct", got: { i } } })));
    await sleep(500);
    expect((await alice.client.listWorkflowEvents(wf.id)).page_info.total_count).toBe(5);
  });

  it("a dc_* glob matches only the subscriber's own sources", async () => {
    const mine = await relay(alice);
    const theirs = await relay(bob);
    const wf = await collector(alice, "glob");
    await alice.client.createSubscription({ emitter_id: "dc_*", listener_id: wf.id });
    await post(endpoint(srv, theirs), { from: "bob" });
    await post(endpoint(srv, mine), { from: "alice" });
    await waitForList(sourceEvents(bob.client, theirs), 1);
    const got = await waitForList(workflowEvents(alice.client, wf.id), 1);
    await sleep(500);
    expect(got.map((e) => e.event)).toEqual([{ raw_event: { tag: "glob", got: { from: "alice" } } }]);
    expect((await alice.client.listWorkflowEvents(wf.id)).page_info.total_count).toBe(1);
    await alice.client.deleteSubscription({ emitter_id: "dc_*", listener_id: wf.id });
  });

  it("routes workflow emits onward (p_* glob) and source-to-source", async () => {
    const first = await collector(alice, "first");
    const sink = await relay(alice);
    await alice.client.createSubscription({ emitter_id: "p_*", listener_id: sink });
    expect(await post(first.endpoint_url, { hello: "http" })).toBe(200);
    const got = await waitForList(sourceEvents(alice.client, sink), 1);
    expect(got[0]!.event).toMatchObject({ relayed: { raw_event: { tag: "first" } } });
    await alice.client.deleteSubscription({ emitter_id: "p_*", listener_id: sink });
  });

  it("a source subscribed to itself stops after the hop bound and says so in $errors", async () => {
    const loop = await relay(alice);
    await alice.client.createSubscription({ emitter_id: loop, listener_id: loop });
    await post(endpoint(srv, loop), { start: true });
    const errors = await waitForList(sourceEvents(alice.client, loop, "$errors"), 1);
    const err = errors[0]!.event as WorkflowErrorEvent;
    expect(err.error.code).toBe("SUBSCRIPTION_CYCLE");
    expect(err.error.message).toMatch(/8 subscription hops/);
    expect(err.original_context).toMatchObject({ workflow_id: loop, source_type: "SOURCE" });
    await sleep(1000);
    // The HTTP event plus 8 relayed ones, then nothing more.
    expect((await alice.client.listSourceEvents(loop)).page_info.total_count).toBe(9);
    expect((await alice.client.listSourceEvents(loop, { event_name: "$errors" })).page_info.total_count).toBe(1);
  });

  it("an A → B → A cycle of workflows is bounded too", async () => {
    const a = await collector(alice, "a");
    const b = await collector(alice, "b");
    await alice.client.createSubscription({ emitter_id: a.id, listener_id: b.id });
    await alice.client.createSubscription({ emitter_id: b.id, listener_id: a.id });
    await post(a.endpoint_url, { ping: 1 });
    // The bound fires on whichever workflow receives the 9th hop (here b: a's HTTP run is hop 0).
    const errs = await waitForList(async (q) => {
      const both = await Promise.all([a.id, b.id].map((id) => alice.client.listWorkflowErrors(id, { limit: q.limit, expand: q.expand })));
      return { data: both.flatMap((p) => p.data) };
    }, 1);
    expect(errs).toHaveLength(1);
    expect((errs[0]!.event as WorkflowErrorEvent).original_context.workflow_id).toBe(b.id);
    expect((errs[0]!.event as WorkflowErrorEvent).error.code).toBe("SUBSCRIPTION_CYCLE");
    await sleep(1000);
    const total =
      (await alice.client.listWorkflowEvents(a.id)).page_info.total_count + (await alice.client.listWorkflowEvents(b.id)).page_info.total_count;
    expect(total).toBe(9);
  });
});
