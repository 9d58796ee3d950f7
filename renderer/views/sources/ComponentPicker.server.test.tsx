// @vitest-environment happy-dom
/**
 * The create-source dialog against a real server: the picker looks a vendor key up (the server
 * installs `@pipedream/pipedream` at a fixed version from the npm registry at test time; its
 * code is never committed), shows the component's props (the app as a credentials group, the
 * secret prop masked) and creates the source by key. The bridge's API calls go through the same
 * handlers as the host's (electron/core/api-proxy.ts) to the server's HTTP API.
 */
import { screen, waitFor, within } from "@testing-library/react";
import { userEvent } from "@testing-library/user-event";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_METHODS, apiHandlers } from "../../../electron/core/api-proxy.js";
import type { BridgeResult } from "../../../shared/bridge.js";
import { createClient, type ApiError, type Client } from "../../../shared/client/index.js";
import { startServer, type TestServer } from "../../../test/support/server.js";
import { sslPostgresUnavailable, userDatabase, type UserDatabase } from "../../../test/support/ssl-postgres.js";
import { FakeBridge } from "../../test/fakeBridge.js";
import { renderWith } from "../../test/render.js";
import { CreateSourceDialog } from "./CreateSourceDialog.js";

const KEY = "pipedream-new-scheduled-tasks";
const pgUnavailable = await sslPostgresUnavailable();
if (pgUnavailable) console.warn(`the picker with postgresql-new-row is not run: ${pgUnavailable}.`);

/**
 * A fetch over node:http, for the API clients here: the page's fetch (happy-dom's) applies
 * browser rules (CORS) to a loopback server, and the host's calls are not a browser's.
 */
const nodeFetch = (async (input: URL | string, init: RequestInit = {}) => {
  const url = new URL(String(input));
  const body = typeof init.body === "string" ? init.body : undefined;
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: init.method ?? "GET", headers: init.headers as Record<string, string> },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          const status = res.statusCode ?? 0;
          resolve({ ok: status >= 200 && status < 300, status, text: async () => text });
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}) as unknown as typeof fetch;

/** The fake host, with every API operation answered by the real server. */
function serverBridge(client: Client): FakeBridge {
  const bridge = new FakeBridge();
  const target = bridge as unknown as Record<string, (...args: unknown[]) => Promise<BridgeResult<unknown>>>;
  for (const method of API_METHODS) {
    const handler = apiHandlers[method] as (c: Client, ...args: unknown[]) => Promise<unknown>;
    target[method] = async (...args) => {
      bridge.calls.push({ method, args });
      try {
        return { ok: true, value: await handler(client, ...args) };
      } catch (err) {
        const e = err as ApiError;
        return { ok: false, error: { status: e.status ?? 500, code: e.code ?? "internal_error", message: e.message } };
      }
    };
  }
  return bridge;
}

