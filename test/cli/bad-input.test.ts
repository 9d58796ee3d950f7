/**
 * Bad input: each gets one clear line on stderr (no stack trace), the right exit code (1 API or
 * network, 2 usage), and changes nothing. Unknown commands and flags print help with the
 * closest match.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { flags, oneLine, runCli, tempDir } from "./helpers.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures");

describe("bad input", { timeout: 120_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let cwd: string;
  let hw: (...args: string[]) => ReturnType<typeof runCli>;

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    cwd = tempDir();
    for (const f of ["http-echo.mjs", "label.mjs"]) fs.copyFileSync(path.join(FIXTURES, f), path.join(cwd, f));
    fs.writeFileSync(path.join(cwd, "broken.mjs"), "export default {\n  run() {\n");
    hw = (...args) => runCli([...flags(server.baseUrl, user.key), ...args], { cwd });
    // Two sources with the same name (a user-chosen name keeps its text; only the slug differs).
    const code = fs.readFileSync(path.join(FIXTURES, "http-echo.mjs"), "utf8").replace('import { label } from "./label.mjs";', 'const label = "t";');
    for (let i = 0; i < 2; i++) await user.client.createSource({ component_code: code, name: "twin", configured_props: { greeting: "x" } });
  });
  afterAll(async () => {
    await server?.stop();
  });

  const sourceCount = async () => (await user.client.listMySources({ limit: 100 })).page_info.total_count;

  it("a wrong key: the server's message and code, exit 1", async () => {
    const r = await runCli([...flags(server.baseUrl, "wrong-key-0123456789abcdef"), "whoami"]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/^headwater: the server refused the API key: .*\(unauthorized\)$/);
    expect(r.stdout).toBe("");
  });

  it("an unreachable server: exit 1", async () => {
    const r = await runCli([...flags("http://127.0.0.1:9/v1", "some-key-0123456789"), "list", "sources"]);
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/^headwater: cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it("a source name that matches nothing, or more than one: exit 1, nothing changed", async () => {
    const none = await hw("delete", "no-such-source");
    expect(none.code).toBe(1);
    expect(oneLine(none.stderr)).toBe("headwater: no source named no-such-source");
    const before = await sourceCount();
    const two = await hw("delete", "twin");
    expect(two.code).toBe(1);
    expect(oneLine(two.stderr)).toMatch(/^headwater: twin names 2 sources \(dc_\w+, dc_\w+\): use an id$/);
    expect(await sourceCount()).toBe(before);
    const unknownId = await hw("events", "dc_doesnotexist");
    expect(unknownId.code).toBe(1);
    expect(oneLine(unknownId.stderr)).toBe("headwater: no source with id dc_doesnotexist");
  });

  it("a file that does not parse: where and why, exit 1, no source made", async () => {
    const before = await sourceCount();
    const r = await hw("deploy", "broken.mjs", "--name", "broken");
    expect(r.code).toBe(1);
    expect(oneLine(r.stderr)).toMatch(/^headwater: broken\.mjs:3:\d+: /);
    expect(await sourceCount()).toBe(before);
  });

  it("a file that is not there: exit 2", async () => {
    const r = await hw("deploy", "nope.mjs");
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe("headwater: no such file: nope.mjs");
  });

  it("a missing prop: names it and the flag to give, exit 2, no source made", async () => {
    const before = await sourceCount();
    const r = await hw("deploy", "http-echo.mjs", "--name", "needs-props");
    expect(r.code).toBe(2);
    expect(oneLine(r.stderr)).toBe("headwater: missing prop greeting (string): pass --prop greeting=VALUE");
    expect(await sourceCount()).toBe(before);
  });

  it("a bad prop value or an unknown prop: exit 2, no source made or changed", async () => {
    const components = async () => (await user.client.listMyComponents({ limit: 1 })).page_info.total_count;
    const before = await sourceCount();
    const bad = await hw("deploy", "http-echo.mjs", "--prop", "greeting=x", "--prop", "times=many");
    expect(bad.code).toBe(2);
    expect(oneLine(bad.stderr)).toMatch(/--prop times: must be an integer/);
    const unknown = await hw("deploy", "http-echo.mjs", "--prop", "colour=red");
    expect(unknown.code).toBe(2);
    expect(oneLine(unknown.stderr)).toMatch(/--prop colour: the component has no such prop \(it has greeting, times\)/);
    expect(await sourceCount()).toBe(before);
    // A source of that name keeps its props when the new ones are refused.
    const made = await hw("deploy", "http-echo.mjs", "--name", "kept-props", "--prop", "greeting=first", "--prop", "times=1", "--json");
    expect(made.code, made.stderr).toBe(0);
    const kept = (await user.client.listMySources({ limit: 100 })).data.find((s) => s.name === "kept-props")!;
    const refused = await hw("deploy", "http-echo.mjs", "--name", "kept-props", "--prop", "greeting=second", "--prop", "times=many");
    expect(refused.code).toBe(2);
    const after = await user.client.getSource(kept.id);
    expect(after.configured_props).toMatchObject({ greeting: "first", times: 1 });
    expect(after.component_id).toBe(kept.component_id);
    // A flag of the wrong shape is refused before the server is asked anything: not even a component is saved.
    const componentsBefore = await components();
    const shape = await hw("deploy", "http-echo.mjs", "--prop", "greeting");
    expect(shape.code).toBe(2);
    expect(oneLine(shape.stderr)).toMatch(/--prop takes key=value/);
    expect(await components()).toBe(componentsBefore);
  });

  it("an unknown command or flag: the closest match and help, exit 2", async () => {
    const cmd = await runCli(["lsit", "sources"]);
    expect(cmd.code).toBe(2);
    expect(cmd.stderr).toMatch(/^error: unknown command 'lsit'\n\(Did you mean list\?\)/);
    expect(cmd.stderr).toMatch(/Usage: headwater/);
    const flag = await runCli(["events", "x", "--follw"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toMatch(/^error: unknown option '--follw'\n\(Did you mean --follow\?\)/);
    expect(flag.stderr).toMatch(/Usage: headwater events/);
  });

  it("usage errors: bad values and half a connection, exit 2", async () => {
    const n = await hw("events", "twin", "-n", "ten");
    expect(n.code).toBe(2);
    expect(n.stderr.split("\n")[0]).toMatch(/^error: option '-n, --lines <n>' argument 'ten' is invalid/);
    const range = await hw("events", "delete", "twin", "--from", "yesterday", "--to", "1-0");
    expect(range.code).toBe(2);
    const half = await runCli(["whoami", "--api-url", server.baseUrl]);
    expect(half.code).toBe(2);
    expect(oneLine(half.stderr)).toBe("headwater: --api-url and --api-key go together: give both");
    const kind = await hw("list", "things");
    expect(kind.code).toBe(2);
  });

  it("--help and --version exit 0", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/Usage: headwater/);
    const version = await runCli(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });
});
