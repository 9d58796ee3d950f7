// Bundles Electron main (ESM) and preload (CommonJS: sandboxed preloads cannot be ESM) into
// dist/electron/. `electron` stays external; everything else (core, shared, electron-store) is
// inlined. Run by scripts/start.mjs before launching Electron.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = path.join(root, "dist", "electron");

export async function buildElectron() {
  await Promise.all([
    build({
      entryPoints: [path.join(root, "electron/main/main.ts")],
      outfile: path.join(out, "main.mjs"),
      bundle: true,
      platform: "node",
      format: "esm",
      target: "node20",
      external: ["electron"],
      // Bundled CommonJS dependencies may call require(); give them one in the ESM bundle.
      banner: { js: "import { createRequire as __hwCreateRequire } from 'node:module'; const require = __hwCreateRequire(import.meta.url);" },
      sourcemap: true,
      logLevel: "warning",
    }),
    build({
      entryPoints: [path.join(root, "electron/preload/preload.ts")],
      outfile: path.join(out, "preload.cjs"),
      bundle: true,
      platform: "node",
      format: "cjs",
      target: "node20",
      external: ["electron"],
      logLevel: "warning",
    }),
  ]);
  return { main: path.join(out, "main.mjs"), preload: path.join(out, "preload.cjs") };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const files = await buildElectron();
  process.stdout.write(`built ${path.relative(root, files.main)} and ${path.relative(root, files.preload)}\n`);
}
