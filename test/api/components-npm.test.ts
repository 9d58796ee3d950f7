/**
 * The vendor's npm packages as a registry: a key no published or built-in component has is found
 * in `@pipedream/<app>` (installed from the npm registry at test time, at a fixed version: the
 * vendor's code is never committed here), loaded with its relative imports, saved once, and
 * deployable by key. HEADWATER_NPM_COMPONENTS=0 turns the lookup off (a plain 404).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";
import { NpmComponents } from "../../server/components/npm-registry.js";
import { expectApiError, timerComponent } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";

/** A small vendor source: an HTTP API, an app file one folder up, and an npm dependency. */
const PACKAGE = "@pipedream/pipedream";
const VERSION = "0.4.2";
const KEY = "pipedream-new-scheduled-tasks";
const INSTALL_MS = 240_000;

describe("the vendor's npm packages as a registry", () => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    s = await startServer({
      env: { HEADWATER_NPM_COMPONENTS: "1", HEADWATER_NPM_COMPONENT_VERSIONS: `${PACKAGE}@${VERSION}` },
    });
    alice = await s.newUser();
    bob = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("refuses publishing a vendor key nobody looked up yet (409); keys the vendor does not have stay free", { timeout: INSTALL_MS }, async () => {
    // First of all in this server: no lookup has saved the vendor's component yet.
    const mallory = await s.newUser();
    const mine = await mallory.client.createComponent({ component_code: timerComponent(KEY, "Not the vendor's") });
    await expectApiError(mallory.client.publishComponent(mine.id), 409, "conflict");
    expect((await mallory.client.getComponent(mine.id)).published).toBe(false);
    const registry = await alice.client.getRegistryComponent(KEY);
    expect(registry.component_url).toBe(`npm:${PACKAGE}@${VERSION}/sources/new-scheduled-tasks/new-scheduled-tasks.mjs`);
    // The package without that key, and a package npm does not have: published.
    for (const key of ["pipedream-mallorys-own", "hwnosuchapp0-mallorys-own"]) {
      const own = await mallory.client.createComponent({ component_code: timerComponent(key, "Mallory's own") });
      expect((await mallory.client.publishComponent(own.id)).published).toBe(true);
      expect((await bob.client.getRegistryComponent(key)).id).toBe(own.id);
    }
  });

  it("GET /components/registry/{key} installs the package, finds the source by key and describes it", { timeout: INSTALL_MS }, async () => {
    const c = await alice.client.getRegistryComponent(KEY);
    expect(c).toMatchObject({
      key: KEY,
      name: "New Scheduled Tasks",
      published: true,
      component_url: `npm:${PACKAGE}@${VERSION}/sources/new-scheduled-tasks/new-scheduled-tasks.mjs`,
    });
    expect(c.code).toContain(`key: "${KEY}"`);
    expect(c.configurable_props.map((p) => [p.name, p.type])).toEqual([
      ["pipedream", "app"],
      ["secret", "string"],
      ["http", "$.interface.http"],
      ["db", "$.service.db"],
    ]);
    expect(c.configurable_props[0]).toMatchObject({ app: "pipedream" });
    // Saved after first use: every later lookup is the same component, without npm.
    const again = await bob.client.getRegistryComponent(KEY);
    expect(again.id).toBe(c.id);
    expect((await bob.client.getComponent(c.id)).key).toBe(KEY);
  });

  it("POST /sources/ with the key alone deploys it; the account's own component with that key comes first", { timeout: INSTALL_MS }, async () => {
    const registry = await bob.client.getRegistryComponent(KEY);
    const src = await bob.client.createSource({ key: KEY, configured_props: { secret: "s3cret" } });
    expect(src.component_id).toBe(registry.id);
    expect(src.configured_props).toMatchObject({
      secret: "s3cret",
      http: { endpoint_url: `${s.origin}/e/${src.id}` },
    });
    const mine = await alice.client.createComponent({ component_code: timerComponent(KEY, "Alice's fork") });
    expect((await alice.client.createSource({ key: KEY })).component_id).toBe(mine.id);
  });

  it("a key the package does not have, or a package npm does not have, is a 404", { timeout: INSTALL_MS }, async () => {
    await expectApiError(alice.client.getRegistryComponent("pipedream-no-such-source"), 404, "not_found");
    await expectApiError(alice.client.createSource({ key: "pipedream-no-such-source" }), 404, "not_found");
    await expectApiError(alice.client.getRegistryComponent("hwnosuchapp0-new-thing"), 404, "not_found");
    // Not a key that can name a package at all.
    await expectApiError(alice.client.getRegistryComponent("Not A Key"), 404, "not_found");
  });

  it("GET /components/search with an app's name fetches its package and lists its sources; no such package is said, not an error", { timeout: INSTALL_MS }, async () => {
    const found = await alice.client.searchComponents({ q: "pipedream" });
    expect(found.app).toEqual({ name: "pipedream", package: PACKAGE, status: "listed" });
    expect(found.data).toContainEqual(expect.objectContaining({ key: KEY, type: "source", package: PACKAGE }));
    // The package is fetched now: its sources answer other words too, by their names.
    const byName = await bob.client.searchComponents({ q: "scheduled tasks" });
    expect(byName.data.map((m) => m.key)).toContain(KEY);
    const none = await alice.client.searchComponents({ q: "zzqqnoapp" });
    expect(none).toEqual({ data: [], app: { name: "zzqqnoapp", package: "@pipedream/zzqqnoapp", status: "not_found" } });
  });
});

