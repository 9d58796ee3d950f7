import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { expectApiError, rawRequest } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { newSource } from "../events/fixtures.js";
import { step } from "./helpers.js";

describe.each(testDatabases())("subscriptions API on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let s1: string;
  let s2: string;
  let bobSource: string;
  let wf: string;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
    s1 = await newSource(alice);
    s2 = await newSource(alice);
    bobSource = await newSource(bob);
    wf = (await alice.client.createWorkflow({ name: "listener", steps: [{ code: step("return 1;") }] })).id;
  });
  afterAll(() => srv?.stop());

  it("creates a subscription (query string), returns the same one when posted again, lists it", async () => {
    const sub = await alice.client.createSubscription({ emitter_id: s1, listener_id: wf });
    expect(sub).toMatchObject({ emitter_id: s1, listener_id: wf, event_name: "" });
    expect(sub.id).toMatch(/^sub_/);
    const again = await alice.client.createSubscription({ emitter_id: s1, listener_id: wf, event_name: "default" });
    expect(again.id).toBe(sub.id);
    expect(await alice.client.listMySubscriptions()).toEqual([sub]);
    expect(await bob.client.listMySubscriptions()).toEqual([]);
  });

  it("takes the parameters in a JSON body too, with event_name channels", async () => {
    const res = await rawRequest(`${srv.baseUrl}/subscriptions`, {
      method: "POST",
      key: alice.key,
      body: JSON.stringify({ emitter_id: s2, listener_id: wf, event_name: "$errors" }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ data: { emitter_id: s2, listener_id: wf, event_name: "$errors" } });
    const del = await rawRequest(`${srv.baseUrl}/subscriptions`, {
      method: "DELETE",
      key: alice.key,
      body: JSON.stringify({ emitter_id: s2, listener_id: wf, event_name: "$errors" }),
    });
    expect(del.status).toBe(204);
  });

  it("deletes with 204, then 404 when nothing matches (the channel is part of the match)", async () => {
    await alice.client.createSubscription({ emitter_id: s2, listener_id: wf, event_name: "$logs" });
    await expectApiError(alice.client.deleteSubscription({ emitter_id: s2, listener_id: wf }), 404, "not_found");
    await alice.client.deleteSubscription({ emitter_id: s2, listener_id: wf, event_name: "$logs" });
    await expectApiError(alice.client.deleteSubscription({ emitter_id: s2, listener_id: wf, event_name: "$logs" }), 404);
  });

  it("accepts the globs p_* and dc_* as emitters", async () => {
    const g1 = await alice.client.createSubscription({ emitter_id: "dc_*", listener_id: wf });
    const g2 = await alice.client.createSubscription({ emitter_id: "p_*", listener_id: s1 });
    expect([g1.emitter_id, g2.emitter_id]).toEqual(["dc_*", "p_*"]);
    await alice.client.deleteSubscription({ emitter_id: "dc_*", listener_id: wf });
    await alice.client.deleteSubscription({ emitter_id: "p_*", listener_id: s1 });
  });

  it("refuses other users' emitters and listeners (404) and malformed ids (400), changing nothing", async () => {
    const before = await alice.client.listMySubscriptions();
    await expectApiError(alice.client.createSubscription({ emitter_id: bobSource, listener_id: wf }), 404);
    await expectApiError(alice.client.createSubscription({ emitter_id: s1, listener_id: bobSource }), 404);
    await expectApiError(bob.client.createSubscription({ emitter_id: "dc_*", listener_id: wf }), 404);
    await expectApiError(alice.client.createSubscription({ emitter_id: "dc_nope", listener_id: wf }), 404);
    await expectApiError(alice.client.createSubscription({ emitter_id: "x_1", listener_id: wf }), 400, "validation_failed");
    await expectApiError(alice.client.createSubscription({ emitter_id: "dc_a*b", listener_id: wf }), 404);
    await expectApiError(alice.client.raw("POST", "/subscriptions", { query: { listener_id: wf } }), 400);
    await expectApiError(alice.client.createAutoSubscription({ event_name: "$errors", listener_id: bobSource }), 404);
    expect(await alice.client.listMySubscriptions()).toEqual(before);
  });

  it("auto-subscriptions subscribe the listener to every workflow created afterwards", async () => {
    const auto = await alice.client.createAutoSubscription({ event_name: "$errors", listener_id: wf });
    expect(auto).toMatchObject({ listener_id: wf, event_name: "$errors" });
    expect(auto.id).toMatch(/^asub_/);
    const dflt = await alice.client.createAutoSubscription({ event_name: "default", listener_id: s1 });
    expect(dflt.event_name).toBe("");
    const later = await alice.client.createWorkflow({ name: "later", steps: [{ code: step("return 2;") }] });
    const laterSource = await newSource(alice);
    const subs = await alice.client.listMySubscriptions();
    expect(subs).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ emitter_id: later.id, listener_id: wf, event_name: "$errors" }),
        expect.objectContaining({ emitter_id: later.id, listener_id: s1, event_name: "" }),
        expect.objectContaining({ emitter_id: laterSource, listener_id: wf, event_name: "$errors" }),
        expect.objectContaining({ emitter_id: laterSource, listener_id: s1, event_name: "" }),
      ]),
    );
    // Another user's new sources are not affected.
    await newSource(bob);
    expect(await bob.client.listMySubscriptions()).toEqual([]);
    // Existing emitters are not touched.
    expect(subs.filter((s) => s.emitter_id === s2)).toEqual([]);
    // Deleting a participant removes its subscriptions.
    await alice.client.deleteWorkflow(later.id);
    expect((await alice.client.listMySubscriptions()).filter((s) => s.emitter_id === later.id)).toEqual([]);
  });
});
