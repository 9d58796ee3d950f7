/** Starting `server/main.ts`: a bad configuration is refused with a message, before listening; stopping it. */
import { spawn } from "node:child_process";
import fs from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, spawnServer, tempDataDir } from "../support/server.js";

describe("server start", () => {
  const dataDir = tempDataDir();
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it("refuses an invalid configuration, naming the variable, and exits 2", async () => {
    const err = await spawnServer({
      dataDir,
      env: { HEADWATER_PORT: "not-a-port", HEADWATER_API_KEY: "short" },
    }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toMatch(/exited \(2\) before listening/);
    expect(err?.message).toMatch(/HEADWATER_PORT: must be a whole number/);
    expect(err?.message).toMatch(/HEADWATER_API_KEY: must be at least 16 characters/);
  });
});

/**
 * `npm run server` under a process manager: the SIGTERM goes to npm, whose shell would otherwise
 * keep the server as its child and let it run on, orphaned, holding the port and the database.
 */
describe("npm run server", () => {
  it("stops cleanly when npm is sent SIGTERM: the server says so, exits, and its port closes", async () => {
    const dataDir = tempDataDir();
    const npm = spawn("npm", ["run", "server"], {
      cwd: REPO_ROOT,
      env: { ...process.env, HEADWATER_PORT: "0", HEADWATER_HOST: "127.0.0.1", HEADWATER_DATA_DIR: dataDir, HEADWATER_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    npm.stdout!.on("data", (c: Buffer) => (out += c.toString()));
    npm.stderr!.on("data", (c: Buffer) => (out += c.toString()));
    try {
      await expect.poll(() => out, { timeout: 60_000 }).toMatch(/listening on http:\/\/\S+/);
      const origin = /listening on (http:\/\/\S+)/.exec(out)![1]!;
      expect((await fetch(`${origin}/healthz`)).status).toBe(200);
      npm.kill("SIGTERM");
      await expect.poll(() => out, { timeout: 30_000 }).toContain("SIGTERM, stopping");
      await expect
        .poll(() => fetch(`${origin}/healthz`).then(() => "answering", () => "closed"), { timeout: 30_000 })
        .toBe("closed");
    } finally {
      npm.kill("SIGKILL");
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
