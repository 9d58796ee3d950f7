/**
 * `headwater actions <app>` and `headwater run <key>` through the real binary against a real
 * server: the account's own action (no vendor package needed) listed and run with typed
 * `--prop`s and an `--account`, its result printed (table and --json), a thrown error's exit
 * code, and bad input refused before anything runs.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { flags, ndjson, runCli, tempDir, type CliResult } from "./helpers.js";

const ACTION = `
export default {
  key: "clitest-add",
  name: "Add",
  description: "Adds two numbers",
  version: "0.0.1",
  type: "action",
  props: {
    clitest: { type: "app", app: "clitest", methods: { secret() { return this.$auth.secret; } } },
    a: { type: "integer" },
    b: { type: "integer", default: 1 },
    label: { type: "string", optional: true },
    fail: { type: "boolean", optional: true },
  },
  async run({ $ }) {
    console.log("adding with", this.clitest.secret());
    if (this.fail) throw new RangeError("told to fail");
    $.export("$summary", "added " + this.a + " and " + this.b);
    $.export("label", this.label ?? null);
    return this.a + this.b;
  },
};`;

describe("headwater actions / run", { timeout: 180_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let hw: (...args: string[]) => Promise<CliResult>;
  let account: string;

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    const cwd = tempDir();
    fs.writeFileSync(path.join(cwd, "props.json"), JSON.stringify({ a: 40 }));
    hw = (...args) => runCli([...flags(server.baseUrl, user.key), ...args], { cwd });
    await user.client.createComponent({ component_code: ACTION });
    account = (await user.client.createAccount({ app: "clitest", auth: { secret: "cli-secret-9999" } })).id;
  });
  afterAll(() => server?.stop());

  it("lists the account's actions of an app, with --search and --json", async () => {
    const table = await hw("actions", "clitest");
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).toMatch(/clitest-add\s+Add\s+0\.0\.1\s+clitest \(clitest\), a, b\?, label\?, fail\?/);
    const json = await hw("--json", "actions", "clitest", "--search", "two numbers");
    expect(ndjson(json.stdout)).toMatchObject([{ key: "clitest-add", app: "clitest" }]);
    expect(ndjson((await hw("--json", "actions", "clitest", "--search", "nothing like it")).stdout)).toEqual([]);
  });

  it("runs by key with typed --prop, --props-file and --account; prints summary, exports, return value and logs", async () => {
    const r = await hw("run", "clitest-add", "--props-file", "props.json", "--prop", "b=2", "--prop", "label=007", "--account", `clitest=${account}`);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("added 40 and 2");
    expect(r.stdout).toContain('label = "007"');
    expect(r.stdout).toMatch(/returned 42/);
    expect(r.stdout).toContain("adding with ****");
    expect(r.stdout + r.stderr).not.toContain("cli-secret-9999");
    const json = await hw("--json", "run", "clitest-add", "--prop", "a=1", "--account", `clitest=${account}`);
    expect(ndjson(json.stdout)).toMatchObject([{ ret: 2, summary: "added 1 and 1", error: null }]);
  });

  it("exits 1 when the action throws, after printing its error and logs", async () => {
    const r = await hw("run", "clitest-add", "--prop", "a=1", "--prop", "fail=true", "--account", `clitest=${account}`);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("RangeError: told to fail");
    expect(r.stdout).toContain("adding with ****");
    expect(r.stderr).toContain("the action failed: RangeError: told to fail");
  });

  it("refuses bad input: unknown key, unknown prop, a bad value, a malformed --account", async () => {
    const unknown = await hw("run", "clitest-nothing");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no action clitest-nothing/);
    const prop = await hw("run", "clitest-add", "--prop", "c=1");
    expect(prop.code).toBe(2);
    expect(prop.stderr).toMatch(/no such prop/);
    const value = await hw("run", "clitest-add", "--prop", "a=one");
    expect(value.code).toBe(2);
    const acct = await hw("run", "clitest-add", "--account", "clitest=nope");
    expect(acct.code).toBe(2);
    const missing = await hw("run", "clitest-add");
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/configured_props\.a/);
  });
});
