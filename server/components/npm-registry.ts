/**
 * The vendor's npm packages as a registry: the hosted service publishes its components as npm
 * packages named `@pipedream/<app>`, where `<app>` is the part of a component key before its
 * first `-` (`postgresql-new-row` is in `@pipedream/postgresql`). For a key no registry
 * component has, this installs that package into the server's package cache (runtime/npm/
 * cache.ts: the server runs npm, install scripts off), finds the source file under `sources/`
 * (or, for an action, under `actions/`) that declares the key (a text scan picks candidates; the sandbox's describe confirms the key,
 * so the server never evaluates the code), and gathers its relative imports from the package
 * folder as a component_url fetch gathers them over HTTP (gather.ts).
 *
 * The vendor's code stays under the vendor's licence; it is fetched from the npm registry on a
 * user's server, never shipped with Headwater.
 */
import fs from "node:fs";
import { Counter } from "prom-client";
import path from "node:path";
import { UnavailableError } from "../errors.js";
import { PackageError, type PackageCache } from "../runtime/npm/cache.js";
import { RegistryUnavailableError, type RegistryLookup } from "../runtime/npm/registry.js";
import type { ComponentDescriber, ComponentDescription, ComponentFiles } from "../services.js";
import { ComponentFetchError, DEFAULT_FETCH_LIMITS, type FetchLimits } from "./fetch.js";
import { EXTENSIONS, gatherModules, type FoundModule } from "./gather.js";
import type { Requester } from "../users/requester.js";

export interface NpmComponent {
  code: string;
  files: ComponentFiles | undefined;
  /** Where it came from: `npm:@pipedream/<app>@<version>/sources/.../x.mjs`. */
  url: string;
  description: ComponentDescription;
}

export interface NpmComponentsOptions {
  packages: PackageCache;
  describer: ComponentDescriber;
  /** Pinned versions by package name; the others are installed at `latest`. */
  versions?: Record<string, string>;
  limits?: FetchLimits;
  /** Asks the registry whether a package exists before anything is installed. */
  lookup: Pick<RegistryLookup, "exists">;
  /** How long "no such package" is believed (HEADWATER_NPM_MISS_TTL_SECONDS); default 1 h. */
  missTtlMs?: number;
}

/** A source of a vendor package, as its file declares it (not described yet). */
export interface PackageSource {
  key: string;
  name: string;
  description: string | null;
  package: string;
}

/** A key whose app part can name an npm package: `app-rest`, lower case. */
const KEY = /^([a-z0-9][a-z0-9_.]*)-[a-z0-9][a-z0-9_.-]*$/;
const SOURCE_FILE = /\.(mjs|js|cjs|ts)$/;
/** An app's name as the package names it (`@pipedream/<app>`). */
export const APP_NAME = /^[a-z0-9][a-z0-9_.]*$/;
/** The folders of a package that hold components: sources, then actions. */
const COMPONENT_FOLDERS = ["sources", "actions"];

/** An action of a package that does not load, and why (GET /actions leaves it out). */
export interface UnloadableAction {
  file: string;
  reason: string;
}

/** Most files scanned in one package's sources/ folder. */
const MAX_SCANNED = 3000;
/** How long "there is no such package" is believed before the registry is asked again. */
const MISSING_TTL_MS = 60 * 60_000;
/** Most such answers remembered (made-up keys must not grow the map without end). */
const MAX_MISSING = 10_000;

/** Lookups of vendor packages, by outcome (`/metrics`; registered by server/metrics). */
export const npmLookups = new Counter({
  name: "headwater_npm_lookups_total",
  help: "Lookups of the vendor's @pipedream packages: found, miss (asked the registry), cached_miss",
  labelNames: ["outcome"] as const,
  registers: [],
});

export class NpmComponents {
  private readonly missing = new Map<string, number>();
  /** Each installed package's described actions, by package folder and version. */
  private readonly actionLists = new Map<string, Promise<{ actions: NpmComponent[]; unloadable: UnloadableAction[] }>>();
  private readonly limits: FetchLimits;
  /** Each fetched package's sources as their text declares them, by package folder and version. */
  private readonly sourceLists = new Map<string, PackageSource[]>();

