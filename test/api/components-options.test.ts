/**
 * `POST /components/{id}/props/{prop}/options`: a prop's choices from its `async options()`, run
 * in the sandbox with the props configured so far: app propDefinitions with `this` = the app
 * and its `$auth`, a component's own options with `this.<app>` and configured props, paging by
 * context, plain options mapped to {label, value}; every failure a clear 4xx.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PropOptions } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError, rawRequest, uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

const shelfComponent = (key: string) => `
const shelf = {
  type: "app",
  app: "shelf",
  propDefinitions: {
    table: {
      type: "string",
      label: "Table",
      async options({ schema, prevContext }) {
        // Two per page: the context says where the next page starts.
        const all = await this.tables(schema);
        const offset = prevContext.offset ?? 0;
        return { options: all.slice(offset, offset + 2), context: { offset: offset + 2 } };
      },
    },
  },
  methods: {
    async tables(schema) {
      const { prefix } = this.$auth;
      return ["a", "b", "c"].map((t) => prefix + schema + "." + t);
    },
    columns(table) { return ["id", "name", "created_at"].map((c) => table + ":" + c); },
  },
};
export default {
  key: "${key}",
  name: "Shelf",
  version: "0.1.0",
  props: {
    shelf,
    schema: { type: "string", options: ["public", { label: "Private", value: "private" }] },
    table: { propDefinition: [shelf, "table", (c) => ({ schema: c.schema })] },
    column: {
      type: "string",
      async options({ query }) {
        return this.shelf.columns(this.table)
          .filter((c) => !query || c.includes(query))
          .map((c) => ({ label: c.toUpperCase(), value: c }));
      },
    },
    limit: { type: "integer", async options() { return [10, 100]; } },
    broken: { type: "string", async options() { throw new Error("the database is not reachable"); } },
    loops: { type: "string", async options() { for (;;) {} } },
    bad: { type: "string", async options() { return "not a list"; } },
    plain: "string",
  },
  async run() {},
};
`;

describe.each(testDatabases())("prop options on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let key: string;
  let id: string;

  const options = (user: TestUser, component: string, prop: string, body: unknown = {}) =>
    user.client.propOptions(component, prop, body as never);

  beforeAll(async () => {
    // A short invocation limit so that an options() that never ends is stopped quickly.
    s = await startServer({ db, env: { HEADWATER_INVOCATION_TIMEOUT_MS: "4000" } });
    alice = await s.newUser();
    bob = await s.newUser();
    key = uniqueKey("shelf");
    id = (await alice.client.createComponent({ component_code: shelfComponent(key) })).id;
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("describes which props have remote options and which $auth fields the app reads", async () => {
    const c = await alice.client.getComponent(id);
    const byName = Object.fromEntries(c.configurable_props.map((p) => [p.name, p]));
    expect(byName.shelf).toEqual({ name: "shelf", type: "app", app: "shelf", authFields: ["prefix"] });
    expect(byName.table).toMatchObject({ type: "string", label: "Table", remoteOptions: true });
    expect(byName.column).toMatchObject({ remoteOptions: true });
    expect(byName.schema).not.toHaveProperty("remoteOptions");
    expect(byName.plain).toEqual({ name: "plain", type: "string" });
  });

  it("runs an app propDefinition's options() with the app's $auth and the mapped props, page by page", async () => {
    const configured = { shelf: { $auth: { prefix: "db1:" } }, schema: "public" };
    const first = await options(alice, id, "table", { configured_props: configured });
    expect(PropOptions.parse(first)).toEqual({
      data: [
        { label: "db1:public.a", value: "db1:public.a" },
        { label: "db1:public.b", value: "db1:public.b" },
      ],
      context: { offset: 2 },
    });
    const next = await options(alice, key, "table", { configured_props: configured, prev_context: first.context as object, page: 1 });
    expect(next).toEqual({ data: [{ label: "db1:public.c", value: "db1:public.c" }], context: { offset: 4 } });
  });

  it("runs a component's own options() with this.<app> methods, configured props and the query", async () => {
    const got = await options(alice, id, "column", {
      configured_props: { shelf: { $auth: { prefix: "" } }, table: "t1" },
      query: "name",
    });
    expect(got).toEqual({ data: [{ label: "T1:NAME", value: "t1:name" }], context: null });
    expect(await options(alice, id, "limit")).toEqual({
      data: [
        { label: "10", value: 10 },
        { label: "100", value: 100 },
      ],
      context: null,
    });
    // Fixed options are answered too, in the same shape.
    expect((await options(alice, id, "schema")).data).toEqual([
      { label: "public", value: "public" },
      { label: "Private", value: "private" },
    ]);
  });

  it("an unknown prop is a 404, a prop without options a 400", async () => {
    await expectApiError(options(alice, id, "nope"), 404, "not_found");
    const e = await expectApiError(options(alice, id, "plain"), 400, "no_options");
    expect(e.message).toContain('prop "plain" has no options');
  });

  it("an options() that throws, answers badly or never ends is a 4xx that says why, and the server goes on", async () => {
    const thrown = await expectApiError(options(alice, id, "broken"), 400, "prop_options_failed");
    expect(thrown.message).toContain("the database is not reachable");
    const bad = await expectApiError(options(alice, id, "bad"), 400, "prop_options_failed");
    expect(bad.message).toContain("must return an array");
    await expectApiError(options(alice, id, "loops"), 400, "component_timeout");
    expect((await options(alice, id, "limit")).data).toHaveLength(2);
  });

  it("another user's component is a 404, by id and by key; a published one answers them", async () => {
    await expectApiError(options(bob, id, "limit"), 404, "not_found");
    await expectApiError(options(bob, key, "limit"), 404, "not_found");
    await alice.client.publishComponent(id);
    expect((await options(bob, id, "limit")).data).toHaveLength(2);
  });

  it("is in the OpenAPI document with its body and answer", async () => {
    const doc = (await (await fetch(`${s.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
    };
    const op = doc.paths["/v1/components/{id}/props/{prop}/options"]?.post;
    expect(op).toBeDefined();
    expect(JSON.stringify(op!.requestBody)).toContain("prev_context");
    expect(JSON.stringify(op!.responses["200"])).toContain("label");
    expect(Object.keys(op!.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404", "429"]));
  });

  it("validates the body (400) and changes nothing", async () => {
    const res = await rawRequest(`${s.baseUrl}/components/${id}/props/limit/options`, {
      method: "POST",
      key: alice.key,
      body: JSON.stringify({ configured_props: "x", page: -1 }),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "validation_failed" });
  });
});

describe("prop options and daily quotas", () => {
  let s: TestServer;

  beforeAll(async () => {
    s = await startServer({ env: { HEADWATER_DAILY_INVOCATIONS_QUOTA: "2" } });
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("each call counts as an invocation of the asking user; past the quota it is a 429", async () => {
    const carol = await s.newUser();
    const dave = await s.newUser();
    const c = await carol.client.createComponent({ component_code: shelfComponent(uniqueKey("shelf")) });
    await carol.client.publishComponent(c.id);
    await carol.client.propOptions(c.id, "limit");
    await expectApiError(carol.client.propOptions(c.id, "broken"), 400, "prop_options_failed");
    const me = await carol.client.getMe();
    expect(me.daily_invocations_used).toBe(2);
    expect(me.daily_compute_time_used).toBeGreaterThan(0);
    const e = await expectApiError(carol.client.propOptions(c.id, "limit"), 429, "quota_exceeded");
    expect(e.message).toContain("daily invocations quota of 2");
    // Another user's quota is their own.
    expect((await dave.client.propOptions(c.id, "limit")).data).toHaveLength(2);
  });
});
