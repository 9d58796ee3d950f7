#!/usr/bin/env node
// `npm run server` and `npm run web`: runs a built entry (dist/js/<name>.mjs) in this process,
// building it first when the build is missing or stale (scripts/build.mjs).
import path from "node:path";
import { pathToFileURL } from "node:url";
import { ensureBuilt, OUT_DIR } from "./build.mjs";

const name = process.argv[2];
if (name !== "server" && name !== "web") {
  process.stderr.write("usage: node scripts/run-built.mjs server|web\n");
  process.exit(2);
}
await ensureBuilt({ log: (line) => process.stderr.write(`headwater: ${line}\n`) });
// The entry reads its own argv from here on: drop the name given to this script.
process.argv.splice(2, 1);
await import(pathToFileURL(path.join(OUT_DIR, `${name}.mjs`)).href);
