/**
 * The call keys that make a run's data store writes once per attempt (server/data-stores/once.ts)
 * stay few: a run's keys go when its results are stored, any left a day later. A write whose key
 * is recorded answers the recorded answer and changes nothing; one that fails records nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OnceWrites, CALL_KEYS_KEPT_MS } from "../../server/data-stores/once.js";
import { RecordOps } from "../../server/data-stores/records.js";
import { DataStoreCallsRepo } from "../../server/store/repos/data-store-calls.js";
import { DataStoreRecordsRepo } from "../../server/store/repos/data-store-records.js";
import { DataStoresRepo } from "../../server/store/repos/data-stores.js";
import { testDatabases } from "../support/databases.js";
import { uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { until } from "../workflows/helpers.js";

const counting = `export default defineComponent({
  props: { store: { type: "data_store" } },
  async run({ steps, $ }) {
    await this.store.increment("n");
    await this.store.increment("n", 2);
    await this.store.set("last", steps.trigger.event.body);
    return await this.store.increment("n");
  },
});`;

const source = (key: string) => `export default {
  key: "${key}", name: "Counter", version: "0.0.1",
  props: { http: "$.interface.http", store: { type: "data_store" } },
  async run() { this.$emit({ n: await this.store.increment("src") }); },
};`;

describe.each(testDatabases())("data store call keys on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  const calls = () => srv.server.store.db.selectFrom("data_store_calls").selectAll().execute();

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
  }, 60_000);
  afterAll(() => srv?.stop());

  it("forgets a workflow run's and a source run's keys once their results are stored", async () => {
    const store = await alice.client.createDataStore("keys");
    const wf = await alice.client.createWorkflow({
      name: "counting",
      steps: [{ name: "count", code: counting, configured_props: { store: store.id } }],
    });
    const res = await fetch(wf.endpoint_url, {
      method: "POST",
      body: '{"i":1}',
      headers: { "content-type": "application/json" },
    });
    const runId = res.headers.get("x-headwater-run-id")!;
    const run = await until("the run to end", async () => {
      const r = await alice.client.getWorkflowRun(wf.id, runId);
      return r.status === "success" || r.status === "error" ? r : undefined;
    });
    expect(run.steps.map((s) => [s.status, s.return_value])).toEqual([["success", 4]]);
    const src = await alice.client.createSource({
      component_code: source(uniqueKey("keys")),
      configured_props: { store: store.id },
    });
    await fetch(`${srv.origin}/e/${src.id}`, { method: "POST", body: "{}" });
    await until("the source's run", async () =>
      (await alice.client.listSourceEvents(src.id, { limit: 10 })).data.length === 1 ? true : undefined,
    );
    expect((await alice.client.getDataStoreRecord(store.id, "src")).value).toBe(1);
    await until(
      "the keys to be forgotten",
      async () => ((await calls()).length === 0 ? true : undefined),
      5000,
    );
  });

  it("answers a recorded key's answer without writing, records nothing for a failed write, and sweeps keys a day old", async () => {
    const store = await alice.client.createDataStore("once");
    const dbh = srv.server.store.db;
    const dialect = srv.server.store.dialect;
    const ops = new RecordOps(new DataStoresRepo(dbh, dialect), new DataStoreRecordsRepo(dbh, dialect), 1000);
    const once = new OnceWrites(ops, new DataStoreCallsRepo(dbh));
    const key = { runId: `r_${uniqueKey("t")}`, attempt: 1, step: 0, ordinal: 1 };
    const inc = (k = key) =>
      once.run(
        k,
        async (o) => (await o.increment(alice.user.id, store.id, "n", 1)).value,
        async (c) => (await ops.incrementRecorded(alice.user.id, store.id, "n", 1, c))?.value,
      );
    expect(await inc()).toBe(1);
    expect(await inc()).toBe(1);
    expect(await inc({ ...key, attempt: 2 })).toBe(2);
    expect(await inc({ ...key, attempt: 2 })).toBe(2);
    expect((await alice.client.getDataStoreRecord(store.id, "n")).value).toBe(2);

    // A write that fails (not a number) leaves no key: made again, it is tried again.
    await alice.client.putDataStoreRecord(store.id, "s", { value: "text" });
    const bad = { ...key, ordinal: 2 };
    const incS = () => once.run(bad, async (o) => (await o.increment(alice.user.id, store.id, "s", 1)).value);
    await expect(incS()).rejects.toThrow(/not a number/);
    await alice.client.putDataStoreRecord(store.id, "s", { value: 5 });
    expect(await incS()).toBe(6);

    const mine = async () => (await calls()).filter((c) => c.run_id === key.runId).length;
    expect(await mine()).toBe(3);
    expect(await once.sweep(Date.now())).toBe(0);
    expect(await once.sweep(Date.now() + CALL_KEYS_KEPT_MS + 1000)).toBeGreaterThanOrEqual(3);
    expect(await mine()).toBe(0);
  });
});