describe("publishing while the vendor's packages cannot be checked", () => {
  let s: TestServer;
  let alice: TestUser;
  const retries = process.env.npm_config_fetch_retries;

  beforeAll(async () => {
    // A registry nobody answers at (npm asked once, not after its usual retries).
    process.env.npm_config_fetch_retries = "0";
    s = await startServer({ env: { HEADWATER_NPM_COMPONENTS: "1", HEADWATER_NPM_REGISTRY: "http://127.0.0.1:9/" } });
    alice = await s.newUser();
  });
  afterAll(async () => {
    if (retries === undefined) delete process.env.npm_config_fetch_retries;
    else process.env.npm_config_fetch_retries = retries;
    await s?.stop();
  });

  it("is a 503 to retry for a key a package may hold, and publishes nothing; other keys publish", { timeout: INSTALL_MS }, async () => {
    const mine = await alice.client.createComponent({ component_code: timerComponent(KEY, "Not the vendor's") });
    await expectApiError(alice.client.publishComponent(mine.id), 503, "component_fetch_failed");
    expect((await alice.client.getComponent(mine.id)).published).toBe(false);
    // A key that cannot name a package needs no lookup.
    const plain = await alice.client.createComponent({ component_code: timerComponent("mytimer", "Plain") });
    expect((await alice.client.publishComponent(plain.id)).published).toBe(true);
  });
});

describe("HEADWATER_NPM_COMPONENTS=0", () => {
  let s: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    s = await startServer({ env: { HEADWATER_NPM_COMPONENTS: "0" } });
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("leaves a key no registry component has a 404, and installs nothing", async () => {
    await expectApiError(alice.client.getRegistryComponent(KEY), 404, "not_found");
    await expectApiError(alice.client.createSource({ key: KEY }), 404, "not_found");
    const fs = await import("node:fs");
    const cached = fs.existsSync(`${s.dataDir}/npm`) ? fs.readdirSync(`${s.dataDir}/npm`) : [];
    expect(cached.filter((d) => d.startsWith("@pipedream+"))).toEqual([]);
  });
});

describe("configuration and package names", () => {
  it("reads HEADWATER_NPM_COMPONENTS and the pinned versions, and refuses a bad list", () => {
    const on = loadConfig({ HEADWATER_NPM_COMPONENT_VERSIONS: "@pipedream/postgresql@2.2.4, @pipedream/slack@^0.10" });
    expect(on.npm.components).toBe(true);
    expect(on.npm.componentVersions).toEqual({ "@pipedream/postgresql": "2.2.4", "@pipedream/slack": "^0.10" });
    expect(loadConfig({ HEADWATER_NPM_COMPONENTS: "0" }).npm.components).toBe(false);
    expect(() => loadConfig({ HEADWATER_NPM_COMPONENT_VERSIONS: "left-pad@1.0.0" })).toThrow(ConfigError);
  });

  it("takes the package from the key's part before its first dash", () => {
    expect(NpmComponents.packageFor("postgresql-new-row")).toBe("@pipedream/postgresql");
    expect(NpmComponents.packageFor("google_sheets-new-row-added")).toBe("@pipedream/google_sheets");
    for (const bad of ["schedule", "-x", "Upper-case", "../etc-passwd", "a/b-c", ""])
      expect(NpmComponents.packageFor(bad), bad).toBeUndefined();
  });
});
