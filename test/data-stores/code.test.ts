/**
 * Data stores in code (decisions.md "Workflow triggers, environment variables and data stores"),
 * on SQLite and PostgreSQL: a source's `data_store` prop is the store's object with the hosted
 * service's interface plus increment and compareAndSet; limits throw a clear error in the code and
 * change nothing; 10 sources running at once, each incrementing 50 times, leave exactly 500, also
 * with two instances on one PostgreSQL database (with workflow code steps among them), as do 10
 * workflow code steps with a data_store prop; compareAndSet lets exactly one of many claim a key.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient, type Client } from "../../shared/client/index.js";
import { post, sourceEvents, waitForList } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startSecondInstance, startServer, type TestServer, type TestUser } from "../support/server.js";
import { until } from "../workflows/helpers.js";

const source = (run: string) => `
export default {
  name: "store user",
  version: "0.0.1",
  props: { http: "$.interface.http", store: { type: "data_store" } },
  async run(event) { ${run} },
};`;

const INTERFACE = source(`
  const s = this.store;
  const out = {};
  await s.set("a", { n: 1 });
  await s.set("b", [1, 2], { ttl: 3600 });
  await s.set("nul", null);
  out.get = await s.get("a");
  out.nul = await s.get("nul");
  out.missing = await s.get("missing");
  out.has = [await s.has("a"), await s.has("nul"), await s.has("missing")];
  out.keys = await s.keys();
  out.entries = await s.entries();
  const iterated = [];
  for await (const [k, v] of s) iterated.push(k + "=" + JSON.stringify(v));
  out.iterated = iterated;
  out.inc = [await s.increment("n"), await s.increment("n", 10), await s.increment("n", -0.5)];
  out.cas = [
    await s.compareAndSet("lock", undefined, "mine"),
    await s.compareAndSet("lock", undefined, "theirs"),
    await s.compareAndSet("a", { n: 2 }, "no"),
    await s.compareAndSet("a", { n: 1 }, { n: 2 }),
  ];
  out.a = await s.get("a");
  out.ttl = [await s.setTtl("b", 30), await s.setTtl("missing", 5)];
  await s.delete("nul");
  out.afterDelete = await s.keys();
  const errors = [];
  for (const attempt of [
    () => s.set("k".repeat(257), 1),
    () => s.set("big", "x".repeat(70000)),
    () => s.increment("a"),
    () => s.set("u", undefined),
  ]) {
    try { await attempt(); errors.push(null); } catch (e) { errors.push(e.message); }
  }
  out.errors = errors;
  out.keysAfterErrors = await s.keys();
  this.$emit(out);
`);

const INCREMENTS = source(`
  for (let i = 0; i < 50; i++) await this.store.increment("count");
  this.$emit({ done: true });
`);

const STEP_INCREMENTS = `export default defineComponent({
  props: { store: { type: "data_store" } },
  async run({ steps, $ }) {
    let last = 0;
    let rose = true;
    for (let i = 0; i < 50; i++) {
      const n = await this.store.increment("count");
      if (n <= last) rose = false;
      last = n;
    }
    return { last, rose };
  },
});`;

const CLAIM = source(`
  const won = await this.store.compareAndSet("owner", undefined, event.body.who);
  this.$emit({ who: event.body.who, won });
`);

/** Sources of `code`, each naming `storeId`. */
async function sources(client: Client, code: string, storeId: string, n: number) {
  const component = await client.createComponent({ component_code: code });
  return Promise.all(
    Array.from({ length: n }, (_, i) =>
      client.createSource({
        component_id: component.id,
        name: `src-${i}-${storeId.slice(-6)}`,
        configured_props: { store: storeId },
      }),
    ),
  );
}

