/**
 * The preload bundle with a recording fake `electron`: it exposes exactly the bridge (one
 * function per operation plus the three listeners) as `window.headwater`, each call an invoke on
 * that operation's own channel, and listeners that can be removed.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";
import { BRIDGE_METHOD_NAMES, PUSH_CHANNELS } from "../../shared/bridge-names.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

type FakeState = {
  exposed: Map<string, Record<string, (...a: unknown[]) => unknown>>;
  invoked: Array<{ channel: string; args: unknown[] }>;
  rendererEmitter: { emit(channel: string, ...a: unknown[]): void };
};

describe("preload", () => {
  it("exposes one function per bridge operation over its own channel, and removable listeners", async () => {
    const out = await build({
      entryPoints: [path.join(root, "electron/preload/preload.ts")],
      bundle: true,
      platform: "node",
      format: "cjs",
      write: false,
      alias: { electron: path.join(root, "electron/main/testing/fake-electron.ts") },
      logLevel: "silent",
    });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-preload-"));
    const file = path.join(dir, "preload.cjs");
    fs.writeFileSync(file, out.outputFiles[0]!.text);
    try {
      await import(file);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
    const fake = (globalThis as unknown as { __fakeElectron: FakeState }).__fakeElectron;
    const api = fake.exposed.get("headwater")!;
    expect([...fake.exposed.keys()]).toEqual(["headwater"]);
    expect(Object.keys(api).sort()).toEqual(
      [...BRIDGE_METHOD_NAMES, "onProfilesChanged", "onRunBatch", "onStreamBatch", "onStreamState"].sort(),
    );

    expect(await api.updateSource!("dc_a", { active: false })).toEqual({ ok: true, value: "headwater:updateSource" });
    expect(fake.invoked.at(-1)).toEqual({ channel: "headwater:updateSource", args: ["dc_a", { active: false }] });

    const got: unknown[] = [];
    const off = api.onStreamBatch!((b: unknown) => got.push(b)) as () => void;
    fake.rendererEmitter.emit(PUSH_CHANNELS.streamBatch, {}, { watchId: "w1", events: [] });
    off();
    fake.rendererEmitter.emit(PUSH_CHANNELS.streamBatch, {}, { watchId: "w2", events: [] });
    expect(got).toEqual([{ watchId: "w1", events: [] }]);
  });
});
