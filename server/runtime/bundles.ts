/**
 * Compiled bundles ready for the sandbox: component code compiled to CommonJS once per code
 * hash (kept in a small LRU), with its npm packages prepared in the package cache.
 */
import { createHash } from "node:crypto";
import type { ComponentFiles } from "../services.js";
import { compileBundle, type CompiledBundle } from "./compile.js";
import type { PackageCache } from "./npm/cache.js";

export interface ReadyBundle {
  /** Hash of the code and files: the worker caches evaluated modules under it. */
  key: string;
  bundle: Pick<CompiledBundle, "main" | "files">;
  packageDirs: Record<string, string>;
}

export function bundleKey(code: string, files: ComponentFiles | undefined): string {
  const h = createHash("sha256").update(code);
  for (const [p, src] of Object.entries(files ?? {}).sort(([a], [b]) => a.localeCompare(b))) h.update(`\0${p}\0${src}`);
  return h.digest("hex");
}

export class BundleCache {
  private readonly compiled = new Map<string, CompiledBundle>();
  /** Keys by the object whose code they hash (a cached component): hashed once, not per batch. */
  private readonly keys = new WeakMap<object, string>();

  constructor(
    private readonly packages: PackageCache,
    private readonly max = 200,
  ) {}

  /**
   * Compiles (CompileError) and prepares packages (PackageError). `owner`: an immutable object
   * holding `code` and `files` (a component, which never changes under its id), to remember the
   * key by instead of hashing the code again.
   */
  async ready(code: string, files: ComponentFiles | undefined, owner?: object, packagesFrom?: string): Promise<ReadyBundle> {
    let key = owner && this.keys.get(owner);
    if (!key) {
      key = bundleKey(code, files);
      if (owner) this.keys.set(owner, key);
    }
    let compiled = this.compiled.get(key);
    if (compiled) {
      this.compiled.delete(key);
    } else {
      compiled = compileBundle(code, files);
    }
    this.compiled.set(key, compiled);
    while (this.compiled.size > this.max) this.compiled.delete(this.compiled.keys().next().value!);
    const packageDirs = await this.packages.prepare(compiled.packages, undefined, packagesFrom);
    return { key, bundle: { main: compiled.main, files: compiled.files }, packageDirs };
  }
}
