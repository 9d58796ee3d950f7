/**
 * What a command loads. `headwater` runs the built CLI (dist/js), and each command's module is
 * loaded only when that command runs: a `whoami` reads none of the other commands' code, the
 * local server's code, or any package from node_modules (esbuild, chokidar, fastify...).
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram } from "../../cli/program.js";
import type { Context } from "../../cli/context.js";
import { REPO_ROOT, startServer, type TestServer, type TestUser } from "../support/server.js";
import { flags, runCli, tempDir } from "./helpers.js";

/** A module hook that appends the URL of every module Node loads to $HW_LOADED_LOG. */
function loadTracer(): { options: string; loaded: () => string[] } {
  const dir = tempDir("hw-trace-");
  const log = path.join(dir, "loaded.txt");
  fs.writeFileSync(
    path.join(dir, "hooks.mjs"),
    `import fs from "node:fs";
export async function load(url, context, next) {
  fs.appendFileSync(${JSON.stringify(log)}, url + "\\n");
  return next(url, context);
}`,
  );
  fs.writeFileSync(
    path.join(dir, "register.mjs"),
    `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(path.join(dir, "hooks.mjs")).href)});\n`,
  );
  return {
    options: `--import=${pathToFileURL(path.join(dir, "register.mjs")).href}`,
    loaded: () => (fs.existsSync(log) ? fs.readFileSync(log, "utf8").trim().split("\n") : []),
  };
}

describe("CLI start-up", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
  });
  afterAll(() => server?.stop());

  it("whoami runs the built CLI and loads its own command only, nothing from node_modules", async () => {
    const tracer = loadTracer();
    const r = await runCli([...flags(server.baseUrl, user.key), "whoami"], { env: { NODE_OPTIONS: tracer.options } });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(user.user.username);

    const loaded = tracer.loaded().filter((u) => u.startsWith("file:"));
    const dist = pathToFileURL(path.join(REPO_ROOT, "dist", "js")).href;
    expect(loaded).toContain(`${dist}/cli.mjs`);
    // Never the TypeScript sources: no compilation at run time.
    expect(loaded.filter((u) => /\.tsx?$/.test(u))).toEqual([]);
    expect(loaded.filter((u) => u.includes("/node_modules/"))).toEqual([]);
    const chunks = loaded.filter((u) => u.startsWith(`${dist}/chunks/`)).map((u) => path.basename(u).replace(/-[A-Z0-9]+\.mjs$/, ""));
    expect(chunks).toContain("whoami");
    for (const other of ["dev", "deploy", "list", "events", "listen", "sources", "subscribe", "login", "server", "backup", "users", "local"]) {
      expect(chunks).not.toContain(other);
    }
  });

  it("the lazy command table names every command each module registers", async () => {
    const ctx = (() => {
      throw new Error("not run");
    }) as unknown as (opts: Record<string, unknown>) => Context;
    const build = (...args: string[]) =>
      buildProgram({ version: "0", context: ctx, writeOut: () => undefined, writeErr: () => undefined }, ["node", "headwater", ...args]);
    const all = (await build()).commands.map((c) => c.name());
    expect(all).toContain("whoami");
    for (const name of all) {
      // Named on the command line, a command is registered from its module alone.
      const only = (await build(name)).commands.map((c) => c.name());
      expect(only).toContain(name);
      expect(only.length).toBeLessThan(all.length);
    }
    // --version needs no command module at all.
    expect((await build("--version")).commands).toEqual([]);
  });
});
