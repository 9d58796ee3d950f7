#!/usr/bin/env node
// The first part of `npm test`: `npm run lint` and `npm run typecheck` at once. Each keeps one core
// busy; one after the other they took about 100 s of CI on the 2-core machine (26 Nov). Each one's
// output is printed whole when it ends (lint first), so the two never interleave; the exit status
// is the first failure's.
import { spawn } from "node:child_process";

/** @param {string} script @returns {Promise<{ code: number, out: string }>} */
function run(script) {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "--silent", script], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (c) => (out += c));
    child.stderr.on("data", (c) => (out += c));
    child.on("error", (err) => resolve({ code: 1, out: `${out}${String(err)}\n` }));
    child.on("close", (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out }));
  });
}

const results = await Promise.all(["lint", "typecheck"].map(async (script) => ({ script, ...(await run(script)) })));
for (const r of results) {
  process.stdout.write(`> ${r.script}: ${r.code === 0 ? "ok" : `failed (exit ${r.code})`}\n${r.out}`);
}
process.exit(results.find((r) => r.code !== 0)?.code ?? 0);
