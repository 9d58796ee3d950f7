/**
 * "Send test event" through the host against a real server: the request goes to the HTTP
 * source's own endpoint from the host, the response comes back whole, the event lands in the
 * source's events, and the kept copy never holds a secret header.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { SavedTestRequest, TestResponse } from "../../shared/bridge.js";
import type { Source } from "../../shared/resources/index.js";
import { startServer, type TestServer } from "../../test/support/server.js";
import { Host } from "./host.js";
import { MemoryKeyVault } from "./key-vault.js";
import { MemorySettingsStore } from "./settings.js";

let server: TestServer;
let host: Host;
let settings: MemorySettingsStore;
let source: Source;

const ok = async <T>(p: Promise<{ ok: boolean; value?: unknown; error?: unknown }>) => {
  const r = await p;
  if (!r.ok) throw new Error(`call failed: ${JSON.stringify(r.error)}`);
  return r.value as T;
};

beforeAll(async () => {
  server = await startServer();
  settings = new MemorySettingsStore();
  host = new Host({
    mode: "web",
    version: "0.0.0-test",
    appRoot: "/nonexistent",
    userDataDir: "/nonexistent",
    settings,
    vault: new MemoryKeyVault(),
  });
  await ok(
    host.call("addRemoteProfile", [{ name: "Test", baseUrl: server.baseUrl, apiKey: server.adminKey }]),
  );
  source = await server.admin.createSource({ key: "http-new-requests", name: "hooks" });
}, 60_000);

afterAll(async () => {
  await host?.stop();
  await server?.stop();
});

describe("sendTestRequest", () => {
  it("sends to the source's endpoint from the host and answers status, headers and body; the event arrives", async () => {
    const res = await ok<TestResponse>(
      host.call("sendTestRequest", [
        source.id,
        {
          method: "POST",
          path: "/orders/7?via=test",
          headers: [
            { name: "X-Trace", value: "abc" },
            { name: "Authorization", value: "Bearer very-secret" },
            { name: "X-Api-Key", value: "k-123" },
          ],
          body: '{"order": 7}',
        },
      ]),
    );
    const endpoint = (source.configured_props.http as { endpoint_url: string }).endpoint_url;
    expect(res.url).toBe(`${endpoint}/orders/7?via=test`);
    expect(res.status).toBe(200);
    expect(res.headers.length).toBeGreaterThan(0);
    const events = await vi.waitFor(
      async () => {
        const page = await server.admin.listSourceEvents(source.id, { expand: "event" });
        if (page.data.length === 0) throw new Error("no event yet");
        return page;
      },
      { timeout: 10_000, interval: 100 },
    );
    const event = events.data[0]!.event as {
      method: string;
      path: string;
      body: unknown;
      headers: Record<string, string>;
    };
    expect(event).toMatchObject({ method: "POST", path: "/orders/7", body: { order: 7 } });
    expect(event.headers["x-trace"]).toBe("abc");
    expect(event.headers["content-type"]).toBe("application/json");

    // Kept to send again, without the credential headers, in the settings store.
    const kept = await ok<SavedTestRequest[]>(host.call("listTestRequests", [source.id]));
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ method: "POST", path: "/orders/7?via=test", body: '{"order": 7}' });
    expect(kept[0]!.headers).toEqual([{ name: "X-Trace", value: "abc" }]);
    const stored = JSON.stringify(settings.read());
    expect(stored).not.toContain("very-secret");
    expect(stored).not.toContain("k-123");
  });

  it("keeps the last five, newest first, the same request once", async () => {
    for (let i = 1; i <= 7; i++) {
      await ok(
        host.call("sendTestRequest", [source.id, { method: "POST", path: `/n/${i}`, headers: [], body: "" }]),
      );
    }
    await ok(
      host.call("sendTestRequest", [source.id, { method: "POST", path: "/n/7", headers: [], body: "" }]),
    );
    const kept = await ok<SavedTestRequest[]>(host.call("listTestRequests", [source.id]));
    expect(kept.map((r) => r.path)).toEqual(["/n/7", "/n/6", "/n/5", "/n/4", "/n/3"]);
  });

  it("refuses a body that is not JSON, a path that is not a path, and an emitter without an endpoint", async () => {
    const bad = await host.call("sendTestRequest", [
      source.id,
      { method: "POST", path: "/", headers: [], body: "{nope" },
    ]);
    expect(bad).toMatchObject({ ok: false, error: { status: 400, code: "invalid_argument" } });
    expect(!bad.ok && bad.error.message).toMatch(/not valid JSON/);
    expect(
      await host.call("sendTestRequest", [
        source.id,
        { method: "POST", path: "http://elsewhere/", headers: [], body: "" },
      ]),
    ).toMatchObject({ ok: false, error: { status: 400, code: "invalid_argument" } });
    const timer = await server.admin.createSource({
      component_code: `export default { name: "t", version: "0.0.1", props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 3600 } } }, async run() {} }`,
      name: "timer",
    });
    const none = await host.call("sendTestRequest", [
      timer.id,
      { method: "POST", path: "/", headers: [], body: "" },
    ]);
    expect(none).toMatchObject({ ok: false, error: { status: 400, code: "no_endpoint" } });
    expect(
      await host.call("sendTestRequest", [
        "dc_doesnotexist",
        { method: "POST", path: "/", headers: [], body: "" },
      ]),
    ).toMatchObject({
      ok: false,
      error: { status: 404 },
    });
  });
});