  constructor(private readonly options: NpmComponentsOptions) {
    this.limits = options.limits ?? DEFAULT_FETCH_LIMITS;
  }

  /** The package that would hold `key`, or undefined when the key cannot name one. */
  static packageFor(key: string): string | undefined {
    const m = KEY.exec(key);
    return m ? `@pipedream/${m[1]}` : undefined;
  }

  /**
   * The vendor's component with this key, or undefined when there is no such package or no
   * source in it with that key. A package that cannot be installed for another reason, or files
   * over the limits, are a ComponentFetchError; code that does not load a ComponentLoadError.
   */
  async find(key: string, requester?: Requester): Promise<NpmComponent | undefined> {
    const name = NpmComponents.packageFor(key);
    if (!name) return undefined;
    const pkgDir = await this.install(name, requester);
    if (!pkgDir) return undefined;
    const version = readVersion(pkgDir);
    for (const file of candidates(pkgDir, key)) {
      const { code, files } = await this.load(pkgDir, file);
      const description = await this.options.describer.describe(code, files, requester, installDirOf(pkgDir));
      if (description.key !== key) continue;
      const rel = path.relative(pkgDir, file).split(path.sep).join("/");
      return { code, files, url: `npm:${name}@${version}/${rel}`, description };
    }
    return undefined;
  }

  /**
   * The actions of `@pipedream/<app>` (`actions/<name>/<name>.mjs`), each described in the
   * sandbox (once per package version: the list is remembered), with those that do not load and
   * why; undefined when there is no such package.
   */
  async actions(app: string, requester?: Requester): Promise<{ actions: NpmComponent[]; unloadable: UnloadableAction[] } | undefined> {
    if (!APP_NAME.test(app)) return undefined;
    const name = `@pipedream/${app}`;
    const pkgDir = await this.install(name, requester);
    if (!pkgDir) return undefined;
    const version = readVersion(pkgDir);
    const cacheKey = `${pkgDir}@${version}`;
    let list = this.actionLists.get(cacheKey);
    if (!list) {
      list = this.describeActions(pkgDir, name, version, requester);
      this.actionLists.set(cacheKey, list);
      // A failure (the registry, a full disk) is not remembered: the next request tries again.
      list.catch(() => this.actionLists.delete(cacheKey));
    }
    return list;
  }

  private async describeActions(pkgDir: string, name: string, version: string, requester?: Requester) {
    const root = path.join(pkgDir, "actions");
    const files = fs.existsSync(root)
      ? fs
          .readdirSync(root, { withFileTypes: true })
          .filter((d) => d.isDirectory())
          .flatMap((d) => [".mjs", ".js", ".ts"].map((ext) => path.join(root, d.name, d.name + ext)).filter((f) => fs.existsSync(f)).slice(0, 1))
          .slice(0, MAX_SCANNED)
      : [];
    const actions: NpmComponent[] = [];
    const unloadable: UnloadableAction[] = [];
    // Described side by side: the describer's one-shot slots bound how many at once.
    const settled = await Promise.allSettled(
      files.map(async (file) => {
        const { code, files: modules } = await this.load(pkgDir, file);
        const description = await this.options.describer.describe(code, modules, requester, installDirOf(pkgDir));
        const rel = path.relative(pkgDir, file).split(path.sep).join("/");
        return { code, files: modules, url: `npm:${name}@${version}/${rel}`, description };
      }),
    );
    settled.forEach((r, i) => {
      const rel = path.relative(pkgDir, files[i]!).split(path.sep).join("/");
      if (r.status === "fulfilled") actions.push(r.value);
      else unloadable.push({ file: rel, reason: r.reason instanceof Error ? r.reason.message : String(r.reason) });
    });
    actions.sort((a, b) => (a.description.key ?? "").localeCompare(b.description.key ?? ""));
    return { actions, unloadable };
  }

