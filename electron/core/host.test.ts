import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Profile, StreamBatch, StreamStateUpdate } from "../../shared/bridge.js";
import { Host } from "./host.js";
import { MemoryKeyVault } from "./key-vault.js";
import { MemorySettingsStore } from "./settings.js";
import { startFakeApi, type FakeApi } from "./testing/fake-api.js";
import { waitFor } from "./testing/wait.js";

let api: FakeApi;
let host: Host;
let vault: MemoryKeyVault;
let settings: MemorySettingsStore;

beforeEach(async () => {
  api = await startFakeApi();
  vault = new MemoryKeyVault();
  settings = new MemorySettingsStore();
  host = new Host({
    mode: "web",
    version: "0.0.0-test",
    appRoot: "/nonexistent",
    userDataDir: "/nonexistent",
    settings,
    vault,
    streams: { backoff: { initialMs: 20, maxMs: 100 } },
  });
});
afterEach(async () => {
  await host.stop();
  await api.close();
});

const ok = async <T>(p: Promise<{ ok: boolean; value?: unknown; error?: unknown }>) => {
  const r = await p;
  if (!r.ok) throw new Error(`call failed: ${JSON.stringify(r.error)}`);
  return r.value as T;
};

describe("Host: the dashboard's colour theme", () => {
  it("is system until chosen, kept in the settings store, and refuses an unknown value", async () => {
    expect(await ok(host.call("getTheme", []))).toBe("system");
    expect(await ok(host.call("setTheme", ["dark"]))).toBe("dark");
    expect(settings.read().theme).toBe("dark");
    expect(await ok(host.call("getTheme", []))).toBe("dark");
    expect(await host.call("setTheme", ["sepia"])).toMatchObject({ ok: false, error: { status: 400, code: "invalid_argument" } });
    expect(settings.read().theme).toBe("dark");
  });

  it("reads an unknown stored theme as system without losing the rest of the settings", () => {
    const stored = new MemorySettingsStore({ currentProfileId: "local", theme: "sepia" } as never);
    expect(stored.read()).toMatchObject({ currentProfileId: "local", theme: "system" });
  });
});

describe("Host: argument validation", () => {
  it("refuses bad arguments with a 400 naming the argument, and unknown methods", async () => {
    const bad = await host.call("listMySources", [{ limit: 0 }]);
    expect(bad).toMatchObject({ ok: false, error: { status: 400, code: "invalid_argument" } });
    expect(!bad.ok && bad.error.message).toMatch(/argument 1: limit/);

    expect(await host.call("getSource", ["../../etc/passwd"])).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await host.call("getSource", [])).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await host.call("getSource", ["dc_a", "extra"])).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await host.call("watch", ["dc_a", "$secret"])).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await host.call("createSource", [{}])).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await host.call("addRemoteProfile", [{ name: "x", baseUrl: "file:///etc", apiKey: "k" }])).toMatchObject({
      ok: false,
      error: { code: "invalid_argument" },
    });
    expect(await host.call("constructor", [])).toMatchObject({ ok: false, error: { code: "unknown_method" } });
    expect(await host.call("getMe", "not an array")).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
  });

  it("accepts trailing nulls as absent optional arguments (JSON drops undefined)", async () => {
    await ok(host.call("addRemoteProfile", [{ name: "Fake", baseUrl: api.baseUrl, apiKey: api.key }]));
    const page = await ok<{ data: unknown[] }>(host.call("listSourceEvents", ["dc_a", null]));
    expect(page.data).toEqual([]);
  });
});

describe("Host: connected accounts", () => {
  it("validates account ids and bodies, passes each call to its endpoint, and keeps a 409's details", async () => {
    await ok(host.call("addRemoteProfile", [{ name: "Fake", baseUrl: api.baseUrl, apiKey: api.key }]));
    expect(await host.call("getAccount", ["dc_a"])).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await host.call("deleteAccount", ["apn_../x"])).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await host.call("createAccount", [{ app: "pg", auth: { "": "x" } }])).toMatchObject({ ok: false, error: { code: "invalid_argument" } });
    expect(await host.call("updateAccount", ["apn_one", { name: "" }])).toMatchObject({ ok: false, error: { code: "invalid_argument" } });

    const page = await ok<{ data: { id: string; fields: string[] }[] }>(host.call("listMyAccounts", [{ app: "postgresql", limit: 5 }]));
    expect(page.data).toEqual([expect.objectContaining({ id: "apn_one", fields: ["host", "password"] })]);
    expect(api.requests.at(-1)?.url).toBe("/v1/users/me/accounts?limit=5&app=postgresql");

    const refused = await host.call("deleteAccount", ["apn_used"]);
    expect(refused).toEqual({
      ok: false,
      error: {
        status: 409,
        code: "account_in_use",
        message: "account apn_used is in use",
        details: [{ path: "sources.dc_a", message: 'source "a" (dc_a) prop pg' }],
      },
    });
  });
});

