/**
 * The vendor's published npm packages, fetched from the registry at test time into a temp
 * dir (their code is under the vendor's licence: it is never committed to this repository).
 * Versions are fixed by the callers, so a new release cannot change what a test sees.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const NPM = process.platform === "win32" ? "npm.cmd" : "npm";

/** npm's environment without the server's own settings. */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("HEADWATER_")) env[k] = v;
  env.npm_config_update_notifier = "false";
  return env;
}

/** A fresh temp dir for vendor files; the caller removes it. */
export function vendorTempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), "hw-vendor-"));
}

/**
 * `npm pack name@version` into `dir` and unpacks it: returns the package's folder (the
 * tarball's `package/`), with its files as published (no dependencies installed).
 */
export async function packVendor(spec: string, dir: string): Promise<string> {
  const into = fs.mkdtempSync(path.join(dir, "pack-"));
  const { stdout } = await run(NPM, ["pack", spec, "--silent", "--pack-destination", into], {
    env: npmEnv(),
    timeout: 120_000,
  });
  const tarball = path.join(into, stdout.trim().split("\n").pop()!.trim());
  await run("tar", ["xzf", tarball, "-C", into], { timeout: 60_000 });
  return path.join(into, "package");
}

/** `npm install` of fixed specs (with their dependencies) into `dir`, install scripts off. */
export async function installVendor(specs: string[], dir: string): Promise<void> {
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "hw-vendor-test", private: true }));
  await run(
    NPM,
    [
      "install",
      "--ignore-scripts",
      "--no-audit",
      "--no-fund",
      "--no-package-lock",
      "--omit=dev",
      "--prefix",
      dir,
      ...specs,
    ],
    {
      env: npmEnv(),
      timeout: 300_000,
      maxBuffer: 8 << 20,
    },
  );
}

/** Every file of a package folder by its path inside the package (`sources/x/x.mjs`). */
export function packageFiles(pkgDir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(full);
      } else if (/\.(mjs|js|cjs|json|ts)$/.test(entry.name)) {
        out[path.relative(pkgDir, full).split(path.sep).join("/")] = fs.readFileSync(full, "utf8");
      }
    }
  };
  walk(pkgDir);
  return out;
}
