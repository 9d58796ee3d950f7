/**
 * Our @pipedream/platform and @pipedream/types against the vendor's published packages: the
 * export list is read from the registry at test time (a fixed version, installed into a temp
 * dir and required in a child process); the behaviour is checked in the sandbox.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { installVendor, vendorTempDir } from "../support/vendor-packages.js";
import { channelEvents, fixture, hit, waitForEvents } from "./helpers.js";

const PLATFORM = "@pipedream/platform@3.4.0";
const TYPES = "@pipedream/types@0.3.4";
const requireHere = createRequire(import.meta.url);

/** name → typeof, for a module's exports. */
function kinds(mod: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(mod).map(([k, v]) => [k, typeof v]));
}

describe("@pipedream/platform exports", () => {
  let dir: string;
  beforeAll(() => {
    dir = vendorTempDir();
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it(`has every export of ${PLATFORM} and ${TYPES}, of the same kind`, { timeout: 300_000 }, async () => {
    await installVendor([PLATFORM, TYPES], dir);
    const script = `const k = (m) => Object.fromEntries(Object.entries(m).map(([n, v]) => [n, typeof v]));
      console.log(JSON.stringify({ platform: k(require("@pipedream/platform")), types: k(require("@pipedream/types")) }));`;
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], {
      cwd: dir,
      timeout: 60_000,
    });
    const vendor = JSON.parse(stdout) as { platform: Record<string, string>; types: Record<string, string> };
    expect(Object.keys(vendor.platform).length).toBeGreaterThan(20);
    const ours = {
      platform: kinds(
        requireHere("../../server/runtime/sandbox/shims/platform.cjs") as Record<string, unknown>,
      ),
      types: kinds(requireHere("../../server/runtime/sandbox/shims/types.cjs") as Record<string, unknown>),
    };
    for (const pkg of ["platform", "types"] as const) {
      const missing = Object.keys(vendor[pkg]).filter((name) => !(name in ours[pkg]));
      expect(missing, `exports of @pipedream/${pkg} we lack`).toEqual([]);
      const differ = Object.entries(vendor[pkg]).filter(([name, kind]) => ours[pkg][name] !== kind);
      expect(differ, `exports of @pipedream/${pkg} of another kind`).toEqual([]);
    }
  });
});

/** The local API the component calls. */
function startApi(): Promise<{ url: string; signed: unknown[]; close: () => Promise<void> }> {
  const signed: unknown[] = [];
  const server = http.createServer((req, res) => {
    const u = new URL(req.url ?? "/", "http://x");
    const json = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString()));
    req.on("end", () => {
      if (u.pathname === "/echo")
        return json(200, {
          path: u.pathname,
          query: Object.fromEntries(u.searchParams),
          search: u.search,
          headers: { a: req.headers["x-a"] ?? null, b: req.headers["x-b"] ?? null },
        });
      if (u.pathname === "/fail") return json(422, { error: "name is required" });
      if (u.pathname === "/sign") {
        signed.push(JSON.parse(body));
        return res.writeHead(200, { "content-type": "text/plain" }).end('OAuth oauth_signature="sig"');
      }
      if (u.pathname === "/auth")
        return json(200, { authorization: req.headers.authorization, q: u.searchParams.get("q") });
      if (u.pathname === "/files/sized.txt") {
        return res
          .writeHead(200, {
            "content-type": "text/plain",
            "content-length": "11",
            "last-modified": "Tue, 03 Nov 2026 10:00:00 GMT",
            etag: '"v1"',
          })
          .end("hello world");
      }
      if (u.pathname === "/files/chunked.csv") {
        res.writeHead(200, { "content-type": "text/csv" });
        res.write("a,b\n");
        setTimeout(() => res.end("1,2\n"), 20);
        return;
      }
      res.writeHead(404).end("not here");
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        signed,
        close: () => new Promise<void>((r) => server.close(() => r())),
      }),
    ),
  );
}

