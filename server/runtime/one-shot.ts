/**
 * OneShotRunner: a single request to a fresh sandbox process that is killed right after, for the
 * work that happens outside the pool (describing a component on save, a prop's options() for a
 * form). One runner per runtime holds one set of slots, so all such runs together start at most
 * half the pool's processes (at least two) beside it, whatever asks for them.
 */
import path from "node:path";
import type { Config } from "../config.js";
import { ComponentLoadError, type ComponentFiles } from "../services.js";
import { CompileError, compileBundle, type CompiledBundle } from "./compile.js";
import { PackageCache, PackageError } from "./npm/cache.js";
import { InstallGate } from "./npm/install-gate.js";
import type { Requester } from "../users/requester.js";
import { resolveIsolation } from "./sandbox/isolation.js";
import { networkPolicyFor } from "./sandbox/policy.js";
import { SandboxProcess, type WorkerDone } from "./sandbox/process.js";

/** What the worker needs to load a component: its compiled files and where its packages are. */
export interface LoadedBundle {
  bundle: Pick<CompiledBundle, "main" | "files">;
  packageDirs: Record<string, string>;
}

export interface RunOnceOptions {
  timeoutMs: number;
  memoryMb: number;
  /** What the run does, for the error messages ("loading the component"). */
  what: string;
  /** Called after the run with how long the request took (not counting the wait for a slot or the spawn). */
  afterRun?: (ranMs: number) => Promise<void> | void;
}

/** How a run ended when it did not run out of time or memory (those are thrown as ComponentLoadError). */
export type RunOnceOutcome = { kind: "done"; message: WorkerDone } | { kind: "crash"; detail: string };

export function packageCacheFor(config: Config): PackageCache {
  return new PackageCache({
    dir: path.join(config.dataDir, "npm"),
    allowInstall: config.npm.allowInstall,
    registry: config.npm.registry,
    gate: new InstallGate({ maxConcurrent: config.npm.maxInstalls, perUserHour: config.npm.installsPerUserHour }),
  });
}

export class OneShotRunner {
  readonly packages: PackageCache;
  private readonly slots: Slots;
  private readonly tmpRoot: string;

  constructor(
    private readonly config: Config,
    packages?: PackageCache,
  ) {
    this.packages = packages ?? packageCacheFor(config);
    this.slots = new Slots(Math.max(2, Math.ceil(config.sandbox.maxProcesses / 2)));
    this.tmpRoot = path.join(config.dataDir, "sandbox");
  }

  /**
   * Compiles the code and prepares its packages (installs charged to `requester`); either
   * failing is an invalid_component.
   */
  async load(code: string, files?: ComponentFiles, requester?: Requester, packagesFrom?: string): Promise<LoadedBundle> {
    try {
      const compiled = compileBundle(code, files);
      const packageDirs = await this.packages.prepare(compiled.packages, requester, packagesFrom);
      return { bundle: { main: compiled.main, files: compiled.files }, packageDirs };
    } catch (e) {
      if (e instanceof CompileError || e instanceof PackageError) throw new ComponentLoadError("invalid_component", e.message);
      throw e;
    }
  }

  /** Sends `message` to a fresh sandbox process once a slot is free, then kills the process. */
  async runOnce(message: { id: string; t: string; [k: string]: unknown }, options: RunOnceOptions): Promise<RunOnceOutcome> {
    const { timeoutMs, memoryMb, what } = options;
    await this.slots.take();
    let proc: SandboxProcess;
    try {
      proc = await SandboxProcess.spawn({
        memoryMb,
        npmDir: this.packages.dir,
        tmpRoot: this.tmpRoot,
        network: networkPolicyFor(this.config),
        isolation: resolveIsolation(this.config.sandbox.isolation).mode,
        timeoutMs,
      });
    } catch (e) {
      this.slots.give();
      throw e;
    }
    const t0 = Date.now();
    try {
      const outcome = await proc.request(message, timeoutMs, () => undefined);
      if (outcome.kind === "timeout")
        throw new ComponentLoadError("component_timeout", `${what} took longer than ${timeoutMs / 1000} s`);
      if (outcome.kind === "oom") throw new ComponentLoadError("component_out_of_memory", `${what} ran out of memory`);
      return outcome;
    } finally {
      proc.kill();
      this.slots.give();
      await options.afterRun?.(Date.now() - t0);
    }
  }
}

/** A counting semaphore. */
class Slots {
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
