/** HEADWATER_SANDBOX_ISOLATION: parsed once, a bad value refused with a message; `auto` resolves by probing bwrap. */
import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";
import { bwrapWorks, resolveIsolation } from "../../server/runtime/sandbox/isolation.js";
import { createClient } from "../../shared/client/index.js";
import { randomKey, spawnServer, tempDataDir } from "../support/server.js";

describe("HEADWATER_SANDBOX_ISOLATION", () => {
  it("defaults to auto and takes namespaces or process", () => {
    expect(loadConfig({}).sandbox.isolation).toBe("auto");
    for (const v of ["namespaces", "process", "auto"] as const) {
      expect(loadConfig({ HEADWATER_SANDBOX_ISOLATION: v }).sandbox.isolation).toBe(v);
    }
  });

  it("refuses anything else, saying which variable", () => {
    expect(() => loadConfig({ HEADWATER_SANDBOX_ISOLATION: "chroot" })).toThrow(ConfigError);
    expect(() => loadConfig({ HEADWATER_SANDBOX_ISOLATION: "chroot" })).toThrow(
      /HEADWATER_SANDBOX_ISOLATION/,
    );
  });

  it("resolves auto to namespaces exactly where bwrap works, and says why", () => {
    const probe = bwrapWorks();
    const auto = resolveIsolation("auto");
    expect(auto).toEqual({ mode: probe.works ? "namespaces" : "process", reason: `auto: ${probe.why}` });
    expect(resolveIsolation("process").mode).toBe("process");
    if (probe.works) expect(resolveIsolation("namespaces").mode).toBe("namespaces");
    else expect(() => resolveIsolation("namespaces")).toThrow(/HEADWATER_SANDBOX_ISOLATION=namespaces, but/);
  });

  it("says the mode at start, and warns when a server with several users runs without namespaces", async () => {
    const dataDir = tempDataDir();
    const apiKey = randomKey();
    try {
      const first = await spawnServer({
        dataDir,
        apiKey,
        env: { HEADWATER_SANDBOX_ISOLATION: "process", HEADWATER_LOG_LEVEL: "info" },
      });
      expect(first.output()).toMatch(/sandbox isolation: process \(HEADWATER_SANDBOX_ISOLATION=process\)/);
      expect(first.output()).not.toMatch(/several users/);
      await createClient({ baseUrl: first.baseUrl, apiKey }).createUser({
        username: "second",
        email: "second@example.test",
      });
      await first.stop();
      const second = await spawnServer({ dataDir, apiKey, env: { HEADWATER_SANDBOX_ISOLATION: "process" } });
      expect(second.output()).toMatch(/several users, and their component code runs without OS namespaces/);
      await second.stop();
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
