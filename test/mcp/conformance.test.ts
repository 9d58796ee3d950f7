/**
 * The MCP conformance suite (@modelcontextprotocol/conformance, a devDependency) against `/mcp`,
 * for exactly what each protocol revision requires (`--requirements 2025-11-25` and
 * `--requirements 2026-07-28`, the two runs side by side). The scenarios that call the suite's
 * own fixtures (test_* tools and prompts, test:// resources) are in a baseline file per revision,
 * each with its reason (test/mcp/conformance/); everything else must pass, and a baselined
 * scenario that starts passing fails the run too (a stale baseline).
 *
 * The suite needs Node 22 or later (it uses fs.globSync): this process's Node when it is one,
 * else HEADWATER_CONFORMANCE_NODE (`.ci/run` points it at its Node 24); without either the test
 * is skipped and says why. It has no option for a bearer key, so it talks to a proxy that adds
 * the test user's (conformance/auth-proxy.ts).
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { timerComponent, uniqueKey } from "../support/fixtures.js";
import { REPO_ROOT, startServer, type TestServer } from "../support/server.js";
import { startAuthProxy, type AuthProxy } from "./conformance/auth-proxy.js";

const SUITE = path.join(REPO_ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const REVISIONS = ["2025-11-25", "2026-07-28"] as const;

/** A Node that runs the suite (22 or later), or why there is none. */
function suiteNode(): { node: string } | { reason: string } {
  const major = (bin: string) => {
    if (bin === process.execPath) return Number(process.versions.node.split(".")[0]);
    const out = spawnSyncVersion(bin);
    return out ? Number(out.replace(/^v/, "").split(".")[0]) : 0;
  };
  if (major(process.execPath) >= 22) return { node: process.execPath };
  const given = process.env.HEADWATER_CONFORMANCE_NODE;
  if (given && fs.existsSync(given) && major(given) >= 22) return { node: given };
  return {
    reason: `the conformance suite needs Node 22 or later: this is ${process.version}, and HEADWATER_CONFORMANCE_NODE ${given ? `(${given}) is not one` : "is not set"}`,
  };
}

function spawnSyncVersion(bin: string): string | undefined {
  try {
    return execFileSync(bin, ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return undefined;
  }
}

function runSuite(node: string, url: string, revision: string, outDir: string): Promise<{ code: number | null; output: string }> {
  const baseline = path.join(REPO_ROOT, "test", "mcp", "conformance", `baseline-${revision}.yml`);
  const child = spawn(
    node,
    [SUITE, "server", "--url", url, "--requirements", revision, "--expected-failures", baseline, "--output-dir", outDir, "--timeout", "20000"],
    { cwd: outDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.on("data", (c: Buffer) => (output += c.toString()));
  child.stderr.on("data", (c: Buffer) => (output += c.toString()));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, output })));
}

const found = suiteNode();

// The suite needs Node 22 or later: skipped (saying why) where none is found; .ci/run gives it Node 24.
describe.skipIf(!("node" in found))("MCP conformance", () => {
  let s: TestServer;
  let proxy: AuthProxy;
  let outDir: string;

  beforeAll(async () => {
    proxy = await startAuthProxy();
    const port = new URL(proxy.origin).port;
    // The DNS-rebinding scenario sends Origin: http://<the URL's host>; the proxy is what it sees.
    s = await startServer({ env: { HEADWATER_MCP_ALLOWED_ORIGINS: `http://127.0.0.1:${port},http://localhost:${port}` } });
    const u = await s.newUser();
    proxy.forward(s.origin, u.key);
    // A source, so resources/list has something for the caching scenario to read.
    await u.client.createSource({ component_code: timerComponent(uniqueKey("conformance")), name: "conformance" });
    outDir = fs.mkdtempSync(path.join(os.tmpdir(), "hw-conformance-"));
  });
  afterAll(async () => {
    await proxy?.close();
    await s?.stop();
    if (outDir) fs.rmSync(outDir, { recursive: true, force: true });
  });

  it("passes what protocol revisions 2025-11-25 and 2026-07-28 require, but the fixtures' scenarios", async () => {
    const node = (found as { node: string }).node;
    const runs = await Promise.all(REVISIONS.map((r) => runSuite(node, `${proxy.origin}/mcp`, r, outDir)));
    for (const [i, run] of runs.entries()) {
      const summary = run.output.slice(run.output.lastIndexOf("=== SUMMARY ==="));
      expect(run.code, `conformance ${REVISIONS[i]}:\n${summary || run.output.slice(-4000)}`).toBe(0);
    }
  }, 240_000);
});

if (!("node" in found)) {
  // Shown as skipped with its reason (no Node 22+ to run the suite with), not silently absent.
  it.skip(`MCP conformance (${found.reason})`, () => undefined);
  console.warn(`MCP conformance skipped: ${found.reason}`);
}
