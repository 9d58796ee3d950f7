/**
 * `headwater mcp` as an agent's config runs it: nothing but the protocol on stdout, the CLI's
 * connection (variables here), a disabled user's calls refused as tool errors, and the CLI's
 * other commands never loading the MCP code.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { cliEnv, startCli } from "../cli/helpers.js";
import { REPO_ROOT, startServer, type TestServer, type TestUser } from "../support/server.js";
import { call, connectStdio, refused, until } from "./helpers.js";

let s: TestServer;
let u: TestUser;
beforeAll(async () => {
  s = await startServer();
  u = await s.newUser();
});
afterAll(async () => {
  await s?.stop();
});

describe("headwater mcp", () => {
  it("writes nothing but JSON-RPC on stdout, and exits when the client closes stdin", async () => {
    const child = spawn("headwater", ["mcp"], {
      cwd: REPO_ROOT,
      env: cliEnv({ env: { HEADWATER_API_URL: s.baseUrl, HEADWATER_API_KEY: u.key } }),
      stdio: ["pipe", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
    const send = (m: unknown) => child.stdin.write(`${JSON.stringify(m)}\n`);
    const answered = (id: number) => until(() => out.includes(`"id":${id}`), 45_000, `answer ${id}`);

    send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } } });
    await answered(1);
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "whoami", arguments: {} } });
    await answered(2);
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = out.split("\n").filter(Boolean);
    expect(lines.length).toBe(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    expect(out).toContain(u.user.username);
    // (A checkout whose sources changed rebuilds at the bin's start, and says so: not the server.)
    expect(err.replace(/^headwater: (building dist\/js|dist\/js is up to date).*\n/gm, "")).toBe("");
  }, 90_000);

  it("refuses a disabled user's tool call as a tool error (user_disabled)", async () => {
    const v = await s.newUser();
    const conn = await connectStdio(s, v.key, "2026-07-28");
    try {
      await call(conn.client, "whoami");
      await s.admin.updateUser(v.user.id, { disabled: true });
      const r = await refused(conn.client, "list_sources");
      expect(r).toMatchObject({ code: "user_disabled", status: 403 });
    } finally {
      await conn.close();
    }
  });

  it("says why it cannot start without a connection, on stderr", async () => {
    const cli = startCli(["mcp"], { env: { HEADWATER_API_URL: s.baseUrl } });
    const r = await cli.done(15_000);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/HEADWATER_API_KEY/);
  });
});

describe("the CLI's start", () => {
  /** The chunks a built entry loads before running anything: its static imports, transitively. */
  function staticClosure(file: string, seen = new Set<string>()): Set<string> {
    if (seen.has(file)) return seen;
    seen.add(file);
    const text = fs.readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:^|[;}\s])import\s*(?:[^"'()]*?from\s*)?["'](\.[^"']+)["']/g)) {
      staticClosure(path.resolve(path.dirname(file), m[1]!), seen);
    }
    return seen;
  }

  it("whoami's code never loads the MCP SDK or the tool set (they are the mcp command's)", () => {
    const dist = path.join(REPO_ROOT, "dist", "js");
    const chunks = fs.readdirSync(path.join(dist, "chunks"));
    const whoami = chunks.find((f) => /^whoami-.*\.mjs$/.test(f))!;
    const loaded = [...staticClosure(path.join(dist, "cli.mjs")), ...staticClosure(path.join(dist, "chunks", whoami))];
    expect(loaded.length).toBeGreaterThan(1);
    for (const file of loaded) {
      const text = fs.readFileSync(file, "utf8");
      expect(text, path.basename(file)).not.toContain("subscriptions/listen");
      expect(text, path.basename(file)).not.toContain("createHeadwaterMcp");
    }
  });
});
