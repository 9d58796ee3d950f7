import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HostInfo, Profile, StreamStateUpdate } from "../../shared/bridge.js";
import { Host, type HostOptions } from "./host.js";
import { FileKeyVault, MemoryKeyVault } from "./key-vault.js";
import { MemorySettingsStore } from "./settings.js";
import { startFakeApi, type FakeApi } from "./testing/fake-api.js";
import { waitFor } from "./testing/wait.js";

let api: FakeApi;
let host: Host;
let pushed: Profile[][];

function makeHost(over: Partial<HostOptions> = {}): Host {
  return new Host({
    mode: "web",
    version: "0.0.0-test",
    appRoot: "/nonexistent",
    userDataDir: "/nonexistent",
    settings: new MemorySettingsStore(),
    vault: new MemoryKeyVault(),
    streams: { backoff: { initialMs: 20, maxMs: 100 } },
    ...over,
  });
}

beforeEach(async () => {
  api = await startFakeApi();
  host = makeHost();
  pushed = [];
  host.subscribe({ profilesChanged: (list) => pushed.push(list) });
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
const current = async () => (await ok<Profile | null>(host.call("currentProfile", [])))!;

describe("Host: a refused key shows on the profile", () => {
  it("a 401 on getMe makes the remote profile `refused` with the reason; a new key makes it ready", async () => {
    const p = await ok<Profile>(
      host.call("addRemoteProfile", [{ name: "Fake", baseUrl: api.baseUrl, apiKey: "wrong-key" }]),
    );
    expect(p.status).toBe("ready");
    expect(await host.call("getMe", [])).toMatchObject({ ok: false, error: { status: 401 } });

    const refused = await current();
    expect(refused).toMatchObject({ id: p.id, status: "refused" });
    expect(refused.statusMessage).toMatch(/API key was refused/);
    // The renderer learns it by a push too (the sidebar updates without polling).
    expect(pushed.at(-1)?.find((x) => x.id === p.id)?.status).toBe("refused");
    expect(JSON.stringify(pushed)).not.toContain(api.key);

    await ok(host.call("setProfileKey", [p.id, api.key]));
    expect(await current()).toMatchObject({ status: "ready" });
    expect((await current()).statusMessage).toBeUndefined();
    expect(await host.call("getMe", [])).toMatchObject({ ok: true });
  });

  it("a key the server takes back (a call succeeds again) clears the refused state", async () => {
    await ok(host.call("addRemoteProfile", [{ name: "Fake", baseUrl: api.baseUrl, apiKey: "other-key" }]));
    await host.call("getMe", []);
    expect((await current()).status).toBe("refused");
    api.setKey("other-key");
    await ok(host.call("getMe", []));
    expect((await current()).status).toBe("ready");
  });

  it("a stream answered with 401 marks the profile refused", async () => {
    await ok(host.call("addRemoteProfile", [{ name: "Fake", baseUrl: api.baseUrl, apiKey: api.key }]));
    const states: StreamStateUpdate[] = [];
    host.subscribe({ streamState: (s) => states.push(s) });
    const watchId = await ok<string>(host.call("watch", ["dc_a", ""]));
    await waitFor(() => states.some((s) => s.watchId === watchId && s.state === "open"));
    expect((await current()).status).toBe("ready");

    api.setKey("rotated-elsewhere");
    api.dropStreams();
    await waitFor(() => states.some((s) => s.watchId === watchId && s.state === "unauthorized"));
    expect(await current()).toMatchObject({ status: "refused" });
    expect(pushed.at(-1)?.find((x) => x.current)?.status).toBe("refused");
  });

  it("Local's key is managed by the app: replacing it is a 400 (the UI hides the button)", async () => {
    const r = await host.call("setProfileKey", ["local", "k"]);
    expect(r).toMatchObject({ ok: false, error: { status: 400, code: "invalid_argument" } });
    expect(!r.ok && r.error.message).toMatch(/managed by the app/);
  });
});

describe("Host: key storage", () => {
  it("hostInfo says where keys are kept, never a key", async () => {
    expect(await ok<HostInfo>(host.call("hostInfo", []))).toEqual({
      mode: "web",
      version: "0.0.0-test",
      keyStorage: "memory",
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-vault-"));
    const fileHost = makeHost({ vault: new FileKeyVault(path.join(dir, "keys.json")) });
    try {
      expect(await ok<HostInfo>(fileHost.call("hostInfo", []))).toMatchObject({ keyStorage: "file" });
    } finally {
      await fileHost.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