describe("the create-source dialog on a real server", () => {
  let s: TestServer;
  let client: Client;

  const pageFetch = globalThis.fetch;
  beforeAll(async () => {
    // Node's own fetch for every client here (the test server's admin too): the page's
    // (happy-dom's) applies browser rules to a loopback server. The renderer itself never fetches.
    globalThis.fetch = nodeFetch;
    s = await startServer({
      env: {
        HEADWATER_NPM_COMPONENTS: "1",
        HEADWATER_NPM_COMPONENT_VERSIONS: "@pipedream/pipedream@0.4.2,@pipedream/postgresql@2.2.4",
        // The user's database of the postgresql test is on this machine.
        HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1",
      },
    });
    const user = await s.newUser();
    client = createClient({ baseUrl: s.baseUrl, apiKey: user.key });
  }, 120_000);
  afterAll(async () => {
    await s?.stop();
    globalThis.fetch = pageFetch;
  });

  it("looks a vendor component up by key, shows its props and creates the source by key", { timeout: 240_000 }, async () => {
    const bridge = serverBridge(client);
    let created = "";
    renderWith(bridge, <CreateSourceDialog onClose={() => undefined} onCreated={(src) => (created = src.id)} />);
    await userEvent.click(screen.getByRole("tab", { name: "By key" }));
    await userEvent.type(screen.getByLabelText("Component key or id"), KEY);
    await userEvent.click(screen.getByRole("button", { name: "Look up" }));
    const dialog = await screen.findByRole("dialog", { name: /New source from New Scheduled Tasks/ }, { timeout: 200_000 });

    // Its props: the app as credentials, the secret masked, the HTTP endpoint announced.
    expect(within(dialog).getByRole("group", { name: /pipedream credentials/ })).toBeTruthy();
    expect(within(dialog).getByLabelText(/^Secret/)).toHaveProperty("type", "password");
    expect(within(dialog).getByText(/own HTTP endpoint URL/)).toBeTruthy();
    expect(within(dialog).getByText(KEY)).toBeTruthy();

    await userEvent.type(within(dialog).getByLabelText(/^Secret/), "s3cret");
    await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
    await waitFor(() => expect(created).not.toBe(""), { timeout: 30_000 });
    const src = await client.getSource(created);
    expect(src.configured_props).toMatchObject({ secret: "s3cret", pipedream: { $auth: {} } });
    expect((await client.getComponent(src.component_id)).key).toBe(KEY);
    expect(bridge.callsOf("createSource")).toEqual([[{ key: KEY, configured_props: { pipedream: { $auth: {} }, secret: "s3cret" } }]]);
  });

  it.skipIf(pgUnavailable !== undefined)(
    "shows postgresql-new-row with its credentials, offers the database's schemas and tables, and creates it by key",
    { timeout: 280_000 },
    async () => {
      const userDb: UserDatabase = await userDatabase("hw_picker");
      try {
        await userDb.client.query("CREATE TABLE orders (id serial PRIMARY KEY, item text)");
        await userDb.client.query("CREATE TABLE customers (id serial PRIMARY KEY)");
        const bridge = serverBridge(client);
        let created = "";
        renderWith(bridge, <CreateSourceDialog onClose={() => undefined} onCreated={(src) => (created = src.id)} />);
        // The picker opens on the registry's search.
        await userEvent.type(screen.getByLabelText("Search the registry"), "postgresql-new-row");
        await userEvent.click(screen.getByRole("button", { name: "Look up" }));
        const dialog = await screen.findByRole("dialog", { name: /New source from New Row/ }, { timeout: 250_000 });

        // The credentials the app's code reads are offered; secret-looking ones are masked.
        const group = within(dialog).getByRole("group", { name: /postgresql credentials/ });
        expect(within(group).getByLabelText("postgresql: password")).toHaveProperty("type", "password");
        const auth = userDb.auth().$auth;
        for (const name of ["host", "port", "user", "password", "database", "ssl_verification_mode"]) {
          const value = String(auth[name]);
          if (value) await userEvent.type(within(group).getByLabelText(`postgresql: ${name}`), value);
        }

        await userEvent.click(within(dialog).getByRole("button", { name: "Load choices for Schema" }));
        await userEvent.selectOptions(await within(dialog).findByLabelText("Schema: choices", {}, { timeout: 30_000 }), "public");
        await userEvent.click(within(dialog).getByRole("button", { name: "Load choices for Table" }));
        const tables = await within(dialog).findByLabelText("Table: choices", {}, { timeout: 30_000 });
        expect(within(tables).getAllByRole("option").map((o) => o.textContent).sort()).toEqual(["Choose…", "customers", "orders"]);
        await userEvent.selectOptions(tables, "orders");
        expect(within(dialog).getByLabelText("Table")).toHaveProperty("value", "orders");

        await userEvent.click(within(dialog).getByRole("button", { name: "Create source" }));
        await waitFor(() => expect(created).not.toBe(""), { timeout: 60_000 });
        const src = await client.getSource(created);
        expect(src.configured_props).toMatchObject({ schema: "public", table: "orders" });
        expect((await client.getComponent(src.component_id)).key).toBe("postgresql-new-row");
      } finally {
        await userDb.drop();
      }
    },
  );
});
