/** Components over HTTP (spec §4 Components, decisions.md Components). */
import crypto from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Component } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { serveFiles, type FilesServer } from "../support/files-server.js";
import {
  expectApiError,
  propsComponent,
  rawRequest,
  timerComponent,
  uniqueKey,
} from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

const sha256 = (s: string) => crypto.createHash("sha256").update(s).digest("hex");

describe.each(testDatabases())("components on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let files: FilesServer;

  beforeAll(async () => {
    // The component files are served from 127.0.0.1: allow private addresses (refused by default).
    s = await startServer({ db, env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "true" } });
    alice = await s.newUser();
    bob = await s.newUser();
    files = await serveFiles({
      "/lib/main.mjs": `import { greet } from "./util.mjs";\nimport helper from "../shared/helper";\nexport default { key: "${uniqueKey("url")}", name: "From URL", version: "2.0.0", props: { who: { type: "string", default: greet() + helper } }, async run() {} };`,
      "/lib/util.mjs": `export const greet = () => "hello";`,
      "/shared/helper.js": `module.exports = "!";`,
      "/broken.mjs": `import x from "./missing.mjs";\nexport default { run() {} };`,
      "/big.js": (res) => res.writeHead(200).end("x".repeat(600 * 1024)),
      "/error.js": (res) => res.writeHead(500).end("boom"),
    });
  });
  afterAll(async () => {
    await files?.close();
    await s?.stop();
  });

  it("POST /components from code: key, name, version, props, sha-256 code_hash", async () => {
    const key = uniqueKey();
    const code = propsComponent(key);
    const c = await alice.client.createComponent({ component_code: code });
    expect(Component.parse(c)).toBeTruthy();
    expect(c).toMatchObject({
      id: expect.stringMatching(/^sc_/),
      key,
      code,
      code_hash: sha256(code),
      name: "Props Source",
      version: "1.2.3",
      description: "every prop kind",
      published: false,
      component_url: null,
    });
    expect(c.configurable_props.map((p) => p.name)).toEqual([
      "url",
      "mode",
      "count",
      "enabled",
      "tags",
      "token",
      "timer",
      "http",
      "db",
    ]);
    expect(c.configurable_props[0]).toEqual({ name: "url", type: "string", label: "Feed URL" });
    expect(c.configurable_props.find((p) => p.name === "http")).toEqual({
      name: "http",
      type: "$.interface.http",
    });
    expect(c.created_at).toBeGreaterThan(1_600_000_000);
  });

  it("GET /components/{id} and /{key} return the owner's component; the newest wins for a key", async () => {
    const key = uniqueKey();
    const first = await alice.client.createComponent({ component_code: timerComponent(key, "First") });
    const second = await alice.client.createComponent({ component_code: timerComponent(key, "Second") });
    expect((await alice.client.getComponent(first.id)).name).toBe("First");
    expect((await alice.client.getComponent(key)).id).toBe(second.id);
  });

  it("hides one user's components from another (404 by id and by key)", async () => {
    const key = uniqueKey();
    const c = await alice.client.createComponent({ component_code: timerComponent(key) });
    await expectApiError(bob.client.getComponent(c.id), 404, "not_found");
    await expectApiError(bob.client.getComponent(key), 404, "not_found");
    await expectApiError(bob.client.publishComponent(c.id), 404, "not_found");
    await expectApiError(alice.client.getComponent("sc_doesnotexist"), 404, "not_found");
  });

  it("publish makes it visible to every user at the registry", async () => {
    const key = uniqueKey();
    const c = await alice.client.createComponent({ component_code: timerComponent(key) });
    await expectApiError(bob.client.getRegistryComponent(key), 404, "not_found");
    const published = await alice.client.publishComponent(c.id);
    expect(published.published).toBe(true);
    const seen = await bob.client.getRegistryComponent(key);
    expect(seen).toMatchObject({ id: c.id, key, published: true });
    // Published, it is readable by id too (a source made from the registry shows its component),
    // but its key still names nothing in bob's account.
    expect((await bob.client.getComponent(c.id)).id).toBe(c.id);
    await expectApiError(bob.client.getComponent(key), 404, "not_found");
    await expectApiError(bob.client.getRegistryComponent("no-such-key"), 404, "not_found");
  });

  it("a component without a key cannot be published", async () => {
    const c = await alice.client.createComponent({
      component_code: "module.exports = { name: 'anon', async run() {} };",
    });
    expect(c.key).toBeUndefined();
    await expectApiError(alice.client.publishComponent(c.id), 400);
  });

  it("accepts CommonJS, defineComponent wrappers and bare-string props", async () => {
    const c = await alice.client.createComponent({
      component_code: `import { defineSource } from "@pipedream/types";\nexport default defineSource({ name: "Wrapped", props: { http: "$.interface.http" }, async run() {} });`,
    });
    expect(c.name).toBe("Wrapped");
    expect(c.configurable_props).toEqual([{ name: "http", type: "$.interface.http" }]);
  });

  it("refuses code that does not parse, or is not a component, with a 400 that says why", async () => {
    for (const code of ["export default {", "module.exports = 42;", "module.exports = { name: 'no run' };"]) {
      const e = await expectApiError(
        alice.client.createComponent({ component_code: code }),
        400,
        "invalid_component",
      );
      expect(e.message.length).toBeGreaterThan(10);
    }
  });

  it("stops code that loops or allocates without end while loading, and keeps serving", async () => {
    const before = (await alice.client.listMyComponents()).page_info.total_count;
    await expectApiError(
      alice.client.createComponent({
        component_code: "while (true) {}\nmodule.exports = { async run() {} };",
      }),
      400,
      "component_timeout",
    );
    await expectApiError(
      alice.client.createComponent({
        component_code:
          "const a = []; for (;;) a.push(new Array(1e6).fill(7));\nmodule.exports = { async run() {} };",
      }),
      400,
      "component_out_of_memory",
    );
    expect((await alice.client.listMyComponents()).page_info.total_count).toBe(before);
    expect((await alice.client.getMe()).id).toBe(alice.user.id);
  });

  it("needs component_code or component_url (400), and validates their types", async () => {
    await expectApiError(alice.client.createComponent({}), 400, "validation_failed");
    await expectApiError(
      alice.client.createComponent({ component_url: "ftp://example.com/x.js" }),
      400,
      "validation_failed",
    );
    const r = await rawRequest(`${s.baseUrl}/components`, {
      method: "POST",
      key: alice.key,
      body: '{"component_code": ["x"]}',
    });
    expect(r.status).toBe(400);
  });

  it("component_url: fetches the code and its relative imports, keeps the URL", async () => {
    const url = `${files.url}/lib/main.mjs`;
    const c = await alice.client.createComponent({ component_url: url });
    expect(c).toMatchObject({ name: "From URL", version: "2.0.0", component_url: url });
    expect(c.configurable_props[0]).toMatchObject({ name: "who", default: "hello!" });
    expect(files.requests).toEqual(
      expect.arrayContaining(["/lib/main.mjs", "/lib/util.mjs", "/shared/helper.js"]),
    );
  });

  it("refuses a component_url on a private address by default", async () => {
    const strict = await startServer({ db });
    try {
      const e = await expectApiError(
        strict.admin.createComponent({ component_url: `${files.url}/lib/main.mjs` }),
        400,
        "component_fetch_failed",
      );
      expect(e.message).toMatch(/refused: loopback address/);
    } finally {
      await strict.stop();
    }
  });

  it("component_code wins over component_url, which is kept as metadata", async () => {
    const before = files.requests.length;
    const url = `${files.url}/lib/main.mjs`;
    const c = await alice.client.createComponent({
      component_code: timerComponent(uniqueKey(), "Code Wins"),
      component_url: url,
    });
    expect(c).toMatchObject({ name: "Code Wins", component_url: url });
    expect(files.requests.length).toBe(before);
  });

  it("component_url failures are 400 component_fetch_failed with the reason", async () => {
    const cases: Array<[string, RegExp]> = [
      [`${files.url}/nope.js`, /404/],
      [`${files.url}/error.js`, /500/],
      [`${files.url}/big.js`, /larger than/],
      [`${files.url}/broken.mjs`, /missing\.mjs/],
      ["http://127.0.0.1:9/x.js", /could not fetch/],
    ];
    for (const [url, reason] of cases) {
      const e = await expectApiError(
        alice.client.createComponent({ component_url: url }),
        400,
        "component_fetch_failed",
      );
      expect(e.message).toMatch(reason);
    }
  });

  it("GET /users/me/components lists the account's components newest first", async () => {
    const u = await s.newUser();
    const made = [];
    for (let i = 0; i < 3; i++)
      made.push(await u.client.createComponent({ component_code: timerComponent(uniqueKey(), `C${i}`) }));
    const page = await u.client.listMyComponents({ limit: 2 });
    expect(page.page_info).toMatchObject({ total_count: 3, count: 2 });
    expect(page.data.map((c) => c.name)).toEqual(["C2", "C1"]);
    const rest = await u.client.listMyComponents({ after: page.page_info.end_cursor! });
    expect(rest.data.map((c) => c.name)).toEqual(["C0"]);
    const r = await rawRequest(`${s.baseUrl}/users/me/components?exclude=code,configurable_props`, {
      key: u.key,
    });
    const items = (r.body as { data: Array<Record<string, unknown>> }).data;
    expect(items).toHaveLength(3);
    expect(
      items.every((c) => !("code" in c) && !("configurable_props" in c) && typeof c.id === "string"),
    ).toBe(true);
  });
});