  /**
   * The sources of `@pipedream/<app>`, fetching the package (by that exact name) when the cache
   * does not have it; undefined when npm has no such package. Listed from the files' text (key,
   * name, description), not described: a source is described when it is looked up by key.
   */
  async appSources(app: string, requester?: Requester): Promise<PackageSource[] | undefined> {
    if (!APP_NAME.test(app)) return undefined;
    const pkgDir = await this.install(`@pipedream/${app}`, requester);
    return pkgDir ? this.sourcesIn(pkgDir) : undefined;
  }

  /** The sources of every vendor package the server's cache holds already (nothing is fetched). */
  fetchedSources(): PackageSource[] {
    const root = this.options.packages.dir;
    let entries: string[];
    try {
      entries = fs.readdirSync(root);
    } catch {
      return [];
    }
    const out: PackageSource[] = [];
    for (const entry of entries) {
      const m = /^@pipedream\+([a-z0-9][a-z0-9_.]*)@/.exec(entry);
      if (!m || !fs.existsSync(path.join(root, entry, ".installed"))) continue;
      out.push(...this.sourcesIn(path.join(root, entry, "node_modules", "@pipedream", m[1]!)));
    }
    return out;
  }

  /** A package's sources by text scan, remembered per package folder and version. */
  private sourcesIn(pkgDir: string): PackageSource[] {
    const cacheKey = `${pkgDir}@${readVersion(pkgDir)}`;
    let list = this.sourceLists.get(cacheKey);
    if (!list) {
      list = scanSources(pkgDir, `@pipedream/${path.basename(pkgDir)}`);
      this.sourceLists.set(cacheKey, list);
    }
    return list;
  }

  /**
   * The package's folder in the cache, installing it on first use; undefined when the registry
   * has no such package. Whether it exists is the registry's own answer (one GET of its
   * metadata), never read from npm's messages; a miss is remembered, so asking again spawns
   * nothing and asks nothing. A registry that does not answer is a 503 (not remembered).
   */
  private async install(name: string, requester?: Requester): Promise<string | undefined> {
    const version = this.options.versions?.[name];
    const spec = version ? `${name}@${version}` : name;
    const packages = this.options.packages;
    if (!packages.isInstalled(spec)) {
      const until = this.missing.get(name);
      if (until !== undefined && until > Date.now()) {
        npmLookups.inc({ outcome: "cached_miss" });
        return undefined;
      }
      let exists: boolean;
      try {
        exists = await this.options.lookup.exists(name);
      } catch (err) {
        if (err instanceof RegistryUnavailableError) {
          throw new UnavailableError(`cannot look up ${name} now: ${err.message}; try again later`, "component_fetch_failed");
        }
        throw err;
      }
      if (!exists) {
        npmLookups.inc({ outcome: "miss" });
        this.missing.delete(name);
        this.missing.set(name, Date.now() + (this.options.missTtlMs ?? MISSING_TTL_MS));
        while (this.missing.size > MAX_MISSING) this.missing.delete(this.missing.keys().next().value!);
        return undefined;
      }
    }
    npmLookups.inc({ outcome: "found" });
    let dir: string;
    try {
      dir = await packages.ensure(spec, requester);
    } catch (err) {
      if (!(err instanceof PackageError)) throw err;
      throw new ComponentFetchError(err.message);
    }
    return path.join(dir, "node_modules", ...name.split("/"));
  }

