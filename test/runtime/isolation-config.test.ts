/** HEADWATER_SANDBOX_ISOLATION: parsed once, a bad value refused with a message; `auto` resolves by probing bwrap. */
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../server/config.js";
import { bwrapWorks, resolveIsolation } from "../../server/runtime/sandbox/isolation.js";

describe("HEADWATER_SANDBOX_ISOLATION", () => {
  it("defaults to auto and takes namespaces or process", () => {
    expect(loadConfig({}).sandbox.isolation).toBe("auto");
    for (const v of ["namespaces", "process", "auto"] as const) {
      expect(loadConfig({ HEADWATER_SANDBOX_ISOLATION: v }).sandbox.isolation).toBe(v);
    }
  });

  it("refuses anything else, saying which variable", () => {
    expect(() => loadConfig({ HEADWATER_SANDBOX_ISOLATION: "chroot" })).toThrow(ConfigError);
    expect(() => loadConfig({ HEADWATER_SANDBOX_ISOLATION: "chroot" })).toThrow(/HEADWATER_SANDBOX_ISOLATION/);
  });

  it("resolves auto to namespaces exactly where bwrap works, and says why", () => {
    const probe = bwrapWorks();
    const auto = resolveIsolation("auto");
    expect(auto).toEqual({ mode: probe.works ? "namespaces" : "process", reason: `auto: ${probe.why}` });
    expect(resolveIsolation("process").mode).toBe("process");
    if (probe.works) expect(resolveIsolation("namespaces").mode).toBe("namespaces");
    else expect(() => resolveIsolation("namespaces")).toThrow(/HEADWATER_SANDBOX_ISOLATION=namespaces, but/);
  });
});
