/**
 * Electron main, bundled as for the app but with `electron` replaced by a recording fake, run
 * under plain Node: the window's security options, one IPC channel per bridge method with the
 * sender check, the app:// protocol with its CSP, keys encrypted at rest, and a clean quit.
 * (Where the real binary exists, e2e/electron runs the app itself.)
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BRIDGE_METHOD_NAMES } from "../../shared/bridge-names.js";
import { ensureRendererBuilt } from "../../scripts/build-renderer.mjs";
import { startFakeApi, type FakeApi } from "../core/testing/fake-api.js";
import { waitFor } from "../core/testing/wait.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
type Fake = {
  windows: Array<{ options: { webPreferences: Record<string, unknown> }; webContents: { id: number; sent: Array<{ channel: string }> } }>;
  ipcHandlers: Map<string, (...a: unknown[]) => Promise<unknown>>;
  protocolHandlers: Map<string, (req: Request) => Promise<Response>>;
  privilegedSchemes: Array<{ scheme: string }>;
  appEmitter: { emit(e: string, ...a: unknown[]): void };
  exitCode: number | undefined;
};

let api: FakeApi;
let fake: Fake;
const appData = fs.mkdtempSync(path.join(os.tmpdir(), "hw-electron-smoke-"));
const outDir = path.join(root, "dist", "electron-smoke");
const saved = { ...process.env };

beforeAll(async () => {
  await ensureRendererBuilt();
  api = await startFakeApi();
  await build({
    entryPoints: [path.join(root, "electron/main/main.ts")],
    outfile: path.join(outDir, "main.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    alias: { electron: path.join(root, "electron/main/testing/fake-electron.ts") },
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
    logLevel: "silent",
  });
  Object.assign(process.env, { HEADWATER_APP_DATA_DIR: appData, HEADWATER_API_URL: api.baseUrl, HEADWATER_API_KEY: api.key });
  await import(pathToFileURL(path.join(outDir, "main.mjs")).href);
  fake = (globalThis as unknown as { __fakeElectron: Fake }).__fakeElectron;
  await waitFor(() => fake.windows.length === 1 && fake.ipcHandlers.size > 0);
}, 120_000);

afterAll(async () => {
  process.env = saved;
  await api?.close();
  fs.rmSync(appData, { recursive: true, force: true });
  fs.rmSync(outDir, { recursive: true, force: true });
});

const trusted = () => ({ sender: { id: fake.windows[0]!.webContents.id }, senderFrame: { url: "app://dashboard/index.html", parent: null } });

describe("Electron main (with a fake electron module)", () => {
  it("opens one window with context isolation, sandbox, no node integration and the preload", () => {
    const prefs = fake.windows[0]!.options.webPreferences;
    expect(prefs).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true });
    expect(String(prefs.preload)).toMatch(/preload\.cjs$/);
    expect(fake.privilegedSchemes.map((s) => s.scheme)).toEqual(["app"]);
  });

  it("answers every bridge method over its own channel, for our page only", async () => {
    expect([...fake.ipcHandlers.keys()].sort()).toEqual(BRIDGE_METHOD_NAMES.map((m) => `headwater:${m}`).sort());
    const me = (await fake.ipcHandlers.get("headwater:getMe")!(trusted())) as { ok: boolean; value: Record<string, unknown> };
    expect(me).toMatchObject({ ok: true, value: { username: "tester" } });
    expect(me.value).not.toHaveProperty("api_key");
    const foreign = { sender: { id: 999 }, senderFrame: { url: "https://evil.example/", parent: null } };
    expect(await fake.ipcHandlers.get("headwater:getMe")!(foreign)).toMatchObject({ ok: false, error: { status: 403 } });
    expect(await fake.ipcHandlers.get("headwater:getSource")!(trusted(), "not-an-id")).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
  });

  it("pushes live batches to the window", async () => {
    const w = (await fake.ipcHandlers.get("headwater:watch")!(trusted(), "dc_smoke", "")) as { ok: boolean; value: string };
    expect(w.ok).toBe(true);
    api.emit("dc_smoke", { hello: 1 });
    await waitFor(() => fake.windows[0]!.webContents.sent.some((m) => m.channel === "headwater:stream-batch"));
  });

  it("serves the renderer on app:// with the CSP, and nothing outside it", async () => {
    const handler = fake.protocolHandlers.get("app")!;
    const index = await handler(new Request("app://dashboard/index.html"));
    expect(index.status).toBe(200);
    expect(index.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(await index.text()).toContain('<div id="root">');
    const route = await handler(new Request("app://dashboard/sources"));
    expect(route.status).toBe(200);
    expect((await handler(new Request("app://dashboard/%2e%2e/%2e%2e/package.json"))).status).not.toBe(200);
    expect((await handler(new Request("app://other/index.html"))).status).toBe(404);
  });

  it("keeps keys only as ciphertext and stops cleanly on quit", async () => {
    const added = (await fake.ipcHandlers.get("headwater:addRemoteProfile")!(trusted(), {
      name: "Another",
      baseUrl: api.baseUrl,
      apiKey: "secret-remote-key-42",
    })) as { ok: boolean };
    expect(added.ok).toBe(true);
    const stored = fs.readFileSync(path.join(appData, "keys.json"), "utf8");
    expect(stored).not.toContain("secret-remote-key-42");
    expect(fs.readFileSync(path.join(appData, "settings.json"), "utf8")).not.toContain("secret-remote-key-42");

    const event = { preventDefault() {} };
    fake.appEmitter.emit("before-quit", event);
    await waitFor(() => fake.exitCode !== undefined);
    expect(fake.exitCode).toBe(0);
  });
});
