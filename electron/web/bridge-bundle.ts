/**
 * Bundles the browser bridge (client/boot.ts) into one classic script with esbuild, once per
 * launch, so web mode needs no build step of its own.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));

export function bridgeBundler(): () => Promise<string> {
  let cached: Promise<string> | undefined;
  return () => {
    cached ??= build({
      entryPoints: [path.join(here, "client", "boot.ts")],
      bundle: true,
      format: "iife",
      platform: "browser",
      target: "es2022",
      minify: true,
      write: false,
      logLevel: "silent",
    }).then((r) => r.outputFiles[0]!.text);
    return cached;
  };
}
