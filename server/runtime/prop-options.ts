/**
 * PropOptionsRunner: a prop's choices from its `async options()`, computed in a fresh sandbox
 * process with the usual limits (the sandbox's heap and network policy; a time limit of the
 * invocation timeout, at most 30 s, since a person is waiting on a form; the asking user's daily
 * quotas, which count each call as an invocation). The worker side is sandbox/prop-options.cjs.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { Config } from "../config.js";
import { QuotaExceededError } from "../errors.js";
import type { Quotas } from "../quotas/quotas.js";
import {
  ComponentLoadError,
  PropOptionsError,
  type ComponentFiles,
  type PropOptionsAnswer,
  type PropOptionsRequest,
  type PropOptionsRunner,
} from "../services.js";
import { CompileError, compileBundle } from "./compile.js";
import { Slots } from "./describe.js";
import { PackageError, type PackageCache } from "./npm/cache.js";
import { resolveIsolation } from "./sandbox/isolation.js";
import { networkPolicyFor } from "./sandbox/policy.js";
import { SandboxProcess } from "./sandbox/process.js";

const MAX_TIMEOUT_MS = 30_000;

export function createPropOptionsRunner(config: Config, packages: PackageCache, quotas: Quotas): PropOptionsRunner {
  const timeoutMs = Math.min(config.sandbox.invocationTimeoutMs, MAX_TIMEOUT_MS);
  const slots = new Slots(Math.max(2, Math.ceil(config.sandbox.maxProcesses / 2)));
  const tmpRoot = path.join(config.dataDir, "sandbox");

  async function options(code: string, files: ComponentFiles | undefined, req: PropOptionsRequest): Promise<PropOptionsAnswer> {
    let bundle;
    let packageDirs: Record<string, string>;
    try {
      bundle = compileBundle(code, files);
      packageDirs = await packages.prepare(bundle.packages);
    } catch (e) {
      if (e instanceof CompileError || e instanceof PackageError) throw new ComponentLoadError("invalid_component", e.message);
      throw e;
    }
    const allowed = await quotas.check(req.userId);
    if (!allowed.ok) throw new QuotaExceededError(allowed.message);
    await slots.take();
    let proc: SandboxProcess;
    try {
      proc = await SandboxProcess.spawn({
        memoryMb: config.sandbox.memoryMb,
        npmDir: packages.dir,
        tmpRoot,
        network: networkPolicyFor(config),
        isolation: resolveIsolation(config.sandbox.isolation).mode,
        timeoutMs,
      });
    } catch (e) {
      slots.give();
      throw e;
    }
    const t0 = Date.now();
    try {
      const outcome = await proc.request(
        {
          t: "options",
          id: randomUUID(),
          bundle: { main: bundle.main, files: bundle.files },
          packageDirs,
          prop: req.prop,
          props: req.configuredProps,
          prevContext: req.prevContext,
          query: req.query,
          page: req.page,
        },
        timeoutMs,
        () => undefined,
      );
      switch (outcome.kind) {
        case "timeout":
          throw new ComponentLoadError("component_timeout", `options() of prop "${req.prop}" took longer than ${timeoutMs / 1000} s`);
        case "oom":
          throw new ComponentLoadError("component_out_of_memory", `options() of prop "${req.prop}" ran out of memory`);
        case "crash":
          throw new PropOptionsError("options_failed", `options() of prop "${req.prop}" stopped the sandbox: ${outcome.detail}`);
        case "done": {
          const err = outcome.message.error;
          if (!err) return outcome.message.result as PropOptionsAnswer;
          if (err.code === "no_such_prop" || err.code === "no_options" || err.code === "options_failed")
            throw new PropOptionsError(err.code, err.message);
          // The module itself failed to load.
          throw new ComponentLoadError("invalid_component", `the component could not be loaded: ${err.name}: ${err.message}`);
        }
      }
    } finally {
      proc.kill();
      slots.give();
      await quotas.record(req.userId, Date.now() - t0);
    }
  }

  return { options };
}