  /** A source file and the modules it imports, read from the package folder (never outside it). */
  private async load(pkgDir: string, file: string): Promise<{ code: string; files: ComponentFiles | undefined }> {
    let total = 0;
    const read = (full: string): FoundModule<string> => {
      // A link inside the package must not lead out of it.
      if (!inside(pkgDir, fs.realpathSync(full))) throw new ComponentFetchError(`${full} leaves the package`);
      const size = fs.statSync(full).size;
      total += size;
      if (size > this.limits.maxFileBytes) throw new ComponentFetchError(`${full} is larger than ${this.limits.maxFileBytes} bytes`);
      if (total > this.limits.maxTotalBytes)
        throw new ComponentFetchError(`the component and its modules exceed ${this.limits.maxTotalBytes} bytes`);
      const rel = path.relative(pkgDir, full).split(path.sep).join("/");
      return { at: full, path: `/${rel}`, code: fs.readFileSync(full, "utf8") };
    };
    const main = read(file);
    const files = await gatherModules<string>(
      main,
      async (from, spec) => {
        const base = path.resolve(path.dirname(from.at), spec);
        for (const ext of EXTENSIONS) {
          const full = base + ext;
          if (!inside(pkgDir, full)) throw new ComponentFetchError(`import ${spec} leaves the package`);
          if (fs.statSync(full, { throwIfNoEntry: false })?.isFile()) return read(full);
        }
        throw new ComponentFetchError(`import ${spec} from ${from.path}: not found in the package`);
      },
      this.limits.maxFiles,
      () => new ComponentFetchError(`the component imports more than ${this.limits.maxFiles} modules`),
    );
    return { code: main.code, files: Object.keys(files).length > 0 ? files : undefined };
  }
}

/** Files under `sources/` and `actions/` whose text declares `key: "<key>"`, the likeliest first. */
function candidates(pkgDir: string, key: string): string[] {
  const declares = new RegExp(`\\bkey\\s*:\\s*(["'\`])${key.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\1`);
  const found: string[] = [];
  let scanned = 0;
  const walk = (dir: string, depth: number) => {
    if (depth > 8) return;
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (scanned >= MAX_SCANNED) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(full, depth + 1);
      } else if (entry.isFile() && SOURCE_FILE.test(entry.name)) {
        scanned += 1;
        if (declares.test(fs.readFileSync(full, "utf8"))) found.push(full);
      }
    }
  };
  for (const folder of COMPONENT_FOLDERS) {
    const root = path.join(pkgDir, folder);
    if (fs.existsSync(root)) walk(root, 0);
  }
  // `sources/<name>/<name>.mjs` is how the vendor lays out a source: try those first.
  const conventional = (f: string) => path.basename(path.dirname(f)) === path.basename(f).replace(SOURCE_FILE, "");
  return found.sort((a, b) => Number(conventional(b)) - Number(conventional(a)));
}

/**
 * The sources of a package folder, `sources/<name>/<name>.mjs` as the vendor lays them out,
 * with the key, name and description their text declares (the first of each: a source's own come
 * before its props'). Files without a key (shared modules) are left out.
 */
function scanSources(pkgDir: string, pkg: string): PackageSource[] {
  const root = path.join(pkgDir, "sources");
  if (!fs.existsSync(root)) return [];
  const field = (text: string, name: string) =>
    new RegExp(`\\b${name}\\s*:\\s*(["'\`])((?:(?!\\1)[^\\\\]|\\\\.)*)\\1`).exec(text)?.[2];
  const out: PackageSource[] = [];
  for (const dir of fs.readdirSync(root, { withFileTypes: true }).slice(0, MAX_SCANNED)) {
    if (!dir.isDirectory()) continue;
    const file = [".mjs", ".js", ".ts"].map((ext) => path.join(root, dir.name, dir.name + ext)).find((f) => fs.existsSync(f));
    if (!file) continue;
    const text = fs.readFileSync(file, "utf8");
    const key = field(text, "key");
    if (!key || !KEY.test(key)) continue;
    out.push({ key, name: field(text, "name") ?? key, description: field(text, "description") ?? null, package: pkg });
  }
  return out.sort((a, b) => a.key.localeCompare(b.key));
}

/** The cache's install directory of a package folder (`<dir>/node_modules/@pipedream/x` → `<dir>`). */
function installDirOf(pkgDir: string): string {
  const at = pkgDir.lastIndexOf(`${path.sep}node_modules${path.sep}`);
  return at < 0 ? pkgDir : pkgDir.slice(0, at);
}

function inside(root: string, full: string): boolean {
  const rel = path.relative(root, full);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

function readVersion(pkgDir: string): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(pkgDir, "package.json"), "utf8")) as { version?: unknown };
    return typeof pkg.version === "string" ? pkg.version : "unknown";
  } catch {
    return "unknown";
  }
}
