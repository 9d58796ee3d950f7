#!/usr/bin/env node
// `npm run test:e2e`: the browser (and, where Electron can run, desktop) tests only. Builds the
// renderer first when it is stale, so every test file starts from the same build, then runs
// vitest on e2e/. Screenshots land in e2e/screenshots/. Extra arguments go to vitest.
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { ensureRendererBuilt } from "./build-renderer.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
await ensureRendererBuilt({ log: (m) => process.stdout.write(`${m}\n`) });
const vitest = path.join(root, "node_modules", "vitest", "vitest.mjs");
const child = spawn(process.execPath, [vitest, "run", "e2e", ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
