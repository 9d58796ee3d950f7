/**
 * How component code finds its modules: relative imports resolve against each module's own
 * place in the tree (as Node resolves files), and npm packages arrive the way Node hands
 * them to ES modules and to require() (ESM-only packages, CommonJS default imports, pins).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveFiles, type FilesServer } from "../support/files-server.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { channelEvents, hit, waitForEvents } from "./helpers.js";

const endpointOf = (src: { configured_props: Record<string, unknown> }) =>
  (src.configured_props.http as { endpoint_url: string }).endpoint_url;

/** The first event on the default channel, or the run's error when there is none. */
async function firstEvent(user: TestUser, sourceId: string): Promise<Record<string, unknown>> {
  const [e] = await waitForEvents(user.client, sourceId, "", 1, 60_000).catch(async (err: Error) => {
    const errors = await channelEvents(user.client, sourceId, "$errors");
    throw new Error(`${err.message}; $errors: ${JSON.stringify(errors.map((x) => x.event)).slice(0, 3000)}`);
  });
  return e!.event as Record<string, unknown>;
}

describe("relative imports", () => {
  let s: TestServer;
  let alice: TestUser;
  let files: FilesServer;

  beforeAll(async () => {
    // Three files named constants.mjs at three depths; each importer must get its own.
    files = await serveFiles({
      "/pkg/sources/x/x.mjs": `
        import near from "../common/constants.mjs";
        import far from "../../common/constants.mjs";
        import { viaSibling } from "../common/base.mjs";
        import { deep } from "./lib/deep/util.mjs";
        export default {
          key: "relative-check",
          props: { http: "$.interface.http" },
          run() { this.$emit({ near: near.WHERE, far: far.WHERE, viaSibling, deep }); },
        };`,
      "/pkg/sources/common/constants.mjs": `export default { WHERE: "sources/common" };`,
      "/pkg/sources/common/base.mjs": `import c from "./constants.mjs"; export const viaSibling = c.WHERE;`,
      "/pkg/common/constants.mjs": `export default { WHERE: "common" };`,
      "/pkg/sources/x/lib/deep/util.mjs": `import c from "../../../../common/constants.mjs"; import d from "./constants.mjs"; export const deep = [c.WHERE, d.WHERE];`,
      "/pkg/sources/x/lib/deep/constants.mjs": `export default { WHERE: "sources/x/lib/deep" };`,
    });
    s = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1" } });
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
    await files?.close();
  });

  it(
    "resolve against the importing module's own folder, at any depth, by URL",
    { timeout: 60_000 },
    async () => {
      const src = await alice.client.createSource({ component_url: `${files.url}/pkg/sources/x/x.mjs` });
      await hit(endpointOf(src), { body: {} });
      expect(await firstEvent(alice, src.id)).toEqual({
        near: "sources/common",
        far: "common",
        viaSibling: "sources/common",
        deep: ["common", "sources/x/lib/deep"],
      });
    },
  );
});

describe("npm interop", () => {
  let s: TestServer;
  let alice: TestUser;
  let api: http.Server;
  let apiUrl: string;

  beforeAll(async () => {
    api = http.createServer((req, res) =>
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ path: req.url })),
    );
    await new Promise<void>((r) => api.listen(0, "127.0.0.1", r));
    apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
    s = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1" } });
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
    await new Promise<void>((r) => api?.close(() => r()));
  });

  it(
    "require() of an ESM-only package (node-fetch 3) is callable, named exports reachable; node-fetch@2 still works",
    { timeout: 240_000 },
    async () => {
      const code = `
      const fetch = require("node-fetch");
      const { Headers } = require("node-fetch");
      const fetch2 = require("node-fetch@2");
      module.exports = {
        props: { http: "$.interface.http" },
        async run(event) {
          const v3 = await (await fetch(event.body.url + "/three")).json();
          const v2 = await (await fetch2(event.body.url + "/two")).json();
          this.$emit({ kind: typeof fetch, v3, v2, header: new Headers({ a: "1" }).get("a"), named: typeof fetch.Response, hasDefault: typeof fetch.default });
        },
      };`;
      const src = await alice.client.createSource({ component_code: code });
      await hit(endpointOf(src), { body: { url: apiUrl } });
      expect(await firstEvent(alice, src.id)).toEqual({
        kind: "function",
        v3: { path: "/three" },
        v2: { path: "/two" },
        header: "1",
        named: "function",
        hasDefault: "function",
      });
    },
  );

  it("import of an ESM-only package gets its default and named exports", { timeout: 240_000 }, async () => {
    const code = `
      import fetch, { Headers } from "node-fetch";
      import * as ns from "node-fetch";
      export default {
        props: { http: "$.interface.http" },
        async run(event) {
          const got = await (await fetch(event.body.url + "/esm")).json();
          this.$emit({ got, header: new Headers({ b: "2" }).get("b"), nsDefault: typeof ns.default, nsNamed: typeof ns.Request });
        },
      };`;
    const src = await alice.client.createSource({ component_code: code });
    await hit(endpointOf(src), { body: { url: apiUrl } });
    expect(await firstEvent(alice, src.id)).toEqual({
      got: { path: "/esm" },
      header: "2",
      nsDefault: "function",
      nsNamed: "function",
    });
  });

  it(
    "import x from a CommonJS package gets module.exports, even one marked __esModule (uuid 8)",
    { timeout: 240_000 },
    async () => {
      const code = `
      import uuid from "uuid@8.3.2";
      import { validate } from "uuid@8.3.2";
      import * as all from "uuid@8.3.2";
      export default {
        props: { http: "$.interface.http" },
        run() {
          const id = uuid.v4();
          this.$emit({ valid: validate(id), version: uuid.version(id), star: typeof all.v4, starDefault: all.default === uuid });
        },
      };`;
      const src = await alice.client.createSource({ component_code: code });
      await hit(endpointOf(src), { body: {} });
      expect(await firstEvent(alice, src.id)).toEqual({
        valid: true,
        version: 4,
        star: "function",
        starDefault: true,
      });
    },
  );
});
