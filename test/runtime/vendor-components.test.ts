/**
 * The vendor's own published components, unmodified: fetched from the npm registry at a fixed
 * version at test time (never committed: they are under the vendor's licence), served to the
 * server by URL from a local file server, as a user would deploy them.
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveFiles, type FilesServer } from "../support/files-server.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { sslPostgresUnavailable, userDatabase, type UserDatabase } from "../support/ssl-postgres.js";
import { packVendor, packageFiles, vendorTempDir } from "../support/vendor-packages.js";
import { channelEvents, hit, waitForEvents } from "./helpers.js";

const POSTGRESQL = "@pipedream/postgresql@2.2.4";
const SHOPIFY = "@pipedream/shopify@1.0.1";
// The app always connects with SSL: without a test PostgreSQL that has it on, the suite is skipped, saying why.
const pgUnavailable = await sslPostgresUnavailable();
if (pgUnavailable) console.warn(`the vendor's PostgreSQL sources are not run: ${pgUnavailable} (see .ci/run).`);

/** Serves each package's files under `/<prefix>/`. */
async function servePackages(packages: Record<string, string>): Promise<FilesServer> {
  const files: Record<string, string> = {};
  for (const [prefix, dir] of Object.entries(packages)) {
    for (const [p, text] of Object.entries(packageFiles(dir))) files[`/${prefix}/${p}`] = text;
  }
  return serveFiles(files);
}

/** Events on the default channel, oldest first; with the run's errors when they do not come. */
async function events(
  user: TestUser,
  sourceId: string,
  count: number,
): Promise<Array<Record<string, unknown>>> {
  const got = await waitForEvents(user.client, sourceId, "", count, 90_000).catch(async (err: Error) => {
    const errors = await channelEvents(user.client, sourceId, "$errors");
    throw new Error(`${err.message}; $errors: ${JSON.stringify(errors.map((x) => x.event)).slice(0, 3000)}`);
  });
  return got.map((e) => e.event as Record<string, unknown>);
}

describe("the vendor's shopify new-event-emitted", () => {
  let dir: string;
  let files: FilesServer;
  let s: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    dir = vendorTempDir();
    files = await servePackages({ shopify: await packVendor(SHOPIFY, dir) });
    s = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1" } });
    alice = await s.newUser();
  }, 300_000);
  afterAll(async () => {
    await s?.stop();
    await files?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it(
    "loads by URL with its relative imports and shows its props (topics from sources/common/constants.mjs)",
    { timeout: 300_000 },
    async () => {
      const r = await hit(`${s.baseUrl}/components`, {
        body: { component_url: `${files.url}/shopify/sources/new-event-emitted/new-event-emitted.mjs` },
        headers: { authorization: `Bearer ${alice.key}` },
      });
      expect(r.status, r.text).toBe(200);
      const component = (
        r.json as {
          data: {
            key: string;
            configurable_props: Array<{ name: string; type: string; options?: unknown[] }>;
          };
        }
      ).data;
      expect(component.key).toBe("shopify-new-event-emitted");
      const topic = component.configurable_props.find((p) => p.name === "topic");
      expect(topic?.type).toBe("string");
      expect(topic?.options).toEqual(
        expect.arrayContaining([{ value: "APP_UNINSTALLED", label: "app/uninstalled" }]),
      );
      expect(component.configurable_props.map((p) => p.name)).toEqual(
        expect.arrayContaining(["app", "db", "http", "topic"]),
      );
    },
  );
});

