#!/usr/bin/env node
// The `headwater` executable: runs the built CLI (dist/js/cli.mjs, plain JavaScript made by
// scripts/build.mjs at `npm install`), rebuilding it first if the sources changed since. Node
// resolves a symlinked bin (npm link, npm install -g) to this real file, so the paths below are
// the project's.
import module from "node:module";
import { ensureBuilt, OUT_DIR } from "../scripts/build.mjs";

// Node 22.1+ keeps V8's compiled code of these modules between runs (a no-op on Node 20).
module.enableCompileCache?.(`${OUT_DIR}/.compile-cache`);
await ensureBuilt({ log: (line) => process.stderr.write(`headwater: ${line}\n`) });
const { main } = await import("../dist/js/cli.mjs");
const code = await main(process.argv);
// process.exit drops writes still queued on a pipe (a long `--json` listing lost its last lines):
// an empty write's callback runs once everything written before it has been handed over.
await Promise.all([process.stdout, process.stderr].map((s) => new Promise((resolve) => s.write("", resolve))));
// Then exit at once: open sockets (keep-alive, a closed stream's pool) must not keep a finished command alive.
process.exit(code);
