import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunBatch, StreamBatch, StreamStateUpdate } from "../../shared/bridge.js";
import { Host } from "../core/host.js";
import { MemoryKeyVault } from "../core/key-vault.js";
import { MemorySettingsStore } from "../core/settings.js";
import { startFakeApi, type FakeApi } from "../core/testing/fake-api.js";
import { waitFor } from "../core/testing/wait.js";
import { createWebBridge } from "./client/index.js";
import { startWebServer, type WebServer } from "./server.js";

const TOKEN = "per-launch-token-0123456789";
let api: FakeApi;
let host: Host;
let web: WebServer;
let rendererDir: string;

beforeEach(async () => {
  api = await startFakeApi();
  rendererDir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-renderer-"));
  fs.writeFileSync(path.join(rendererDir, "index.html"), "<!doctype html><html><head><title>t</title></head><body>app</body></html>");
  fs.mkdirSync(path.join(rendererDir, "assets"));
  fs.writeFileSync(path.join(rendererDir, "assets", "app.js"), "console.log(1)");
  host = new Host({
    mode: "web",
    version: "t",
    appRoot: "/nonexistent",
    userDataDir: "/nonexistent",
    settings: new MemorySettingsStore(),
    vault: new MemoryKeyVault(),
    env: { baseUrl: api.baseUrl, apiKey: api.key },
  });
  web = await startWebServer({ host, port: 0, token: TOKEN, rendererDir, bridgeScript: async () => "/* bridge */" });
});
afterEach(async () => {
  await web.close();
  await host.stop();
  await api.close();
});

const post = (method: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${web.origin}/__headwater/call/${method}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** A raw request, to send a Host header fetch would not let us set. */
function rawGet(pathname: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${web.origin}${pathname}`, { headers }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

/** A raw GET whose path is sent exactly as given (fetch would normalise `..`). */
function rawRequest(pathname: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: web.port, path: pathname }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("web host", () => {
  it("prints a URL with the token and answers bridge calls only with that token", async () => {
    expect(web.url).toBe(`${web.origin}/?token=${TOKEN}`);
    const good = await post("getMe", { args: [] });
    expect(good.status).toBe(200);
    const body = (await good.json()) as { ok: boolean; value: Record<string, unknown> };
    expect(body).toMatchObject({ ok: true, value: { username: "tester" } });
    expect(body.value).not.toHaveProperty("api_key");

    for (const auth of [undefined, "Bearer wrong", `Bearer ${TOKEN}x`, TOKEN]) {
      const res = await fetch(`${web.origin}/__headwater/call/getMe`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(auth ? { Authorization: auth } : {}) },
        body: "{}",
      });
      expect(res.status).toBe(401);
    }
    const events = await fetch(`${web.origin}/__headwater/events`, { headers: { "X-Headwater-Session": "abcdefgh-1" } });
    expect(events.status).toBe(401);
  });

  it("refuses other Host names (DNS rebinding) and cross-origin pages", async () => {
    expect(await rawGet("/", { Host: "evil.example:80" })).toBe(421);
    expect(await rawGet("/", { Host: `127.0.0.1:${web.port}` })).toBe(200);
    const res = await post("getMe", { args: [] }, { Origin: "http://evil.example" });
    expect(res.status).toBe(403);
  });

  it("answers malformed requests with clear 4xx and never runs them", async () => {
    expect((await post("getMe", "{oops")).status).toBe(400);
    const noJson = await fetch(`${web.origin}/__headwater/call/getMe`, {
      method: "POST",
      headers: { Authorization: `Bearer ${TOKEN}`, "Content-Type": "text/plain" },
      body: "{}",
    });
    expect(noJson.status).toBe(415);
    expect((await post("getMe", { args: ["x".repeat(3 * 1024 * 1024)] })).status).toBe(413);
    const bad = (await (await post("updateSource", { args: ["dc_a", { active: "yes" }] })).json()) as { ok: boolean; error: { code: string } };
    expect(bad).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect((await fetch(`${web.origin}/__headwater/call/getMe`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(405);
  });

  it("serves the renderer with the bridge script injected and a strict CSP, and no file outside it", async () => {
    const res = await fetch(`${web.origin}/sources/dc_a`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('<script src="/__headwater/bridge.js"></script>');
    expect(res.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await (await fetch(`${web.origin}/assets/app.js`)).text()).toBe("console.log(1)");
    expect(await (await fetch(`${web.origin}/__headwater/bridge.js`)).text()).toBe("/* bridge */");
    for (const p of ["/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/assets/..%2f..%2f..%2fetc%2fpasswd"]) {
      const { status, body } = await rawRequest(p);
      expect(body).not.toContain("root:");
      expect([200, 404]).toContain(status);
    }
    expect((await fetch(`${web.origin}/missing.js`)).status).toBe(404);
  });

  it("the browser bridge receives live batches (events and runs) and states over the push stream", async () => {
    const bridge = createWebBridge({ origin: web.origin, token: TOKEN });
    const batches: StreamBatch[] = [];
    const states: StreamStateUpdate[] = [];
    bridge.onStreamBatch((b) => batches.push(b));
    bridge.onStreamState((s) => states.push(s));
    const w = await bridge.watch("dc_a", "");
    if (!w.ok) throw new Error(w.error.message);
    await waitFor(() => states.some((s) => s.watchId === w.value && s.state === "open"));
    const e = api.emit("dc_a", { n: 1 });
    await waitFor(() => batches.some((b) => b.events.some((x) => x.id === e.id)));
    expect(await bridge.unwatch(w.value)).toEqual({ ok: true });
    await waitFor(() => states.some((s) => s.watchId === w.value && s.state === "closed"));

    // A workflow's runs: through the host's runs stream, to the page that follows them.
    const runBatches: RunBatch[] = [];
    bridge.onRunBatch((b) => runBatches.push(b));
    const other = createWebBridge({ origin: web.origin, token: TOKEN });
    const otherBatches: RunBatch[] = [];
    other.onRunBatch((b) => otherBatches.push(b));
    const rw = await bridge.watchRuns("p_w");
    if (!rw.ok) throw new Error(rw.error.message);
    await waitFor(() => states.some((s) => s.watchId === rw.value && s.state === "open"));
    api.putRun({
      id: "r_1",
      workflow_id: "p_w",
      status: "running",
      trigger: { type: "HTTP" },
      attempt: 1,
      started_at_ms: 1,
      ended_at_ms: null,
      duration_ms: null,
      event: {},
      steps: [],
      response: null,
      error: null,
      exit_reason: null,
    });
    await waitFor(() => runBatches.some((b) => b.watchId === rw.value && b.runs.some((r) => r.id === "r_1")));
    expect(otherBatches).toEqual([]);
    expect(await bridge.unwatch(rw.value)).toEqual({ ok: true });

    const wrong = createWebBridge({ origin: web.origin, token: "nope" });
    const r = await wrong.getMe();
    expect(r).toMatchObject({ ok: false, error: { status: 401 } });
  });
});
