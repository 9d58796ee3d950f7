/**
 * Which server a command talks to (flags, --profile, env, the default profile, the local
 * server), `login` (answers from stdin, a 0600 profile file in a 0700 dir) and `server`.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { eventually, ndjson, oneLine, runCli, startCli, tempDir } from "./helpers.js";

describe("connection and login", { timeout: 120_000 }, () => {
  let server: TestServer;
  let alice: TestUser;
  let bob: TestUser;
  let xdg: string;
  // XDG_CONFIG_HOME (the documented place), not HEADWATER_APP_DATA_DIR.
  const withXdg = () => ({ env: { HEADWATER_APP_DATA_DIR: undefined, XDG_CONFIG_HOME: xdg } });
  const whoami = async (args: string[], env: Record<string, string | undefined> = {}) => {
    const r = await runCli([...args, "whoami", "--json"], { env: { HEADWATER_APP_DATA_DIR: undefined, XDG_CONFIG_HOME: xdg, ...env } });
    expect(r.code, r.stderr).toBe(0);
    return (ndjson(r.stdout)[0] as { username: string }).username;
  };

  beforeAll(async () => {
    server = await startServer();
    alice = await server.newUser("alice");
    bob = await server.newUser("bob");
    xdg = tempDir("hw-cli-xdg-");
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("login reads the URL and key from stdin, checks the key, saves a 0600 profile in a 0700 dir", async () => {
    // The app's dir already there and readable by all (the dashboard or a user made it first).
    fs.mkdirSync(path.join(xdg, "headwater"), { mode: 0o755 });
    fs.chmodSync(path.join(xdg, "headwater"), 0o755);
    const r = await runCli(["login"], { ...withXdg(), input: `${server.origin}\n${alice.key}\n` });
    expect(r.code, r.stderr).toBe(0);
    expect(fs.statSync(path.join(xdg, "headwater")).mode & 0o777).toBe(0o700);
    const file = path.join(xdg, "headwater", "cli-profiles.json");
    expect(r.stdout).toContain(`logged in to ${server.baseUrl} as alice; saved as profile default in ${file}`);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, "utf8"))).toMatchObject({ profiles: { default: { apiUrl: server.baseUrl, apiKey: alice.key } } });

    const named = await runCli(["login", "--profile", "bob"], { ...withXdg(), input: `${server.baseUrl}\n${bob.key}\n` });
    expect(named.code, named.stderr).toBe(0);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it("a wrong key is refused and not saved", async () => {
    const file = path.join(xdg, "headwater", "cli-profiles.json");
    const before = fs.readFileSync(file, "utf8");
    const r = await runCli(["login", "--profile", "mallory"], { ...withXdg(), input: `${server.baseUrl}\nnot-a-key-0123456789\n` });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/the server refused the API key/);
    expect(fs.readFileSync(file, "utf8")).toBe(before);
    const noAnswer = await runCli(["login", "--profile", "mallory"], { ...withXdg(), input: `${server.baseUrl}\n` });
    expect(noAnswer.code).toBe(2);
  });

  it("first match wins: flags, --profile, env, the default profile", async () => {
    expect(await whoami([])).toBe("alice");
    expect(await whoami(["--profile", "bob"])).toBe("bob");
    expect(await whoami([], { HEADWATER_API_URL: server.baseUrl, HEADWATER_API_KEY: bob.key })).toBe("bob");
    expect(await whoami(["--profile", "default"], { HEADWATER_API_URL: server.baseUrl, HEADWATER_API_KEY: bob.key })).toBe("alice");
    expect(await whoami(["--api-url", server.baseUrl, "--api-key", alice.key], { HEADWATER_API_URL: server.baseUrl, HEADWATER_API_KEY: bob.key })).toBe("alice");
    const missing = await runCli(["whoami", "--profile", "carol"], withXdg());
    expect(missing.code).toBe(2);
    expect(oneLine(missing.stderr)).toBe("headwater: no profile named carol: run headwater login --profile carol");
    const half = await runCli(["whoami"], { env: { HEADWATER_API_URL: server.baseUrl } });
    expect(half.code).toBe(2);
  });
});

describe("the local server", () => {
  it("with no connection set, dev runs on the dashboard's local server, a second command shares it, and Ctrl-C cleans up before it stops", async () => {
    const appData = tempDir("hw-cli-local-");
    const dir = tempDir("hw-cli-local-src-");
    for (const f of ["http-echo.mjs", "label.mjs"]) fs.copyFileSync(path.join(import.meta.dirname, "fixtures", f), path.join(dir, f));
    // Its own process group, as in a terminal: Ctrl-C reaches every process of the job.
    const dev = startCli(["dev", "http-echo.mjs", "--prop", "greeting=local"], { appDataDir: appData, cwd: dir, ownGroup: true });
    const [, id] = await dev.waitFor(/created cli-echo-dev \((dc_\w+)\)/, "stderr", 120_000);
    await dev.waitFor(/watching/, "stderr");
    // While dev runs the server, a second command attaches to it: the same sources.
    const list = await runCli(["list", "sources", "--json"], { appDataDir: appData });
    expect(list.code, list.stderr).toBe(0);
    const names = (ndjson(list.stdout) as Array<{ id: string; name: string }>).map((s) => s.name);
    expect(names).toEqual(expect.arrayContaining(["Example: HTTP requests", "cli-echo-dev"]));
    const settings = JSON.parse(fs.readFileSync(path.join(appData, "web-settings.json"), "utf8")) as { localServerPort: number };
    const who = await runCli(["whoami"], { appDataDir: appData });
    expect(who.stdout).toContain(`http://127.0.0.1:${settings.localServerPort}/v1 (local)`);

    dev.killGroup("SIGINT");
    const r = await dev.done(60_000);
    // The server outlived the Ctrl-C long enough for dev to delete its source.
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`deleted cli-echo-dev (${id})`);
    // Stopped with the command that started it: the lock is released, the port closed.
    expect(fs.existsSync(path.join(appData, "local-server", "dashboard.lock"))).toBe(false);
    await expect(fetch(`http://127.0.0.1:${settings.localServerPort}/healthz`)).rejects.toThrow();
  }, 240_000);

  it("closing the terminal (SIGHUP to the command alone) stops dev as Ctrl-C does: source deleted, local server stopped", async () => {
    const appData = tempDir("hw-cli-hup-");
    const dir = tempDir("hw-cli-hup-src-");
    for (const f of ["http-echo.mjs", "label.mjs"]) fs.copyFileSync(path.join(import.meta.dirname, "fixtures", f), path.join(dir, f));
    const dev = startCli(["dev", "http-echo.mjs", "--prop", "greeting=hup"], { appDataDir: appData, cwd: dir, ownGroup: true });
    const [, id] = await dev.waitFor(/created cli-echo-dev \((dc_\w+)\)/, "stderr", 120_000);
    await dev.waitFor(/watching/, "stderr");
    const settings = JSON.parse(fs.readFileSync(path.join(appData, "web-settings.json"), "utf8")) as { localServerPort: number };
    // The local server runs in its own process group, so the hangup reaches only the command.
    dev.kill("SIGHUP");
    const r = await dev.done(60_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`deleted cli-echo-dev (${id})`);
    // Not orphaned: the server went with the command (polled: the kill is asynchronous).
    await eventually(async () => {
      try {
        await fetch(`http://127.0.0.1:${settings.localServerPort}/healthz`);
        return undefined;
      } catch {
        return true;
      }
    }, 30_000, "the local server to stop");
  }, 240_000);

  it("server runs the API server like npm run server and stops on SIGTERM with exit 0", async () => {
    const data = tempDir("hw-cli-server-");
    const cli = startCli(["server"], { env: { HEADWATER_PORT: "0", HEADWATER_DATA_DIR: data, HEADWATER_LOG_LEVEL: "warn" } });
    const [, origin] = await cli.waitFor(/listening on (http:\/\/\S+)/, "stdout", 90_000);
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    cli.kill("SIGTERM");
    const r = await cli.done(30_000);
    expect(r.code, r.stderr).toBe(0);
  }, 120_000);
});
