/**
 * ComponentDescriber: what a component's code declares (props, hooks, dedupe, run), learned by
 * evaluating it in a fresh, short-lived sandbox process with a 5 s time limit and a small heap.
 * Code that does not parse, is not a component, loops or allocates without end is a
 * ComponentLoadError; the server process never evaluates it.
 */
import { randomUUID } from "node:crypto";
import path from "node:path";
import type { Config } from "../config.js";
import {
  ComponentLoadError,
  type ComponentDescriber,
  type ComponentDescription,
  type ComponentFiles,
} from "../services.js";
import { bundleKey } from "./bundles.js";
import { CompileError, compileBundle } from "./compile.js";
import { PackageCache, PackageError } from "./npm/cache.js";
import { resolveIsolation } from "./sandbox/isolation.js";
import { networkPolicyFor } from "./sandbox/policy.js";
import { SandboxProcess } from "./sandbox/process.js";

export interface DescriberOptions {
  /** Shared package cache; one is made from the config when omitted. */
  packages?: PackageCache;
  timeoutMs?: number;
  memoryMb?: number;
}

export function packageCacheFor(config: Config): PackageCache {
  return new PackageCache({
    dir: path.join(config.dataDir, "npm"),
    allowInstall: config.npm.allowInstall,
    registry: config.npm.registry,
  });
}

export function createDescriber(config: Config, options: DescriberOptions = {}): ComponentDescriber {
  const packages = options.packages ?? packageCacheFor(config);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const memoryMb = options.memoryMb ?? Math.min(config.sandbox.memoryMb, 128);
  const tmpRoot = path.join(config.dataDir, "sandbox");

  // Same code, same description: saving one component twice need not start a sandbox again.
  // Failures are not remembered (a package may install later). Callers get their own copy.
  const memo = new Map<string, Promise<ComponentDescription>>();
  const slots = new Slots(Math.max(2, Math.ceil(config.sandbox.maxProcesses / 2)));
  const describe = async (code: string, files?: ComponentFiles): Promise<ComponentDescription> => {
    const key = bundleKey(code, files);
    const known = memo.get(key);
    if (known) return structuredClone(await known);
    const job = describeOnce(code, files);
    memo.set(key, job);
    job.catch(() => memo.delete(key));
    while (memo.size > 200) memo.delete(memo.keys().next().value!);
    return job;
  };

  async function describeOnce(code: string, files?: ComponentFiles): Promise<ComponentDescription> {
    let bundle;
    try {
      bundle = compileBundle(code, files);
    } catch (e) {
      if (e instanceof CompileError) throw new ComponentLoadError("invalid_component", e.message);
      throw e;
    }
    let packageDirs: Record<string, string>;
    try {
      packageDirs = await packages.prepare(bundle.packages);
    } catch (e) {
      if (e instanceof PackageError) throw new ComponentLoadError("invalid_component", e.message);
      throw e;
    }
    // Describing starts processes outside the pool: at most a few at once.
    await slots.take();
    let proc: SandboxProcess;
    try {
      proc = await SandboxProcess.spawn({
        memoryMb,
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
    try {
      const outcome = await proc.request(
        { t: "describe", id: randomUUID(), bundle: { main: bundle.main, files: bundle.files }, packageDirs },
        timeoutMs,
        () => undefined,
      );
      switch (outcome.kind) {
        case "timeout":
          throw new ComponentLoadError(
            "component_timeout",
            `loading the component took longer than ${timeoutMs / 1000} s`,
          );
        case "oom":
          throw new ComponentLoadError("component_out_of_memory", "loading the component ran out of memory");
        case "crash":
          throw new ComponentLoadError(
            "invalid_component",
            `the component could not be loaded: ${outcome.detail}`,
          );
        case "done": {
          const err = outcome.message.error;
          if (err) {
            const where = err.code === "invalid_component" ? "" : `${err.name}: `;
            throw new ComponentLoadError(
              "invalid_component",
              `the component could not be loaded: ${where}${err.message}`,
            );
          }
          return normalise(outcome.message.result as ComponentDescription);
        }
      }
    } finally {
      proc.kill();
      slots.give();
    }
  }

  return { describe };
}

/** JSON drops `undefined`; put the optional fields back so callers see a full description. */
function normalise(d: ComponentDescription): ComponentDescription {
  return {
    key: d.key ?? undefined,
    name: d.name,
    version: d.version,
    description: d.description ?? undefined,
    props: d.props,
    dedupe: d.dedupe ?? undefined,
    hooks: d.hooks,
    hasRun: d.hasRun,
  };
}

/** A counting semaphore (also used by prop-options.ts). */
export class Slots {
  private readonly waiting: Array<() => void> = [];
  constructor(private free: number) {}

  async take(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  give(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.free += 1;
  }
}
