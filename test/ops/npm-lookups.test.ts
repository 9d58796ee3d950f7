/**
 * Vendor package lookups cannot be used to load the server (issue 19, decisions.md Operating a
 * server): a missing `@pipedream/<app>` is a 404 known from the registry itself, whatever npm's
 * log level; a miss is remembered (asking again asks nothing and spawns nothing); a user may
 * start only so many installs of new packages per hour (admins exempt); no answer carries a
 * server path or a command line. A local registry counts what the server asks of it.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectApiError, rawRequest } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

interface FakeRegistry {
  url: string;
  /** Paths asked, in order. */
  asked: string[];
  /** Requests in flight at most at once. */
  maxConcurrent: number;
  close(): Promise<void>;
}

/** A registry that has no package at all (404 to every metadata request), answering after `delayMs`. */
async function fakeRegistry(delayMs = 0): Promise<FakeRegistry> {
  const state = { asked: [] as string[], inFlight: 0, maxConcurrent: 0 };
  const server = http.createServer((req, res) => {
    state.asked.push(decodeURIComponent(req.url ?? ""));
    state.inFlight += 1;
    state.maxConcurrent = Math.max(state.maxConcurrent, state.inFlight);
    setTimeout(() => {
      state.inFlight -= 1;
      res.writeHead(404, { "content-type": "application/json" }).end('{"error":"Not found"}');
    }, delayMs);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/`,
    get asked() {
      return state.asked;
    },
    get maxConcurrent() {
      return state.maxConcurrent;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const importing = (pkg: string) => `import x from "${pkg}";
export default { key: "imp-${pkg}", name: "imports", version: "0.1.0", props: {}, async run() { this.$emit(x); } };`;

describe("vendor package lookups against a registry that has nothing", () => {
  let registry: FakeRegistry;
  let s: TestServer;
  let alice: TestUser;
  const savedLogLevel = process.env.npm_config_loglevel;

  beforeAll(async () => {
    // What `npm run --silent server` hands the server (and the server, its npm children).
    process.env.npm_config_loglevel = "silent";
    registry = await fakeRegistry(300);
    s = await startServer({
      env: {
        HEADWATER_NPM_COMPONENTS: "1",
        HEADWATER_NPM_REGISTRY: registry.url,
        HEADWATER_NPM_INSTALLS_PER_USER_HOUR: "2",
        HEADWATER_NPM_MAX_INSTALLS: "1",
      },
    });
    alice = await s.newUser();
  });
  afterAll(async () => {
    if (savedLogLevel === undefined) delete process.env.npm_config_loglevel;
    else process.env.npm_config_loglevel = savedLogLevel;
    await s?.stop();
    await registry?.close();
  });

  it("a key whose vendor package does not exist is 404 not_found, and asking again asks nothing", async () => {
    const key = `accept-abc${Date.now()}`;
    const first = await rawRequest(`${s.baseUrl}/components/registry/${key}`, { key: alice.key });
    expect(first.status).toBe(404);
    expect(first.body).toMatchObject({ code: "not_found" });
    expect(JSON.stringify(first.body)).not.toMatch(/npm|--|\/tmp|hw-test/);
    expect(registry.asked.filter((p) => p.includes("@pipedream/accept"))).toHaveLength(1);

    const started = Date.now();
    for (let i = 0; i < 5; i++) {
      const again = await rawRequest(`${s.baseUrl}/components/registry/${key}`, { key: alice.key });
      expect(again.status).toBe(404);
    }
    // Remembered: no more registry requests (so no npm either: it would ask the registry too).
    expect(registry.asked.filter((p) => p.includes("@pipedream/accept"))).toHaveLength(1);
    expect(Date.now() - started).toBeLessThan(1500);

    // A source by such a key: the same 404, from the same memory.
    await expectApiError(alice.client.createSource({ key }), 404, "not_found");
    expect(registry.asked.filter((p) => p.includes("@pipedream/accept"))).toHaveLength(1);
    // Nothing was installed into the package cache.
    expect(s.server.store.dialect).toBeDefined();
  });

  it("a user's installs of new packages are limited per hour (429 rate_limited + Retry-After); admins are not", async () => {
    const bob = await s.newUser();
    const tag = Date.now().toString(36);
    // Each import names a package the registry does not have: npm runs and fails (400).
    for (const n of [1, 2]) {
      const r = await rawRequest(`${s.baseUrl}/components`, {
        method: "POST",
        key: bob.key,
        body: JSON.stringify({ component_code: importing(`hw-missing-${tag}-${n}`) }),
      });
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(JSON.stringify(r.body)).not.toMatch(/--prefix|Command failed|\/tmp\/|hw-test-/);
    }
    const res = await fetch(`${s.baseUrl}/components`, {
      method: "POST",
      headers: { authorization: `Bearer ${bob.key}`, "content-type": "application/json" },
      body: JSON.stringify({ component_code: importing(`hw-missing-${tag}-3`) }),
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ code: "rate_limited" });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(registry.asked.some((p) => p.includes(`hw-missing-${tag}-3`))).toBe(false);

    // The admin is exempt: the same install runs (and fails: the registry has nothing).
    const admin = await rawRequest(`${s.baseUrl}/components`, {
      method: "POST",
      key: s.adminKey,
      body: JSON.stringify({ component_code: importing(`hw-missing-${tag}-3`) }),
    });
    expect(admin.status).toBe(400);
  });

  it("installs run one at a time server-wide (HEADWATER_NPM_MAX_INSTALLS=1); the others wait", async () => {
    const users = [await s.newUser(), await s.newUser(), await s.newUser()];
    const tag = Date.now().toString(36);
    const before = registry.maxConcurrent;
    expect(before).toBeLessThanOrEqual(1);
    const answers = await Promise.all(
      users.map((u, i) =>
        rawRequest(`${s.baseUrl}/components`, {
          method: "POST",
          key: u.key,
          body: JSON.stringify({ component_code: importing(`hw-wait-${tag}-${i}`) }),
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400]);
    for (const i of [0, 1, 2]) expect(registry.asked.some((p) => p.includes(`hw-wait-${tag}-${i}`))).toBe(true);
    // npm asks the registry one request at a time per install: one install at once means one request.
    expect(registry.maxConcurrent).toBe(1);
  });
});

describe("the issue's reproduction against the public registry", () => {
  let s: TestServer;
  const savedLogLevel = process.env.npm_config_loglevel;
  beforeAll(async () => {
    process.env.npm_config_loglevel = "silent";
    s = await startServer({ env: { HEADWATER_NPM_COMPONENTS: "1" } });
  });
  afterAll(async () => {
    if (savedLogLevel === undefined) delete process.env.npm_config_loglevel;
    else process.env.npm_config_loglevel = savedLogLevel;
    await s?.stop();
  });

  it("npm_config_loglevel=silent: GET /v1/components/registry/accept-abc123 is 404, then answered from memory", { timeout: 60_000 }, async () => {
    const first = await rawRequest(`${s.baseUrl}/components/registry/accept-abc123`, { key: s.adminKey });
    if (first.status === 503) {
      console.warn("the npm registry did not answer: skipping the public-registry reproduction");
      return;
    }
    expect(first.status, JSON.stringify(first.body)).toBe(404);
    expect(first.body).toMatchObject({ code: "not_found" });
    const started = Date.now();
    const again = await rawRequest(`${s.baseUrl}/components/registry/accept-abc123`, { key: s.adminKey });
    expect(again.status).toBe(404);
    expect(Date.now() - started).toBeLessThan(300);
  });
});
