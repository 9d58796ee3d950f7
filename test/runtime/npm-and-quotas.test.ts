/** npm imports by name (package cache), quotas, and app props with relative imports. */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WorkflowErrorEvent } from "../../shared/resources/index.js";
import { serveFiles, type FilesServer } from "../support/files-server.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { channelEvents, fixture, hit, waitForEvents } from "./helpers.js";

const endpointOf = (src: { configured_props: Record<string, unknown> }) => (src.configured_props.http as { endpoint_url: string }).endpoint_url;

describe("npm imports by name", () => {
  let s: TestServer;
  let alice: TestUser;

  beforeAll(async () => {
    s = await startServer();
    alice = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("installs a package by name and a pinned one into the shared cache on first use", { timeout: 180_000 }, async () => {
    const src = await alice.client.createSource({ component_code: fixture("npm-import.mjs") });
    await hit(endpointOf(src), { body: { value: 42 } });
    const [e] = await waitForEvents(alice.client, src.id, "", 1);
    expect(e!.event).toEqual({ isNumber: true, padded: "00042" });
    const cache = fs.readdirSync(path.join(s.dataDir, "npm"));
    expect(cache).toEqual(expect.arrayContaining(["is-number@latest", "left-pad@1.3.0"]));
  });

  it("fails clearly for a package that does not exist", { timeout: 120_000 }, async () => {
    const code = `import x from "headwater-no-such-package-${Date.now()}"; export default { run() {} };`;
    const r = await hit(`${s.baseUrl}/components`, { body: { component_code: code }, headers: { authorization: `Bearer ${alice.key}` } });
    expect(r.status).toBe(400);
    expect(String(r.json.error)).toMatch(/headwater-no-such-package-\d+" could not be installed/);
  });
});

describe("quotas", () => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    s = await startServer({ env: { HEADWATER_DAILY_INVOCATIONS_QUOTA: "2" } });
    alice = await s.newUser();
    bob = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("counts invocations and compute time in GET /users/me; over quota nothing runs, 429 and QUOTA_EXCEEDED", async () => {
    const src = await alice.client.createSource({ component_code: fixture("batcher.js"), configured_props: { size: 1 } });
    const url = endpointOf(src);
    expect((await hit(url, { body: { i: 1 } })).status).toBe(200);
    await waitForEvents(alice.client, src.id, "", 1);
    expect((await hit(url, { body: { i: 2 } })).status).toBe(200);
    await waitForEvents(alice.client, src.id, "", 2);
    const me = await alice.client.getMe();
    expect(me).toMatchObject({ daily_invocations_quota: 2, daily_invocations_used: 2 });
    expect(me.daily_compute_time_used).toBeGreaterThan(0);

    const refused = await hit(url, { body: { i: 3 } });
    expect(refused.status).toBe(429);
    expect(refused.json.code).toBe("quota_exceeded");
    const [err] = await waitForEvents(alice.client, src.id, "$errors", 1);
    expect(err!.event).toMatchObject({ error: { code: "QUOTA_EXCEEDED" }, original_event: { body: { i: 3 } } });
    expect(await channelEvents(alice.client, src.id, "")).toHaveLength(2);

    // A workflow's endpoint is refused the same way, recorded in the workflow's $errors shape.
    const wf = await alice.client.createWorkflow({ name: "over quota", steps: [{ code: "export default { run() { return 1; } }" }] });
    const wfRefused = await hit(wf.endpoint_url as string, { body: { w: 1 } });
    expect(wfRefused.status).toBe(429);
    const wfErrors = await alice.client.listWorkflowErrors(wf.id, { expand: "event" });
    expect(wfErrors.data.map((e) => WorkflowErrorEvent.parse(e.event).error.code)).toEqual(["QUOTA_EXCEEDED"]);

    // Another user's quota is their own.
    const other = await bob.client.createSource({ component_code: fixture("batcher.js"), configured_props: { size: 1 } });
    expect((await hit(endpointOf(other), { body: { i: 1 } })).status).toBe(200);
    await waitForEvents(bob.client, other.id, "", 1);
  });
});

describe("app props and relative imports", () => {
  let s: TestServer;
  let alice: TestUser;
  let files: FilesServer;

  beforeAll(async () => {
    // The component_url is served from 127.0.0.1, a private address the server refuses by default.
    s = await startServer({ env: { HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: "true" } });
    alice = await s.newUser();
    files = await serveFiles({
      "/sources/new-thing.mjs": fixture("app-source.mjs"),
      "/example.app.mjs": fixture("example.app.mjs"),
      "/common/util.mjs": fixture("util.mjs"),
    });
  });
  afterAll(async () => {
    await files?.close();
    await s?.stop();
  });

  it("exposes the app's methods and $auth on this.<prop> and resolves propDefinitions", async () => {
    const src = await alice.client.createSource({
      component_url: `${files.url}/sources/new-thing.mjs`,
      configured_props: { example: { $auth: { api_key: "k-123" } }, channel: "general" },
    });
    const component = await alice.client.getComponent(src.component_id);
    expect(component.configurable_props).toEqual([
      // authFields: the $auth fields the app's code reads; remoteOptions: the definition has options().
      { name: "example", type: "app", app: "example", authFields: ["api_key"] },
      { name: "channel", type: "string", label: "Channel", description: "Where to post", remoteOptions: true },
      { name: "http", type: "$.interface.http" },
    ]);
    await hit(endpointOf(src), { body: { text: "hi" } });
    const [e] = await waitForEvents(alice.client, src.id, "", 1);
    // The app's method read `$auth.api_key`; the credential itself never reaches a stored event
    // (a credential-named field's value is masked in what a run emits: server/secrets/redact.ts).
    expect(e!.event).toEqual({ auth: "Bearer ****", url: "https://api.example.test/channels/general", text: "HI" });
  });
});
