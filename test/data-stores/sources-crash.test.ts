/**
 * A source's run cut short by kill -9 runs again after the restart (its job stays queued until
 * its results are stored); the data store writes it made before the kill are not made again
 * (docs/api.md "Data stores").
 */
import { afterAll, describe, expect, it } from "vitest";
import { type Client } from "../../shared/client/index.js";
import { testDatabases } from "../support/databases.js";
import { uniqueKey } from "../support/fixtures.js";
import { crashableServer } from "../support/crash-server.js";
import { waitForList } from "../delivery/helpers.js";
import { until } from "../workflows/helpers.js";

/** Increments, then waits (the kill comes in the wait), then emits what it counted. */
const counter = (key: string) => `
export default {
  key: "${key}",
  name: "Counter",
  version: "0.0.1",
  props: { http: "$.interface.http", store: { type: "data_store" } },
  async run() {
    const once = await this.store.increment("once");
    for (let i = 0; i < 5; i++) await this.store.increment("five");
    await this.store.set("last", once);
    await new Promise((r) => setTimeout(r, 2500));
    this.$emit({ once });
  },
};
`;

const value = async (client: Client, store: string, key: string) =>
  client.getDataStoreRecord(store, key).then(
    (r) => r.value,
    () => undefined,
  );

describe.each(testDatabases())("a source run's data store writes across kill -9 on $name", (db) => {
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => undefined);
  });

  it(
    "makes the increments of a run cut short once when it runs again after the restart",
    { timeout: 120_000 },
    async () => {
      const crash = await crashableServer(db, cleanups);
      let { server, client } = crash;
      const store = await client.createDataStore("counts");
      const source = await client.createSource({
        component_code: counter(uniqueKey("counter")),
        name: "counter",
        configured_props: { store: store.id },
      });

      const res = await fetch(`${server.origin}/e/${source.id}`, { method: "POST", body: "{}" });
      expect(res.status).toBe(200);
      await until("the run's increments", async () =>
        (await value(client, store.id, "last")) === 1 ? true : undefined,
      );
      await server.killGroup();

      ({ server, client } = await crash.restart());
      const events = await waitForList((q) => client.listSourceEvents(source.id, q), 1);
      expect(events.map((e) => e.event)).toEqual([{ once: 1 }]);
      expect(await value(client, store.id, "once")).toBe(1);
      expect(await value(client, store.id, "five")).toBe(5);

      // The next request is another run: its writes are made.
      await fetch(`${server.origin}/e/${source.id}`, { method: "POST", body: "{}" });
      const next = await waitForList((q) => client.listSourceEvents(source.id, q), 2);
      expect(next.map((e) => e.event)).toEqual([{ once: 1 }, { once: 2 }]);
      expect(await value(client, store.id, "five")).toBe(10);
    },
  );
});
