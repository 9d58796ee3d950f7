/**
 * Whether a package exists, asked of the npm registry itself (its metadata document, one HTTP
 * GET) rather than read from `npm install`'s messages, which depend on npm's log level and
 * language: a 404 from the registry is certain, whatever the environment's npm settings. The
 * registry is HEADWATER_NPM_REGISTRY, else the one npm is configured with (`.npmrc`,
 * `npm_config_registry`), asked of npm once.
 */
import { execFile } from "node:child_process";
import { nodeHttp, nodeHttps } from "../../../shared/node-http.js";

/** The registry did not answer, or answered something else than the package or a 404. */
export class RegistryUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegistryUnavailableError";
  }
}

export interface RegistryLookupOptions {
  /** HEADWATER_NPM_REGISTRY; undefined: npm's configured registry. */
  registry: string | undefined;
  timeoutMs?: number;
}

const DEFAULT_REGISTRY = "https://registry.npmjs.org/";

export class RegistryLookup {
  private registry: Promise<string> | undefined;

  constructor(private readonly o: RegistryLookupOptions) {}

  /** True when the registry has the package, false when it answers 404; else RegistryUnavailableError. */
  async exists(name: string): Promise<boolean> {
    const base = await this.registryUrl();
    const url = base.replace(/\/*$/, "/") + name.replace("/", "%2f");
    let status: number;
    try {
      status = await statusOf(url, this.o.timeoutMs ?? 15_000);
    } catch {
      throw new RegistryUnavailableError("the npm registry did not answer");
    }
    if (status === 404) return false;
    if (status >= 200 && status < 300) return true;
    throw new RegistryUnavailableError(`the npm registry answered ${status}`);
  }

  private registryUrl(): Promise<string> {
    this.registry ??= this.o.registry ? Promise.resolve(this.o.registry) : npmConfiguredRegistry();
    return this.registry;
  }
}

/** `npm config get registry`, with npm's output pinned (no update notice, no log lines). */
function npmConfiguredRegistry(): Promise<string> {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("HEADWATER_")) env[k] = v;
  env.npm_config_update_notifier = "false";
  env.npm_config_loglevel = "silent";
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  return new Promise((resolve) => {
    execFile(npm, ["config", "get", "registry"], { env, timeout: 15_000 }, (err, stdout) => {
      const url = String(stdout).trim();
      resolve(!err && /^https?:\/\//.test(url) ? url : DEFAULT_REGISTRY);
    });
  });
}

/**
 * The status of a GET of `url`, the body discarded. Over node:http(s) rather than the global
 * fetch, which an embedding process may have replaced (a test environment's DOM fetch applies
 * browser rules to it).
 */
function statusOf(url: string, timeoutMs: number): Promise<number> {
  const get = url.startsWith("https:") ? nodeHttps.get : nodeHttp.get;
  return new Promise((resolve, reject) => {
    const req = get(
      url,
      // The abbreviated document: a few kB instead of every version's full manifest.
      {
        headers: { accept: "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8" },
        timeout: timeoutMs,
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
  });
}