describe.each(testDatabases())("data stores in code on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
  }, 60_000);
  afterAll(() => srv?.stop());

  it(
    "gives a source the hosted service's interface, increment and compareAndSet; limits throw and change nothing",
    { timeout: 60_000 },
    async () => {
      const store = await alice.client.createDataStore("interface");
      const [src] = await sources(alice.client, INTERFACE, store.id, 1);
      expect(await post(`${srv.origin}/e/${src!.id}`, {})).toBe(200);
      const [ev] = await waitForList(sourceEvents(alice.client, src!.id), 1);
      const out = ev!.event as Record<string, unknown>;
      expect(out).toMatchObject({
        get: { n: 1 },
        nul: null,
        has: [true, true, false],
        keys: ["a", "b", "nul"],
        entries: [
          ["a", { n: 1 }],
          ["b", [1, 2]],
          ["nul", null],
        ],
        iterated: ['a={"n":1}', "b=[1,2]", "nul=null"],
        inc: [1, 11, 10.5],
        cas: [true, false, false, true],
        a: { n: 2 },
        ttl: [true, false],
        afterDelete: ["a", "b", "lock", "n"],
      });
      expect(out).not.toHaveProperty("missing");
      const errors = out.errors as Array<string | null>;
      expect(errors[0]).toContain("at most 256 bytes");
      expect(errors[1]).toContain("at most 65536 bytes");
      expect(errors[2]).toContain("not a number");
      expect(errors[3]).toContain("undefined");
      expect(out.keysAfterErrors).toEqual(["a", "b", "lock", "n"]);
      // The API sees what the code wrote.
      expect((await alice.client.getDataStoreRecord(store.id, "n")).value).toBe(10.5);
      const b = await alice.client.getDataStoreRecord(store.id, "b");
      expect(b.expires_at_ms).toBeLessThanOrEqual(Date.now() + 30_000);
      expect(b.expires_at_ms).toBeGreaterThan(Date.now() + 20_000);
    },
  );

  it("10 sources running at once, 50 increments each: exactly 500", { timeout: 120_000 }, async () => {
    const store = await alice.client.createDataStore("counter");
    const srcs = await sources(alice.client, INCREMENTS, store.id, 10);
    const codes = await Promise.all(srcs.map((s) => post(`${srv.origin}/e/${s.id}`, {})));
    expect(codes.every((c) => c === 200)).toBe(true);
    for (const s of srcs) await waitForList(sourceEvents(alice.client, s.id), 1, undefined, 90_000);
    expect((await alice.client.getDataStoreRecord(store.id, "count")).value).toBe(500);
  });

  it(
    "compareAndSet on an absent key: exactly one of many runs at once claims it",
    { timeout: 60_000 },
    async () => {
      const store = await alice.client.createDataStore("claims");
      const srcs = await sources(alice.client, CLAIM, store.id, 6);
      await Promise.all(srcs.map((s, i) => post(`${srv.origin}/e/${s.id}`, { who: `run-${i}` })));
      const events = [];
      for (const s of srcs) events.push(...(await waitForList(sourceEvents(alice.client, s.id), 1)));
      const winners = events.map((e) => e.event as { who: string; won: boolean }).filter((e) => e.won);
      expect(winners).toHaveLength(1);
      expect((await alice.client.getDataStoreRecord(store.id, "owner")).value).toBe(winners[0]!.who);
    },
  );

  it(
    "gives a workflow code step its data_store prop: 10 test runs at once, 50 increments each, exactly 500",
    { timeout: 120_000 },
    async () => {
      const store = await alice.client.createDataStore("step counter");
      const code = STEP_INCREMENTS;
      const workflows = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          alice.client.createWorkflow({
            name: `counts ${i}`,
            steps: [{ name: "count", code, configured_props: { store: store.id } }],
          }),
        ),
      );
      const runs = await Promise.all(workflows.map((wf) => alice.client.testWorkflow(wf.id)));
      expect(runs.map((r) => r.status)).toEqual(Array(10).fill("success"));
      // Each run saw its own increments in order, among the others'.
      for (const r of runs)
        expect(r.steps[0]!.return_value).toEqual({ last: expect.any(Number), rose: true });
      expect((await alice.client.getDataStoreRecord(store.id, "count")).value).toBe(500);

      // The store is in use while a step names it; another user's store is refused for a step.
      const inUse = await expectApiError(alice.client.deleteDataStore(store.id), 409, "data_store_in_use");
      expect(inUse.details?.map((d) => d.path)).toContain(`used_by.${workflows[0]!.id}`);
      const bob = await srv.newUser();
      const refused = await expectApiError(
        bob.client.createWorkflow({
          name: "theirs",
          steps: [{ name: "count", code, configured_props: { store: store.id } }],
        }),
        400,
        "invalid_step",
      );
      expect(refused.details).toEqual([
        { path: "steps.count.configured_props.store", message: `data store ${store.id} not found` },
      ]);
    },
  );
});

const postgres = testDatabases().find((d) => d.name === "postgres");

// Skipped without HEADWATER_TEST_DATABASE_URL: instances share a database only on PostgreSQL.
describe.skipIf(!postgres)("data store increments across two instances on one PostgreSQL database", () => {
  let first: TestServer;
  let second: Awaited<ReturnType<typeof startSecondInstance>>;
  let alice: TestUser;

  beforeAll(async () => {
    first = await startServer({ db: postgres! });
    second = await startSecondInstance(first);
    alice = await first.newUser();
  }, 60_000);
  afterAll(async () => {
    await second?.close();
    await first?.stop();
  });

  it(
    "10 sources and 4 workflow steps on two instances, 50 increments each, and REST increments on both: all counted once",
    { timeout: 120_000 },
    async () => {
      const store = await alice.client.createDataStore("shared counter");
      const srcs = await sources(alice.client, INCREMENTS, store.id, 10);
      const workflows = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          alice.client.createWorkflow({
            name: `steps ${i}`,
            steps: [{ name: "count", code: STEP_INCREMENTS, configured_props: { store: store.id } }],
          }),
        ),
      );
      const onSecond = createClient({ baseUrl: `${second.server.url}/v1`, apiKey: alice.key });
      const origins = [first.origin, second.server.url];
      const rest = Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? alice.client : onSecond).incrementDataStoreRecord(store.id, "count"),
      );
      const runs = [...srcs, ...workflows].map((s, i) => post(`${origins[i % 2]}/e/${s.id}`, {}));
      await Promise.all([...rest, ...runs]);
      const expected = 10 * 50 + 4 * 50 + 40;
      const value = await until(
        "every increment",
        async () => {
          const v = (await onSecond.getDataStoreRecord(store.id, "count")).value;
          return v === expected ? v : undefined;
        },
        90_000,
      ).catch(async () => (await onSecond.getDataStoreRecord(store.id, "count")).value);
      expect(value).toBe(expected);
      // Nothing more arrives later (no run counted twice).
      await new Promise((r) => setTimeout(r, 500));
      expect((await alice.client.getDataStoreRecord(store.id, "count")).value).toBe(expected);
    },
  );
});