describe.skipIf(pgUnavailable !== undefined)("the vendor's postgresql sources against the test PostgreSQL (SSL)", () => {
  let dir: string;
  let files: FilesServer;
  let s: TestServer;
  let alice: TestUser;
  let userDb: UserDatabase;
  let db: UserDatabase["client"];

  beforeAll(async () => {
    dir = vendorTempDir();
    files = await servePackages({ postgresql: await packVendor(POSTGRESQL, dir) });
    userDb = await userDatabase("hw_vendor");
    db = userDb.client;
    // The server itself on SQLite: the sandbox may reach the PostgreSQL port as a user's database.
    s = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1" } });
    alice = await s.newUser();
  }, 300_000);
  afterAll(async () => {
    await s?.stop();
    await files?.close();
    await userDb?.drop();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The app's credentials as a user gives them; the app always connects with SSL. */
  const auth = () => userDb.auth();

  it("new-row: existing rows at deploy, then each new row emitted once", { timeout: 300_000 }, async () => {
    await db.query("CREATE TABLE orders (id serial PRIMARY KEY, item text NOT NULL)");
    await db.query("INSERT INTO orders (item) VALUES ('a'), ('b')");
    const src = await alice.client.createSource({
      component_url: `${files.url}/postgresql/sources/new-row/new-row.mjs`,
      configured_props: {
        postgresql: auth(),
        schema: "public",
        table: "orders",
        column: "id",
        timer: { intervalSeconds: 1 },
      },
    });
    expect((await events(alice, src.id, 2)).map((e) => e.item).sort()).toEqual(["a", "b"]);
    await db.query("INSERT INTO orders (item) VALUES ('c'), ('d')");
    await events(alice, src.id, 4);
    await db.query("INSERT INTO orders (item) VALUES ('e')");
    // By the time 'e' arrives the source has polled several times: still one event per row.
    const all = await events(alice, src.id, 5);
    expect(all.map((e) => e.item).sort()).toEqual(["a", "b", "c", "d", "e"]);
    expect(await channelEvents(alice.client, src.id, "$errors")).toEqual([]);
  });

  it("new-or-updated-row: new rows and updated rows are emitted", { timeout: 300_000 }, async () => {
    await db.query(
      "CREATE TABLE tasks (id serial PRIMARY KEY, title text NOT NULL, updated_at timestamptz NOT NULL DEFAULT now())",
    );
    await db.query("INSERT INTO tasks (title) VALUES ('write'), ('test')");
    const src = await alice.client.createSource({
      component_url: `${files.url}/postgresql/sources/new-or-updated-row/new-or-updated-row.mjs`,
      configured_props: {
        postgresql: auth(),
        schema: "public",
        table: "tasks",
        identifierColumn: "id",
        timestampColumn: "updated_at",
        timer: { intervalSeconds: 1 },
      },
    });
    expect((await events(alice, src.id, 2)).map((e) => e.title).sort()).toEqual(["test", "write"]);
    await db.query(
      "UPDATE tasks SET title = 'write more', updated_at = now() + interval '1 second' WHERE title = 'write'",
    );
    await events(alice, src.id, 3);
    await db.query("INSERT INTO tasks (title, updated_at) VALUES ('ship', now() + interval '2 seconds')");
    const all = await events(alice, src.id, 4);
    expect(all.map((e) => e.title).sort()).toEqual(["ship", "test", "write", "write more"]);
    expect(await channelEvents(alice.client, src.id, "$errors")).toEqual([]);
  });
  it("new-row from a connected account: the source holds only the reference, the runs connect", { timeout: 300_000 }, async () => {
    await db.query("CREATE TABLE invoices (id serial PRIMARY KEY, total int NOT NULL)");
    await db.query("INSERT INTO invoices (total) VALUES (10), (20)");
    const account = await alice.client.createAccount({ app: "postgresql", name: "test database", auth: auth().$auth });
    expect(account.fields).toEqual(["host", "port", "user", "password", "database", "ssl_verification_mode"]);
    const src = await alice.client.createSource({
      component_url: `${files.url}/postgresql/sources/new-row/new-row.mjs`,
      configured_props: {
        postgresql: { authProvisionId: account.id },
        schema: "public",
        table: "invoices",
        column: "id",
        timer: { intervalSeconds: 1 },
      },
    });
    expect(src.configured_props.postgresql).toEqual({ authProvisionId: account.id });
    expect((await alice.client.getAccount(account.id)).used_by).toBe(1);
    expect((await events(alice, src.id, 2)).map((e) => e.total).sort()).toEqual([10, 20]);
    await db.query("INSERT INTO invoices (total) VALUES (30)");
    expect((await events(alice, src.id, 3)).map((e) => e.total).sort()).toEqual([10, 20, 30]);
    expect(await channelEvents(alice.client, src.id, "$errors")).toEqual([]);
  });
});
