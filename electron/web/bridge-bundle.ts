/**
 * Bundles the browser bridge (client/boot.ts) into one classic script with esbuild, once per
 * launch, so web mode needs no build step of its own.
 */
import { build } from "esbuild";
import { WEB_BRIDGE_ENTRY } from "../../shared/app-paths.js";

export function bridgeBundler(): () => Promise<string> {
  let cached: Promise<string> | undefined;
  return () => {
    cached ??= build({
      entryPoints: [WEB_BRIDGE_ENTRY],
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
