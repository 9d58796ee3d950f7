/**
 * `postgresql-new-row` by its key alone, through the vendor's npm packages as a registry
 * (`@pipedream/postgresql` installed at a fixed version at test time; its code is never
 * committed): shown with its props (the app's credential fields among them), the tables of the
 * test database offered by the options endpoint, deployed by key, each row emitted once.
 * Needs the test PostgreSQL with SSL (the app always connects with SSL; .ci/run turns it on).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { channelEvents, waitForEvents } from "../runtime/helpers.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sslPostgresUnavailable, userDatabase, type UserDatabase } from "../support/ssl-postgres.js";

const KEY = "postgresql-new-row";
const INSTALL_MS = 300_000;

const reason = await sslPostgresUnavailable();
if (reason) console.warn(`postgresql-new-row by key is not run: ${reason}.`);

describe.skipIf(reason !== undefined)("postgresql-new-row by key, from the vendor's npm package", () => {
  let s: TestServer;
  let alice: TestUser;
  let userDb: UserDatabase;
  let db: UserDatabase["client"];
  const auth = () => userDb.auth();

  beforeAll(async () => {
    userDb = await userDatabase("hw_npm");
    db = userDb.client;
    await db.query("CREATE TABLE orders (id serial PRIMARY KEY, item text NOT NULL)");
    await db.query("CREATE TABLE customers (id serial PRIMARY KEY)");
    await db.query("INSERT INTO orders (item) VALUES ('a'), ('b')");
    // The server on SQLite; the sandbox may reach the PostgreSQL port as a user's database.
    s = await startServer({
      env: {
        HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1",
        HEADWATER_NPM_COMPONENTS: "1",
        HEADWATER_NPM_COMPONENT_VERSIONS: "@pipedream/postgresql@2.2.4",
      },
    });
    alice = await s.newUser();
  }, INSTALL_MS);
  afterAll(async () => {
    await s?.stop();
    await userDb?.drop();
  });

  it("is found by key with its props, and the options endpoint offers the database's tables", { timeout: INSTALL_MS }, async () => {
    const c = await alice.client.getRegistryComponent(KEY);
    expect(c).toMatchObject({ key: KEY, name: "New Row", component_url: expect.stringMatching(/^npm:@pipedream\/postgresql@2\.2\.4\/sources\/new-row\//) });
    const props = Object.fromEntries(c.configurable_props.map((p) => [p.name, p]));
    expect(props.postgresql).toMatchObject({ type: "app", app: "postgresql" });
    expect(props.postgresql!.authFields).toEqual(expect.arrayContaining(["host", "port", "user", "password", "database"]));
    expect(props.table).toMatchObject({ type: "string", remoteOptions: true });
    expect(props.schema).toMatchObject({ remoteOptions: true });

    const tables = await alice.client.propOptions(c.id, "table", { configured_props: { postgresql: auth(), schema: "public" } });
    expect(tables.data.map((o) => o.value).sort()).toEqual(["customers", "orders"]);
    const schemas = await alice.client.propOptions(c.id, "schema", { configured_props: { postgresql: auth() } });
    expect(schemas.data.map((o) => o.value)).toContain("public");
    // Credentials naming a database that does not exist: the app's error, as a 4xx.
    const bad = { postgresql: { $auth: { ...auth().$auth, database: "hw_no_such_database" } }, schema: "public" };
    await expect(alice.client.propOptions(c.id, "table", { configured_props: bad })).rejects.toMatchObject({
      status: 400,
      code: "prop_options_failed",
    });
  });

  it("deploys by key alone and emits each row once", { timeout: INSTALL_MS }, async () => {
    const src = await alice.client.createSource({
      key: KEY,
      configured_props: { postgresql: auth(), schema: "public", table: "orders", timer: { intervalSeconds: 1 } },
    });
    const items = async (n: number) =>
      (await waitForEvents(alice.client, src.id, "", n, 60_000)).map((e) => (e.event as { item: string }).item);
    expect((await items(2)).sort()).toEqual(["a", "b"]);
    await db.query("INSERT INTO orders (item) VALUES ('c')");
    expect((await items(3)).sort()).toEqual(["a", "b", "c"]);
    expect(await channelEvents(alice.client, src.id, "$errors")).toEqual([]);
  });
});
