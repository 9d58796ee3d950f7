import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createClient } from "../../shared/client/index.js";
import { freePort, isPortFree, startLocalServer, type LocalServer } from "./local-server.js";

const appRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const dirs: string[] = [];
const tmp = () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "hw-local-"));
  dirs.push(d);
  return d;
};
let server: LocalServer | undefined;

afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

afterEach(async () => {
  await server?.stop();
  server = undefined;
});

describe("startLocalServer", () => {
  it("starts the bundled server on loopback with its own data dir and key, on the preferred port when free", async () => {
    const dataDir = path.join(tmp(), "local-server");
    const apiKey = "hwl_test_key_0123456789abcdef";
    const preferred = await freePort();
    const lines: string[] = [];
    server = await startLocalServer({ appRoot, dataDir, apiKey, preferredPort: preferred, env: { HEADWATER_LOG_LEVEL: "warn" }, onLog: (l) => lines.push(l) });
    expect(server.port).toBe(preferred);
    expect(server.baseUrl).toBe(`http://127.0.0.1:${preferred}/v1`);
    expect(lines.some((l) => l.includes("listening on"))).toBe(true);
    expect(fs.existsSync(dataDir)).toBe(true);
    const me = await createClient({ baseUrl: server.baseUrl, apiKey }).getMe();
    expect(me.username).toBe("admin");
    await expect(createClient({ baseUrl: server.baseUrl, apiKey: "wrong-key-0123456789" }).getMe()).rejects.toMatchObject({ status: 401 });

    // One dashboard per data dir: a second start on it is refused, saying why.
    await expect(startLocalServer({ appRoot, dataDir, apiKey, env: { HEADWATER_LOG_LEVEL: "warn" } })).rejects.toThrow(
      /another Headwater dashboard \(process \d+\) is already running the local server/,
    );

    // The port is taken now: another server falls back to a free one.
    expect(await isPortFree(preferred)).toBe(false);
    const second = await startLocalServer({ appRoot, dataDir: path.join(tmp(), "s2"), apiKey, preferredPort: preferred, env: { HEADWATER_LOG_LEVEL: "warn" } });
    expect(second.port).not.toBe(preferred);
    await second.stop();

    await server.stop();
    expect(await isPortFree(preferred)).toBe(true);
    server = undefined;
  }, 90_000);

  it("reports a server that cannot start, with its last words", async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, "dist", "js"), { recursive: true });
    fs.writeFileSync(path.join(root, "dist", "js", "server.mjs"), 'console.error("boom: no database"); process.exit(3);\n');
    fs.symlinkSync(path.join(appRoot, "node_modules"), path.join(root, "node_modules"));
    await expect(startLocalServer({ appRoot: root, dataDir: path.join(root, "d"), apiKey: "k".repeat(20) })).rejects.toThrow(
      /stopped while starting \(exit code 3\): boom: no database/,
    );
    await expect(startLocalServer({ appRoot: path.join(root, "nowhere"), dataDir: path.join(root, "d"), apiKey: "k".repeat(20) })).rejects.toThrow(
      /bundled server is missing/,
    );
  }, 60_000);

  it("tells when the running server dies", async () => {
    const root = tmp();
    fs.mkdirSync(path.join(root, "dist", "js"), { recursive: true });
    fs.writeFileSync(
      path.join(root, "dist", "js", "server.mjs"),
      'console.log(`listening on http://127.0.0.1:${process.env.HEADWATER_PORT}`); setTimeout(() => { console.error("crashed"); process.exit(1); }, 300);\n',
    );
    fs.symlinkSync(path.join(appRoot, "node_modules"), path.join(root, "node_modules"));
    const s = await startLocalServer({ appRoot: root, dataDir: path.join(root, "d"), apiKey: "k".repeat(20) });
    const reason = await new Promise<string>((resolve) => s.onUnexpectedExit(resolve));
    expect(reason).toMatch(/local server stopped \(exit code 1\): .*crashed/);
  }, 60_000);
});
