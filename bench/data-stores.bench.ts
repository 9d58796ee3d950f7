/**
 * Data stores, run by `npm run bench data-stores`: what a data store's `increment` costs a run,
 * beside a source's `this.db.set` in the same server. Ten sources of each kind; one operation is
 * ten requests at once, one to each source, each answered by its run after its write (an HTTP
 * source with a custom response): `increment` has been committed by then (a round trip from the
 * sandbox to the database), `this.db.set` is committed with the run's end. On SQLite, and on
 * PostgreSQL when HEADWATER_TEST_DATABASE_URL is set. Then the same from a workflow's code step
 * (ten workflows answering with `$.respond` after the increment). The ratios are of the medians
 * (increment / this.db.set): the goal is within 2x. Operations per second = 10 × ops/s.
 */
import { testDatabases } from "../test/support/databases.js";
import { startServer, type TestServer } from "../test/support/server.js";
import { defineBench, type BenchCase } from "./harness.js";

const SOURCES = 10;

const INCREMENT = `
export default {
  name: "bench increment", version: "0.0.1",
  props: { http: { type: "$.interface.http", customResponse: true }, store: { type: "data_store" } },
  async run() {
    const n = await this.store.increment("hits");
    this.http.respond({ status: 200, body: { n } });
  },
};`;

const DB_SET = `
export default {
  name: "bench db.set", version: "0.0.1",
  props: { http: { type: "$.interface.http", customResponse: true }, db: "$.service.db" },
  async run() {
    const n = (this.db.get("hits") ?? 0) + 1;
    this.db.set("hits", n);
    this.http.respond({ status: 200, body: { n } });
  },
};`;

/** A workflow's code step: the increment, then the workflow's answer. */
const STEP = `export default defineComponent({
  props: { store: { type: "data_store" } },
  async run({ steps, $ }) {
    const n = await this.store.increment("hits");
    await $.respond({ status: 200, body: { n } });
  },
});`;

/** Ten workflows answering with their step's $.respond, each with the step naming one store. */
async function stepEndpoints(s: TestServer): Promise<string[]> {
  const u = await s.newUser();
  const store = await u.client.createDataStore("bench steps");
  const urls: string[] = [];
  for (let i = 0; i < SOURCES; i++) {
    const wf = await u.client.createWorkflow({
      name: `bench ${i}`,
      http_response: "workflow",
      steps: [{ name: "count", code: STEP, configured_props: { store: store.id } }],
    });
    urls.push(wf.endpoint_url);
  }
  return urls;
}

/** One request to each endpoint at once; fails on any answer but 200. */
async function burst(urls: string[]): Promise<void> {
  await Promise.all(
    urls.map(async (url) => {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: "{}",
      });
      await res.text();
      if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    }),
  );
}

async function endpoints(s: TestServer, code: string, storeId?: string): Promise<string[]> {
  const u = await s.newUser();
  const component = await u.client.createComponent({ component_code: code });
  const store = storeId ?? (await u.client.createDataStore("bench")).id;
  const urls: string[] = [];
  for (let i = 0; i < SOURCES; i++) {
    const src = await u.client.createSource({
      component_id: component.id,
      configured_props: code === INCREMENT ? { store } : {},
    });
    urls.push(`${s.origin}/e/${src.id}`);
  }
  return urls;
}

export default defineBench("data stores: increment vs this.db.set, 10 runs at once", async () => {
  const servers: TestServer[] = [];
  const cases: BenchCase[] = [];
  const ratios: Array<[string, string]> = [];
  for (const db of testDatabases()) {
    const s = await startServer({ db });
    servers.push(s);
    const inc = await endpoints(s, INCREMENT);
    const set = await endpoints(s, DB_SET);
    const steps = await stepEndpoints(s);
    const incName = `${db.name}: 10 runs, increment each`;
    const setName = `${db.name}: 10 runs, this.db.set each`;
    cases.push(
      { name: incName, run: () => burst(inc), iterations: 100 },
      { name: setName, run: () => burst(set), iterations: 100 },
    );
    const stepName = `${db.name}: 10 workflow runs, step increment each`;
    cases.push({ name: stepName, run: () => burst(steps), iterations: 100 });
    ratios.push([incName, setName], [stepName, setName]);
  }
  return {
    cases,
    ratios,
    teardown: async () => {
      for (const s of servers) await s.stop();
    },
  };
});
