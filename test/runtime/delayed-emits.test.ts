/**
 * `this.$emit(event, {delivery_ts})` delivers the event at that time, on its channel, as the
 * vendor's scheduled-tasks source expects; held across a restart, removed with its source.
 * `process.env.PD_COMPONENT` is the source's id inside its run. Both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { delayedTarget } from "../../server/runtime/delayed-emits.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer } from "../support/server.js";
import { channelEvents, hit, waitForEvents } from "./helpers.js";

const COMPONENT = `
export default {
  props: { http: "$.interface.http" },
  run(event) {
    const at = Date.now() + event.body.delayMs;
    this.$emit({ n: "now", component: process.env.PD_COMPONENT });
    this.$emit({ n: "later", at }, { name: "self", id: "task-" + at, delivery_ts: at });
  },
};`;

const endpointOf = (src: { configured_props: Record<string, unknown> }) =>
  (src.configured_props.http as { endpoint_url: string }).endpoint_url;

describe.each(testDatabases())("delivery_ts on $name", (database) => {
  // One server for the file: each test has its own user and sources, and looks only at theirs.
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ db: database });
  });
  afterAll(async () => {
    await s?.stop();
  });

  /** Emits of the source waiting for their delivery_ts: jobs of its held-emits target. */
  const held = async (sourceId: string) =>
    (
      await s.server.store.db
        .selectFrom("jobs")
        .select("id")
        .where("target_id", "=", delayedTarget(sourceId))
        .execute()
    ).length;

  it(
    "delivers the event on its channel no earlier than delivery_ts; PD_COMPONENT is the source's id",
    { timeout: 60_000 },
    async () => {
      const alice = await s.newUser();
      const src = await alice.client.createSource({ component_code: COMPONENT });
      await hit(endpointOf(src), { body: { delayMs: 1500 } });
      const [now] = await waitForEvents(alice.client, src.id, "", 1);
      expect(now!.event).toEqual({ n: "now", component: src.id });
      const [later] = await waitForEvents(alice.client, src.id, "self", 1, 30_000);
      const at = (later!.event as { at: number }).at;
      expect(later!.event).toEqual({ n: "later", at });
      expect(later!.indexed_at_ms).toBeGreaterThanOrEqual(at);
      expect(await held(src.id)).toBe(0);
      expect(await channelEvents(alice.client, src.id, "$errors")).toEqual([]);
    },
  );

  it("keeps a held event across a restart and delivers it after", { timeout: 90_000 }, async () => {
    const alice = await s.newUser();
    const src = await alice.client.createSource({ component_code: COMPONENT });
    await hit(endpointOf(src), { body: { delayMs: 5000 } });
    await waitForEvents(alice.client, src.id, "", 1);
    const wasHeld = await held(src.id);
    // Taken once the read is done: an event not held then was stored (and stamped) before this.
    const checkedAt = Date.now();
    await s.restart();
    const [later] = await waitForEvents(alice.client, src.id, "self", 1, 60_000);
    expect(later!.indexed_at_ms).toBeGreaterThanOrEqual((later!.event as { at: number }).at);
    // Held when looked at, unless this machine was so slow it had delivered it already by then.
    if (later!.indexed_at_ms > checkedAt) expect(wasHeld).toBe(1);
    expect((await channelEvents(alice.client, src.id, "self")).length).toBe(1);
  });

  it("delivers at once what is not a time (a string, from 1e15 ms on, in the past), without errors", { timeout: 60_000 }, async () => {
    const alice = await s.newUser();
    const code = `export default {
      props: { http: "$.interface.http" },
      run() {
        for (const [n, delivery_ts] of [["string", "tomorrow"], ["huge", 1e20], ["1e15", 1e15], ["past", 1000], ["nan", NaN]]) {
          this.$emit({ n }, { name: "self", delivery_ts });
        }
      },
    };`;
    const src = await alice.client.createSource({ component_code: code });
    await hit(endpointOf(src), { body: {} });
    const got = await waitForEvents(alice.client, src.id, "self", 5);
    expect(got.map((e) => (e.event as { n: string }).n).sort()).toEqual(["1e15", "huge", "nan", "past", "string"]);
    expect(await held(src.id)).toBe(0);
    expect(await channelEvents(alice.client, src.id, "$errors")).toEqual([]);
  });

  it("holds what a deploy hook emits with a delivery_ts, and what an activate that fails emitted goes with the source", { timeout: 60_000 }, async () => {
    const alice = await s.newUser();
    const hooks = (activate: string) => `export default {
      props: { http: "$.interface.http" },
      hooks: {
        async deploy() {
          const at = Date.now() + 1500;
          this.$emit({ n: "deployed", at }, { name: "self", delivery_ts: at });
        },
        async activate() { ${activate} },
      },
      run() {},
    };`;
    const src = await alice.client.createSource({ component_code: hooks("") });
    const [later] = await waitForEvents(alice.client, src.id, "self", 1, 30_000);
    expect(later!.event).toEqual({ n: "deployed", at: (later!.event as { at: number }).at });
    expect(later!.indexed_at_ms).toBeGreaterThanOrEqual((later!.event as { at: number }).at);
    expect(await held(src.id)).toBe(0);

    // deploy held an emit, then activate failed: the source is not created and nothing is left held.
    const before = await s.server.store.db.selectFrom("jobs").select("id").where("target_id", "like", "de_%").execute();
    await expectApiError(alice.client.createSource({ component_code: hooks(`throw new Error("no")`) }), 400, "hook_failed");
    const after = await s.server.store.db.selectFrom("jobs").select("id").where("target_id", "like", "de_%").execute();
    expect(after).toEqual(before);
  });

  it("removes the source's held events with it; other sources keep theirs and keep running meanwhile", { timeout: 60_000 }, async () => {
    const alice = await s.newUser();
    const [a, b] = [
      await alice.client.createSource({ component_code: COMPONENT }),
      await alice.client.createSource({ component_code: COMPONENT }),
    ];
    for (const src of [a, b]) {
      await hit(endpointOf(src), { body: { delayMs: 600_000 } });
      await waitForEvents(alice.client, src.id, "", 1);
    }
    expect([await held(a.id), await held(b.id)]).toEqual([1, 1]);
    // A held emit waits on a target of its own: the source's next request runs at once.
    await hit(endpointOf(b), { body: { delayMs: 600_000 } });
    await waitForEvents(alice.client, b.id, "", 2);
    expect(await held(b.id)).toBe(2);
    await alice.client.deleteSource(a.id);
    expect([await held(a.id), await held(b.id)]).toEqual([0, 2]);
    expect(await channelEvents(alice.client, b.id, "self")).toEqual([]);
  });
});
