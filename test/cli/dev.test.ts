/**
 * `dev <file>`: deploys, re-deploys when the file or one of its relative imports changes and
 * prints the new version's events, keeps the last good version on a file that fails to load,
 * and on SIGINT / SIGTERM deletes its source (unless --keep) and exits 0. It never deletes a
 * source it did not create, and cleans up what it did create when its event streams fail.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EventSummary } from "../../shared/resources/index.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { eventually, flags, ndjson, post, startCli, tempDir } from "./helpers.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures");

describe("headwater dev", { timeout: 180_000 }, () => {
  let server: TestServer;
  let user: TestUser;

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const project = () => {
    const dir = tempDir("hw-cli-dev-");
    for (const f of ["http-echo.mjs", "label.mjs"]) fs.copyFileSync(path.join(FIXTURES, f), path.join(dir, f));
    return dir;
  };
  const sourceIds = async () => (await user.client.listMySources({ limit: 100 })).data.map((s) => s.id);

  it("re-deploys on a change of an import, prints the new version's events, survives a broken save; SIGINT deletes the source", async () => {
    const dir = project();
    const cli = startCli([...flags(server.baseUrl, user.key), "dev", "http-echo.mjs", "--prop", "greeting=hey"], { cwd: dir });
    const [, id] = await cli.waitFor(/created cli-echo-dev \((dc_\w+)\), version 1/, "stderr");
    const [, endpoint] = await cli.waitFor(/endpoint (http\S+)/, "stderr");
    await cli.waitFor(/watching 2 file\(s\)/, "stderr");
    expect((await user.client.getSource(id!)).name).toBe("cli-echo-dev");

    // Version 1's events and logs stream in.
    await eventually(async () => {
      await post(endpoint!, { n: 1 });
      return /v1 #1/.test(cli.stdout()) ? true : undefined;
    }, 30_000, "version 1's event");
    await cli.waitFor(/log request 1/);

    // A change to the imported file re-deploys the same source.
    fs.writeFileSync(path.join(dir, "label.mjs"), 'export const label = "v2";\n');
    await cli.waitFor(/label\.mjs changed: re-deployed, version 2/, "stderr");
    await post(endpoint!, { n: 2 });
    await cli.waitFor(/v2 #2/);

    // A save that does not parse: the error is printed, version 2 keeps running.
    const good = fs.readFileSync(path.join(dir, "http-echo.mjs"), "utf8");
    fs.writeFileSync(path.join(dir, "http-echo.mjs"), good.replace("async run(event) {", "async run(event) {{"));
    await cli.waitFor(/http-echo\.mjs changed but did not deploy: .*; version 2 keeps running/, "stderr");
    await post(endpoint!, { n: 3 });
    await cli.waitFor(/v2 #3/);

    // A save the server refuses (no run and no timer): also kept at version 2.
    fs.writeFileSync(path.join(dir, "http-echo.mjs"), 'export default { key: "x", name: "X", version: "1", props: {} };\n');
    await cli.waitFor(/did not deploy: .*HTTP 400\); version 2 keeps running/, "stderr");

    // Fixed again: version 3.
    fs.writeFileSync(path.join(dir, "http-echo.mjs"), good.replace("${label} #", "${label}b #"));
    await cli.waitFor(/version 3/, "stderr");
    await post(endpoint!, { n: 4 });
    await cli.waitFor(/v2b #4/);

    cli.kill("SIGINT");
    const r = await cli.done(30_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`deleted cli-echo-dev (${id})`);
    expect(await sourceIds()).not.toContain(id);
    // One line per event, never a duplicate.
    expect(r.stdout.match(/#\d\b/g)?.filter((m) => m === "#1").length).toBeGreaterThanOrEqual(1);
    expect(new Set(r.stdout.split("\n").filter(Boolean)).size).toBe(r.stdout.split("\n").filter(Boolean).length);
  });

  it("--keep --json: SIGTERM keeps the source; events are JSON lines", async () => {
    const dir = project();
    const cli = startCli([...flags(server.baseUrl, user.key), "dev", "http-echo.mjs", "--name", "kept-dev", "--prop", "greeting=k", "--keep", "--json"], { cwd: dir });
    const [, id] = await cli.waitFor(/created kept-dev \((dc_\w+)\)/, "stderr");
    const [, endpoint] = await cli.waitFor(/endpoint (http\S+)/, "stderr");
    await cli.waitFor(/watching/, "stderr");
    await eventually(async () => {
      await post(endpoint!, { n: 9 });
      return /"n":9/.test(cli.stdout()) ? true : undefined;
    }, 30_000, "an event");
    await post(endpoint!, { n: 10, fail: true });
    await cli.waitFor(/"name":"\$errors"/);
    cli.kill("SIGTERM");
    const r = await cli.done(30_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`kept kept-dev (${id})`);
    expect(await sourceIds()).toContain(id);
    const lines = ndjson(r.stdout) as EventSummary[];
    expect(lines.some((e) => e.metadata.name === "" && (e.event as { n: number }).n === 9)).toBe(true);
    expect(lines.some((e) => e.metadata.name === "$logs")).toBe(true);
    const failure = lines.find((e) => e.metadata.name === "$errors");
    expect(JSON.stringify(failure?.event)).toContain("asked to fail 10");
  });

  it("SIGINT as the first deploy runs: the source it made is deleted, exit 0", async () => {
    const dir = project();
    const components = async () => (await user.client.listMyComponents({ limit: 100 })).page_info.total_count;
    const before = await components();
    const cli = startCli([...flags(server.baseUrl, user.key), "dev", "http-echo.mjs", "--name", "interrupted-dev", "--prop", "greeting=x"], { cwd: dir });
    // The component is saved: the deploy is under way (the source is created next).
    await eventually(async () => ((await components()) > before ? true : undefined), 30_000, "the component to be saved");
    cli.kill("SIGINT");
    const r = await cli.done(30_000);
    expect(r.code, r.stderr).toBe(0);
    const left = (await user.client.listMySources({ limit: 100 })).data.filter((s) => s.name === "interrupted-dev");
    expect(left).toEqual([]);
    // Whether the signal landed before or after the source was made, what was made is gone.
    expect(r.stderr).toMatch(/deleted interrupted-dev \(dc_\w+\)/);
  });

  it("a file that does not load creates nothing and exits 1", async () => {
    const dir = project();
    fs.writeFileSync(path.join(dir, "broken.mjs"), "export default { run( }\n");
    const before = await sourceIds();
    const cli = startCli([...flags(server.baseUrl, user.key), "dev", "broken.mjs"], { cwd: dir });
    const r = await cli.done(30_000);
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toMatch(/^headwater: broken\.mjs:1:\d+: /);
    expect(await sourceIds()).toEqual(before);
  });

  it("--name of a source that existed before dev: updated, but SIGINT keeps it and says why", async () => {
    const dir = project();
    const code = fs.readFileSync(path.join(dir, "http-echo.mjs"), "utf8").replace('import { label } from "./label.mjs";', 'const label = "prod";');
    const prod = await user.client.createSource({ component_code: code, name: "prod-source", configured_props: { greeting: "live" } });
    const cli = startCli([...flags(server.baseUrl, user.key), "dev", "http-echo.mjs", "--name", "prod-source"], { cwd: dir });
    await cli.waitFor(new RegExp(`updated prod-source \\(${prod.id}\\), version 1`), "stderr");
    await cli.waitFor(/watching .*Ctrl-C stops and keeps the source/, "stderr");
    cli.kill("SIGINT");
    const r = await cli.done(30_000);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`kept prod-source (${prod.id}): it existed before dev started`);
    expect(r.stderr).not.toMatch(/deleted prod-source/);
    expect((await user.client.getSource(prod.id)).name).toBe("prod-source");
  });

  it("when its event stream fails, dev deletes the source it created and exits 1", async () => {
    // A proxy in front of the server that refuses the SSE streams (403), as a key without
    // access to them would; everything else reaches the server.
    const target = new URL(server.baseUrl);
    const proxy = http.createServer((req, res) => {
      if (/\/sse(\/|$)|\/sse\/dc\//.test(req.url ?? "")) {
        res.writeHead(403, { "content-type": "application/json" }).end(JSON.stringify({ error: "forbidden", code: "FORBIDDEN" }));
        return;
      }
      const upstream = http.request({ host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      });
      upstream.on("error", () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
    try {
      const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}${target.pathname === "/" ? "" : target.pathname}`;
      const dir = project();
      const cli = startCli([...flags(proxyUrl, user.key), "dev", "http-echo.mjs", "--name", "failing-dev", "--prop", "greeting=f"], { cwd: dir });
      const [, id] = await cli.waitFor(/created failing-dev \((dc_\w+)\)/, "stderr");
      const r = await cli.done(45_000);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toContain(`deleted failing-dev (${id})`);
      expect(await sourceIds()).not.toContain(id);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });
});
