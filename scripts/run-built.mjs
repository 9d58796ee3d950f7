#!/usr/bin/env node
// `npm run server` and `npm run web`: runs a built entry (dist/js/<name>.mjs) in this process,
// building it first when the build is missing or stale (scripts/build.mjs).
import module from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureBuilt, OUT_DIR } from "./build.mjs";

const name = process.argv[2];
if (name !== "server" && name !== "web") {
  process.stderr.write("usage: node scripts/run-built.mjs server|web\n");
  process.exit(2);
}
// Node 22.1+ keeps V8's compiled code of these modules between runs, as the CLI does (cli/bin.mjs):
// compiling the server's bundle was its largest single item at start on Node 24 (profiled: 0.12 s).
module.enableCompileCache?.(`${OUT_DIR}/.compile-cache`);
await ensureBuilt({ log: (line) => process.stderr.write(`headwater: ${line}\n`) });
// The entry reads its own argv from here on: drop the name given to this script.
process.argv.splice(2, 1);
await import(pathToFileURL(path.join(OUT_DIR, `${name}.mjs`)).href);