describe("@pipedream/platform in the sandbox", () => {
  let s: TestServer;
  let alice: TestUser;
  let api: Awaited<ReturnType<typeof startApi>>;

  beforeAll(async () => {
    api = await startApi();
    s = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "1" } });
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
    await api?.close();
  });

  it(
    "axios($, config), file streams, SQL mixins, JSON helpers and the send checks work as documented",
    { timeout: 60_000 },
    async () => {
      const src = await alice.client.createSource({ component_code: fixture("platform-shim.mjs") });
      const endpoint = (src.configured_props.http as { endpoint_url: string }).endpoint_url;
      expect((await hit(endpoint, { body: { base: api.url } })).status).toBe(200);
      const [e] = await waitForEvents(alice.client, src.id, "", 1, 30_000).catch(async (err: Error) => {
        // Say why: the run's error, if there was one.
        const errors = await channelEvents(alice.client, src.id, "$errors");
        throw new Error(
          `${err.message}; $errors: ${JSON.stringify(errors.map((x) => x.event)).slice(0, 3000)}`,
        );
      });
      const out = e!.event as Record<string, unknown>;
      // The query string moves into params (params win), undefined headers and params go.
      // A repeated key stays in the URL (params would keep one of them).
      expect(out.repeated).toBe("?tag=a&tag=b&n=1");
      expect(out.data).toEqual({
        path: "/echo",
        query: { page: "2", limit: "5" },
        search: "?limit=5&page=2",
        headers: { a: "1", b: null },
      });
      expect(out.full).toEqual({ status: 200, type: "application/json", path: "/echo" });
      // The error carries the response; its message is the body; the config (token) is gone.
      expect(out.error).toEqual({
        name: "AxiosError - Request failed with status code 422",
        message: '{"error":"name is required"}',
        status: 422,
        data: { error: "name is required" },
        leaks: false,
      });
      expect(out.body).toEqual({ name: "ConfigurationError", configuration: true });
      expect(out.debug).toEqual({ configUrl: `${api.url}/echo`, response: { d: "1" } });
      // OAuth 1: the signer gets the request as signed (RFC 3986 query), its answer is the header.
      expect(out.signed).toEqual({ authorization: 'OAuth oauth_signature="sig"', q: "a b!" });
      expect(api.signed).toEqual([
        { requestData: { method: "get", url: `${api.url}/auth?q=a%20b%21` }, token: { key: "k" } },
      ]);
      expect(out.oauthRequest).toEqual({
        method: "post",
        url: `${api.url}/x?q=%281%29`,
        data: { a: "1", b: "2" },
      });
      expect(out.created).toEqual({ x: "1", z: "2" });
      for (const m of [
        "sqlProp.executeQueryAdapter",
        "sqlProp.getSchema",
        "sqlProxy.getClientConfiguration",
        "sqlProxy.executeQuery",
        "sqlProxy.proxyAdapter",
      ]) {
        expect(out[m], m).toBe("ConfigurationError");
      }
      // A cycle is left out (in an array, as JSON writes a missing value: null).
      expect(JSON.parse(out.json as string)).toEqual({ a: 1, list: [1, 2, null] });
      expect(out.clone).toEqual({ big: "10", keep: "x" });
      expect(out.sized).toEqual({
        size: 11,
        contentType: "text/plain",
        lastModified: "2026-11-03T10:00:00.000Z",
        name: "sized.txt",
        etag: '"v1"',
        text: "hello world",
      });
      expect(out.chunked).toEqual({
        size: 8,
        contentType: "text/csv",
        name: "chunked.csv",
        text: "a,b\n1,2\n",
      });
      expect(out.dataUrl).toEqual({ size: 5, contentType: "text/plain", text: "hello" });
      expect(out.disk).toEqual({
        size: 7,
        contentType: "application/json",
        name: "note.json",
        text: '{"n":1}',
      });
      expect(out.plainStream).toBe("hello world");
      expect(out.missing).toBe("Failed to fetch BASE/files/missing: 404 Not Found");
      expect(out.interval).toBe(900);
      expect(out.sendChecks).toEqual([true, "Left"]);
      expect(out.end).toBe("enough");
    },
  );
});