describe("Host: profiles and keys", () => {
  it("starts with the Local profile and adds, selects and removes remote ones without ever returning a key", async () => {
    const initial = await ok<Profile[]>(host.call("listProfiles", []));
    expect(initial).toMatchObject([{ id: "local", kind: "local", status: "idle", current: true }]);

    const changes: Profile[][] = [];
    host.subscribe({ profilesChanged: (p) => changes.push(p) });
    const added = await ok<Profile>(host.call("addRemoteProfile", [{ name: "Fake", baseUrl: `${api.baseUrl}/`, apiKey: api.key }]));
    expect(added).toMatchObject({ kind: "remote", baseUrl: api.baseUrl, current: true, status: "ready", key: { isSet: true, lastFour: api.key.slice(-4) } });
    expect(JSON.stringify(added)).not.toContain(api.key);
    expect(changes.length).toBeGreaterThan(0);

    const me = await ok<Record<string, unknown>>(host.call("getMe", []));
    expect(me).toMatchObject({ id: "u_test", username: "tester" });
    expect(me).not.toHaveProperty("api_key");

    expect(await ok(host.call("keyStatus", []))).toEqual({ isSet: true, lastFour: api.key.slice(-4) });
    expect(await host.call("removeProfile", ["local"])).toMatchObject({ ok: false, error: { status: 400 } });
    await ok(host.call("removeProfile", [added.id]));
    expect(vault.get(added.id)).toBeUndefined();
    const after = await ok<Profile[]>(host.call("listProfiles", []));
    expect(after.map((p) => p.id)).toEqual(["local"]);
    expect(settings.read().currentProfileId).toBe("local");
  });

  it("a bad key gives a 401 in words, and setting the right key fixes it", async () => {
    const p = await ok<Profile>(host.call("addRemoteProfile", [{ name: "Fake", baseUrl: api.baseUrl, apiKey: "wrong-key" }]));
    const r = await host.call("getMe", []);
    expect(r).toMatchObject({ ok: false, error: { status: 401, code: "unauthorized" } });
    expect(!r.ok && r.error.message).toMatch(/API key was refused by http:\/\/127\.0\.0\.1/);
    await ok(host.call("setProfileKey", [p.id, api.key]));
    expect(await host.call("getMe", [])).toMatchObject({ ok: true });
  });

  it("an unreachable server is a status-0 error that says so", async () => {
    await ok(host.call("addRemoteProfile", [{ name: "Gone", baseUrl: "http://127.0.0.1:1/v1", apiKey: "k" }]));
    const r = await host.call("getMe", []);
    expect(r).toMatchObject({ ok: false, error: { status: 0, code: "network_error" } });
    expect(!r.ok && r.error.message).toMatch(/cannot reach http:\/\/127\.0\.0\.1:1/);
  });

  it("rotating the key stores the new one in the vault; the renderer sees its last four only", async () => {
    const p = await ok<Profile>(host.call("addRemoteProfile", [{ name: "Fake", baseUrl: api.baseUrl, apiKey: api.key }]));
    const r = await ok<{ user: Record<string, unknown>; key: { lastFour: string } }>(host.call("rotateApiKey", []));
    expect(api.key).toMatch(/^rotated-/);
    expect(vault.get(p.id)).toBe(api.key);
    expect(r.key).toEqual({ isSet: true, lastFour: api.key.slice(-4) });
    expect(r.user).not.toHaveProperty("api_key");
    expect(await host.call("getMe", [])).toMatchObject({ ok: true });
  });

  it("an environment profile is selected, kept in memory only, and cannot be removed", async () => {
    const envHost = new Host({
      mode: "web",
      version: "t",
      appRoot: "/nonexistent",
      userDataDir: "/nonexistent",
      settings,
      vault,
      env: { baseUrl: api.baseUrl, apiKey: api.key },
    });
    expect(await ok(envHost.call("currentProfile", []))).toMatchObject({ id: "env", kind: "remote", current: true });
    expect(await envHost.call("getMe", [])).toMatchObject({ ok: true });
    expect(JSON.stringify(settings.read())).not.toContain(api.key);
    expect(vault.get("env")).toBeUndefined();
    expect(await envHost.call("removeProfile", ["env"])).toMatchObject({ ok: false });
    await envHost.stop();
  });
});

describe("Host: local connection", () => {
  it("a local server that cannot start is reported on the profile and by calls, in words", async () => {
    const seen: Profile[][] = [];
    host.subscribe({ profilesChanged: (p) => seen.push(p) });
    host.start();
    await waitFor(() => seen.some((ps) => ps[0]?.status === "failed"));
    const local = seen.at(-1)![0]!;
    expect(local).toMatchObject({ id: "local", status: "failed", baseUrl: "" });
    expect(local.statusMessage).toMatch(/local server could not start: the bundled server is missing/);
    const r = await host.call("getMe", []);
    expect(r).toMatchObject({ ok: false, error: { status: 503, code: "local_server_unavailable" } });
    expect(!r.ok && r.error.message).toMatch(/could not start/);
  });
});

describe("Host: live streams", () => {
  it("watch delivers batches and states to subscribers; switching profile closes the watches", async () => {
    await ok(host.call("addRemoteProfile", [{ name: "Fake", baseUrl: api.baseUrl, apiKey: api.key }]));
    const batches: StreamBatch[] = [];
    const states: StreamStateUpdate[] = [];
    host.subscribe({ streamBatch: (b) => batches.push(b), streamState: (s) => states.push(s) });
    const watchId = await ok<string>(host.call("watch", ["dc_a", ""]));
    await waitFor(() => states.some((s) => s.watchId === watchId && s.state === "open"));
    const e = api.emit("dc_a", { hello: "world" });
    await waitFor(() => batches.some((b) => b.events.some((x) => x.id === e.id)));
    expect(batches.every((b) => b.watchId === watchId)).toBe(true);

    await ok(host.call("selectProfile", ["local"]));
    expect(states.at(-1)).toMatchObject({ watchId, state: "closed" });
    expect(await host.call("unwatch", [watchId])).toMatchObject({ ok: false, error: { status: 404 } });
  });
});
