/**
 * The npm package cache: components import packages by name with no package.json, as on the
 * hosted service. Each requested package spec (`rss-parser`, `axios@0.19.2`) gets its own
 * install directory under `<dataDir>/npm`, filled once by `npm install` run by the SERVER (never
 * the sandbox), with install scripts disabled. All sources share the cache; the sandbox may read
 * it but not write it. Installs of one spec are serialised; `allowInstall: false` forbids new
 * ones (cached packages still work).
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { parseSpecifier } from "../compile.js";
import type { InstallGate } from "./install-gate.js";
import type { Requester } from "../../users/requester.js";

export class PackageError extends Error {
  constructor(
    readonly spec: string,
    message: string,
  ) {
    super(message);
    this.name = "PackageError";
  }
}

export interface PackageCacheOptions {
  /** The cache directory (`<dataDir>/npm`). */
  dir: string;
  allowInstall: boolean;
  registry?: string | undefined;
  /** Time limit of one `npm install`, ms. */
  installTimeoutMs?: number;
  /** Bounds installs server-wide and per user (install-gate.ts); none: unbounded (tests). */
  gate?: InstallGate | undefined;
}

// npm's own rules for names: lower case, URL-safe, optional scope.
const NAME = /^(@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
// A version or range: digits, letters, dots, ranges; never a URL, path or git spec.
const VERSION = /^[0-9A-Za-z.^~<>=|*x+\- ]{1,64}$/;

export class PackageCache {
  private readonly installing = new Map<string, Promise<string>>();

  constructor(private readonly options: PackageCacheOptions) {}

  get dir(): string {
    return this.options.dir;
  }

  /**
   * Makes every spec available and returns, for each, the directory whose node_modules holds
   * it. Rejects with a PackageError naming the first package that cannot be had.
   */
  async prepare(specs: readonly string[], requester?: Requester, from?: string): Promise<Record<string, string>> {
    const entries = await Promise.all(specs.map(async (spec) => [spec, this.within(from, spec) ?? (await this.ensure(spec, requester))] as const));
    return Object.fromEntries(entries);
  }

  /**
   * `from`: an install directory of this cache (a vendor package's, whose dependencies npm
   * installed beside it): a spec without a version that it holds is used from there, at the
   * version the vendor's package asked for, instead of being installed on its own.
   */
  private within(from: string | undefined, spec: string): string | undefined {
    if (!from || parseSpecifier(spec).version !== undefined) return undefined;
    const { name } = parseSpecifier(spec);
    const rel = path.relative(this.options.dir, from);
    if (rel === "" || rel.startsWith("..") || path.isAbsolute(rel)) return undefined;
    return fs.existsSync(path.join(from, "node_modules", name, "package.json")) ? fs.realpathSync(from) : undefined;
  }

  /**
   * Where a vendor component's package is installed, from its url (`npm:@pipedream/<app>@<version>/...`,
   * components/npm-registry.ts): the install directory (pinned `name@version`, else `latest`)
   * holding exactly that version, so that its dependencies serve the component (`prepare`'s
   * `from`). Undefined for any other url, or when that version is not installed.
   */
  vendorInstallDir(url: string | null | undefined): string | undefined {
    const m = url ? /^npm:(@pipedream\/[a-z0-9][a-z0-9_.]*)@([^/]+)\//.exec(url) : null;
    if (!m) return undefined;
    const [, name, version] = m as unknown as [string, string, string];
    for (const spec of [`${name}@${version}`, name]) {
      let dir: string;
      try {
        dir = this.locate(spec).dir;
      } catch {
        continue;
      }
      if (!fs.existsSync(path.join(dir, ".installed"))) continue;
      try {
        const pkg = JSON.parse(fs.readFileSync(path.join(dir, "node_modules", name, "package.json"), "utf8")) as { version?: unknown };
        if (pkg.version === version) return fs.realpathSync(dir);
      } catch {
        // Not readable: treated as not installed (its dependencies are then installed on their own).
      }
    }
    return undefined;
  }

  /** Whether a spec is in the cache already (using it spawns nothing). */
  isInstalled(spec: string): boolean {
    const where = this.locate(spec);
    return fs.existsSync(path.join(where.dir, ".installed"));
  }

  private locate(spec: string): { name: string; tag: string; dir: string } {
    const { name, version } = parseSpecifier(spec);
    if (!NAME.test(name)) throw new PackageError(spec, `"${spec}" is not a valid npm package name`);
    if (version !== undefined && !VERSION.test(version)) {
      throw new PackageError(spec, `"${spec}": only registry versions (name@1.2.3 or a range) can be imported`);
    }
    const tag = version ?? "latest";
    const dirName = `${name.replace("/", "+")}@${tag.replace(/[^0-9A-Za-z.^~<>=|*x+-]/g, "_")}`;
    return { name, tag, dir: path.join(this.options.dir, dirName) };
  }

  /**
   * The install directory of one spec, installing it first when needed (charged to `requester`'s
   * budget, install-gate.ts; none: the server's own work).
   */
  async ensure(spec: string, requester?: Requester): Promise<string> {
    const { name, tag, dir } = this.locate(spec);
    // Real paths: the sandbox's permission model compares resolved paths.
    if (fs.existsSync(path.join(dir, ".installed"))) return fs.realpathSync(dir);
    const running = this.installing.get(dir);
    if (running) return running;
    const gate = this.options.gate;
    const install = () => this.install(spec, name, tag, dir);
    const job = (gate ? gate.run(install, requester) : install()).finally(() => this.installing.delete(dir));
    this.installing.set(dir, job);
    return job;
  }

  private async install(spec: string, name: string, tag: string, dir: string): Promise<string> {
    if (!this.options.allowInstall) {
      throw new PackageError(spec, `package "${spec}" is not in the package cache and installing new packages is disabled`);
    }
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "headwater-package-cache", private: true }));
    const args = ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--no-package-lock", "--omit=dev", "--prefix", dir];
    if (this.options.registry) args.push("--registry", this.options.registry);
    args.push(`${name}@${tag}`);
    // npm needs PATH and HOME; nothing of the server's own configuration.
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("HEADWATER_")) env[k] = v;
    env.npm_config_update_notifier = "false";
    // Pinned whatever the environment says (`npm run --silent` hands npm_config_loglevel=silent
    // down): npm's error lines are what tells why an install failed.
    env.npm_config_loglevel = "error";
    const npm = process.platform === "win32" ? "npm.cmd" : "npm";
    try {
      await new Promise<void>((resolve, reject) => {
        execFile(npm, args, { env, timeout: this.options.installTimeoutMs ?? 180_000, maxBuffer: 4 << 20 }, (err, _out, stderr) => {
          // Never err.message: it holds the command line, with the cache's path.
          if (err) reject(new Error(summariseNpmError(String(stderr), err.killed ? "npm install took too long" : "npm install failed")));
          else resolve();
        });
      });
    } catch (e) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw new PackageError(spec, `package "${spec}" could not be installed: ${(e as Error).message}`);
    }
    if (!fs.existsSync(path.join(dir, "node_modules", name, "package.json"))) {
      fs.rmSync(dir, { recursive: true, force: true });
      throw new PackageError(spec, `package "${spec}" could not be installed`);
    }
    fs.writeFileSync(path.join(dir, ".installed"), new Date().toISOString());
    return fs.realpathSync(dir);
  }
}

/**
 * The useful line of npm's stderr (`404 Not Found - GET ...`, `No matching version ...`), or
 * `fallback`. Only lines that say what went wrong, never npm's own paths, command or log file.
 */
function summariseNpmError(stderr: string, fallback: string): string {
  const lines = stderr
    .split("\n")
    .map((l) => l.replace(/^npm (ERR!|error) ?/, "").trim())
    .filter((l) => l && !/(^|\s)(\/|[A-Za-z]:\\)|\bcommand\b|\bcwd\b|\bpath\b|log of this run/i.test(l));
  const useful = lines.find((l) => /404|E404|ETARGET|No matching|not found|ENOTFOUND|EAI_AGAIN|ECONNREFUSED/i.test(l));
  return (useful ?? fallback).slice(0, 300);
}
