/**
 * `headwater accounts ...` and `deploy|dev --account` through the real binary against a real
 * server: values go in on stdin and never come out (not in a table, a `--json` line, an error or
 * a status line), a source references an account and runs with its values, an account in use is
 * not deleted, and bad input is refused with the right exit code before anything changes.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Account, Source } from "../../shared/resources/index.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { eventually, flags, ndjson, oneLine, post, runCli, startCli, tempDir, type CliResult } from "./helpers.js";

const FIXTURES = path.join(import.meta.dirname, "fixtures");

const PASSWORD_1 = "pw-secret-1111";
const PASSWORD_2 = "pw-secret-2222-longer";
const TOKEN = "xoxb-secret-3333";
const SECRETS = [PASSWORD_1, PASSWORD_2, TOKEN, "pw-secret-4444", "never-saved-5555"];

describe("headwater accounts", { timeout: 180_000 }, () => {
  let server: TestServer;
  let user: TestUser;
  let cwd: string;
  /** Every output of every run, checked for values at the end. */
  const seen: CliResult[] = [];
  const record = async (run: Promise<CliResult>) => {
    const r = await run;
    seen.push(r);
    return r;
  };
  let hw: (...args: string[]) => Promise<CliResult>;
  /** `headwater ...args` with `input` on stdin (a pipe, as in a script). */
  let hwIn: (input: string, ...args: string[]) => Promise<CliResult>;

  beforeAll(async () => {
    server = await startServer();
    user = await server.newUser();
    cwd = tempDir();
    fs.copyFileSync(path.join(FIXTURES, "account-db.mjs"), path.join(cwd, "account-db.mjs"));
    hw = (...args) => record(runCli([...flags(server.baseUrl, user.key), ...args], { cwd }));
    hwIn = (input, ...args) => record(runCli([...flags(server.baseUrl, user.key), ...args], { cwd, input }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  let pg: string;
  let slack: string;
  let sourceId: string;
  let endpoint: string;

  /** Posts to the source until an event with that host arrives; its data. */
  const runSeen = async (host: string) =>
    eventually(async () => {
      await post(endpoint, { at: Date.now() });
      return (await user.client.listSourceEvents(sourceId)).data.find((e) => (e.event as { host?: string }).host === host)?.event as
        | { host: string; passwordLength: number }
        | undefined;
    }, 30_000, `an event that saw host ${host}`);

  it("add reads the values from stdin (JSON, or name=value lines) and prints only field names; list shows them", async () => {
    const r = await hwIn(JSON.stringify({ host: "db.internal", password: PASSWORD_1 }), "accounts", "add", "postgresql", "--name", "prod db");
    expect(r.code, r.stderr).toBe(0);
    pg = /created\s+(apn_\w+)/.exec(r.stdout)?.[1] ?? "";
    expect(pg).not.toBe("");
    expect(r.stdout).toMatch(/app\s+postgresql\n/);
    expect(r.stdout).toMatch(/name\s+prod db\n/);
    expect(r.stdout).toMatch(/fields\s+host, password\n/);
    expect(r.stdout).toMatch(/used by\s+0\n/);
    expect(await user.client.getAccount(pg)).toMatchObject({ app: "postgresql", name: "prod db", fields: ["host", "password"], used_by: 0 });

    const j = await hwIn(`# the bot's token\ntoken=${TOKEN}\n`, "accounts", "add", "slack", "--field", "token", "--json");
    expect(j.code, j.stderr).toBe(0);
    const [row] = ndjson(j.stdout) as Account[];
    expect(row).toMatchObject({ id: expect.stringMatching(/^apn_/), app: "slack", fields: ["token"], used_by: 0 });
    slack = row!.id;

    const table = await hw("accounts", "list");
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^ID\s+APP\s+NAME\s+FIELDS\s+USED BY\s+UPDATED$/);
    expect(lines.find((l) => l.startsWith(pg))).toMatch(new RegExp(`^${pg}\\s+postgresql\\s+prod db\\s+host, password\\s+0\\s+(just now|\\d+s ago)$`));
    expect(lines.find((l) => l.startsWith(slack))).toMatch(/\s+slack\s+.*\s+token\s+0\s+/);

    const onlySlack = await hw("accounts", "list", "--app", "slack", "--json");
    expect(onlySlack.code, onlySlack.stderr).toBe(0);
    expect((ndjson(onlySlack.stdout) as Account[]).map((a) => a.id)).toEqual([slack]);
    const none = await hw("accounts", "list", "--app", "github");
    expect(none.stdout).toBe("(none)\n");
  });

  it("deploy --account makes the app prop reference the account; the source runs with its values", async () => {
    const r = await hw("deploy", "account-db.mjs", "--name", "orders", "--account", `db=${pg}`, "--json");
    expect(r.code, r.stderr).toBe(0);
    const [row] = ndjson(r.stdout) as Array<Source & { endpoint_url: string }>;
    // The reference is shown as it is: an id, not a credential.
    expect(row!.configured_props.db).toEqual({ authProvisionId: pg });
    sourceId = row!.id;
    endpoint = row!.endpoint_url;
    expect((await user.client.getSource(sourceId)).configured_props.db).toEqual({ authProvisionId: pg });

    expect(await runSeen("db.internal")).toEqual({ host: "db.internal", passwordLength: PASSWORD_1.length });
    const listed = ndjson((await hw("accounts", "list", "--json")).stdout) as Account[];
    expect(listed.find((a) => a.id === pg)?.used_by).toBe(1);
    const sources = ndjson((await hw("list", "sources", "--json")).stdout) as Source[];
    expect(sources.find((s) => s.id === sourceId)?.configured_props.db).toEqual({ authProvisionId: pg });

    // Deployed again without --account, the source keeps its reference.
    const again = await hw("deploy", "account-db.mjs", "--name", "orders", "--prop", "label=v2");
    expect(again.code, again.stderr).toBe(0);
    expect((await user.client.getSource(sourceId)).configured_props).toMatchObject({ db: { authProvisionId: pg }, label: "v2" });
  });

  it("delete refuses an account in use: names the source and prop, exit 1, nothing deleted", async () => {
    const r = await hw("accounts", "delete", pg);
    expect(r.code).toBe(1);
    const line = oneLine(r.stderr);
    expect(line).toContain(`${pg} (postgresql, prod db) is in use, not deleted`);
    expect(line).toContain(`source "orders" (${sourceId}), prop db`);
    expect(line).toMatch(/account_in_use, HTTP 409\)$/);
    expect(r.stdout).toBe("");
    expect((await user.client.getAccount(pg)).used_by).toBe(1);
  });

  it("set replaces every value from stdin and the next run uses them; --name alone only renames", async () => {
    const r = await hwIn(`host=db2.internal\npassword=${PASSWORD_2}\nport=5432\n`, "accounts", "set", pg);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`updated\\s+${pg}\\n`));
    expect(r.stdout).toMatch(/fields\s+host, password, port\n/);
    expect(r.stdout).toMatch(/used by\s+1\n/);
    expect(await runSeen("db2.internal")).toEqual({ host: "db2.internal", passwordLength: PASSWORD_2.length });

    // A field left out is gone: the values are replaced, not merged.
    const fewer = await hwIn("host=db3.internal\n", "accounts", "set", pg, "--field", "host", "--json");
    expect(fewer.code, fewer.stderr).toBe(0);
    expect(ndjson(fewer.stdout)[0]).toMatchObject({ id: pg, fields: ["host"] });
    expect(await runSeen("db3.internal")).toEqual({ host: "db3.internal", passwordLength: 0 });

    // --name alone does not read stdin: what is piped in is not saved.
    const renamed = await hwIn("host=never-saved-5555\n", "accounts", "set", pg, "--name", "primary");
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toMatch(/name\s+primary\n/);
    expect(await user.client.getAccount(pg)).toMatchObject({ name: "primary", fields: ["host"] });
    expect(await runSeen("db3.internal")).toMatchObject({ host: "db3.internal" });

    // --name with --field: renamed, and the values replaced.
    const both = await hwIn(JSON.stringify({ host: "db.internal", password: "pw-secret-4444" }), "accounts", "set", pg, "--name", "prod db", "--field", "host", "--field", "password");
    expect(both.code, both.stderr).toBe(0);
    expect(await user.client.getAccount(pg)).toMatchObject({ name: "prod db", fields: ["host", "password"] });
  });

  it("once nothing uses it, delete removes the account", async () => {
    const other = await hwIn(`host=replica.internal\npassword=${PASSWORD_1}\n`, "accounts", "add", "postgresql", "--name", "replica", "--json");
    expect(other.code, other.stderr).toBe(0);
    const replica = (ndjson(other.stdout)[0] as Account).id;
    const moved = await hw("deploy", "account-db.mjs", "--name", "orders", "--account", `db=${replica}`);
    expect(moved.code, moved.stderr).toBe(0);
    expect(await runSeen("replica.internal")).toEqual({ host: "replica.internal", passwordLength: PASSWORD_1.length });
    expect((await user.client.getAccount(pg)).used_by).toBe(0);

    const r = await hw("accounts", "delete", pg);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`deleted ${pg} (postgresql, prod db)\n`);
    await expectApiError(user.client.getAccount(pg), 404);

    await user.client.deleteSource(sourceId);
    const j = await hw("accounts", "delete", replica, "--json");
    expect(j.code, j.stderr).toBe(0);
    expect(ndjson(j.stdout)).toEqual([{ id: replica, app: "postgresql", name: "replica", deleted: true }]);
  });

  it("dev --account deploys its source with the reference", async () => {
    const account = (await user.client.createAccount({ app: "postgresql", name: "dev", auth: { host: "dev.internal", password: "abcd" } })).id;
    const dev = startCli([...flags(server.baseUrl, user.key), "dev", "account-db.mjs", "--account", `db=${account}`], { cwd });
    const [, id] = await dev.waitFor(/created cli-account-dev \((dc_\w+)\), version 1/, "stderr");
    const [, url] = await dev.waitFor(/endpoint (http\S+)/, "stderr");
    expect((await user.client.getSource(id!)).configured_props.db).toEqual({ authProvisionId: account });
    [sourceId, endpoint] = [id!, url!];
    expect(await runSeen("dev.internal")).toEqual({ host: "dev.internal", passwordLength: 4 });
    dev.kill("SIGINT");
    const r = await record(dev.done(30_000));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`deleted cli-account-dev (${id})`);
    expect((await user.client.getAccount(account)).used_by).toBe(0);
  });

  it("bad values on stdin are usage errors that never quote the input; nothing is saved", async () => {
    const before = (await user.client.listMyAccounts()).page_info.total_count;
    for (const [input, message] of [
      ["", /no values on stdin/],
      ["  \n\n", /no values on stdin/],
      [`{"password": never-saved-5555`, /stdin starts like JSON but is not valid JSON/],
      [`["never-saved-5555"]`, /one JSON object/],
      ["never-saved-5555\n", /stdin line 1 is not name=value/],
      [`host=db\nhost=never-saved-5555\n`, /stdin gives host twice \(line 2\)/],
    ] as const) {
      const r = await hwIn(input, "accounts", "add", "postgresql");
      expect(r.code, JSON.stringify(input)).toBe(2);
      expect(oneLine(r.stderr)).toMatch(message);
    }
    const wrongFields = await hwIn("password=never-saved-5555\n", "accounts", "add", "postgresql", "--field", "host");
    expect(wrongFields.code).toBe(2);
    expect(oneLine(wrongFields.stderr)).toMatch(/stdin has no value for host/);
    // The server's own check (an app name is letters, digits, _ . -): exit 1.
    const badApp = await hwIn("password=never-saved-5555\n", "accounts", "add", "not an app");
    expect(badApp.code).toBe(1);
    expect(oneLine(badApp.stderr)).toMatch(/HTTP 400/);
    expect((await user.client.listMyAccounts()).page_info.total_count).toBe(before);
  });

  it("unknown or malformed account ids: exit 1 for an id that is not yours, 2 for one that is not an id", async () => {
    for (const args of [["set", "apn_doesnotexist"], ["delete", "apn_doesnotexist"]]) {
      const r = await hwIn("host=x\n", "accounts", ...args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(oneLine(r.stderr)).toMatch(/no account with id apn_doesnotexist \(headwater accounts list shows yours\)/);
    }
    const notAnId = await hw("accounts", "delete", "prod db");
    expect(notAnId.code).toBe(2);
    expect(oneLine(notAnId.stderr)).toMatch(/"prod db" is not an account id \(apn_\.\.\.\)/);

    // Another user's account is not theirs to see, change or delete.
    const mallory = await server.newUser();
    const asMallory = await record(runCli([...flags(server.baseUrl, mallory.key), "accounts", "delete", slack]));
    expect(asMallory.code).toBe(1);
    expect(oneLine(asMallory.stderr)).toMatch(/no account with id/);
    expect((await user.client.getAccount(slack)).id).toBe(slack);

    const unknown = await hw("accounts", "rename", slack);
    expect(unknown.code).toBe(2);
  });

  it("deploy --account: a malformed flag is a usage error, an unknown id or a wrong prop changes nothing", async () => {
    const sources = async () => (await user.client.listMySources({ limit: 100 })).page_info.total_count;
    const components = async () => (await user.client.listMyComponents({ limit: 100 })).page_info.total_count;
    const [sourcesBefore, componentsBefore] = [await sources(), await components()];
    for (const flag of ["db", "db=", `=${slack}`, "db=dc_abc", "db=apn_"]) {
      const r = await hw("deploy", "account-db.mjs", "--name", "bad", "--account", flag);
      expect(r.code, flag).toBe(2);
      expect(oneLine(r.stderr)).toMatch(/--account takes prop=apn_\.\.\./);
    }
    // Unknown: said before the component is saved, so nothing at all is left behind.
    const unknown = await hw("deploy", "account-db.mjs", "--name", "bad", "--account", "db=apn_doesnotexist");
    expect(unknown.code).toBe(1);
    expect(oneLine(unknown.stderr)).toMatch(/--account db: you have no account apn_doesnotexist/);
    expect(await components()).toBe(componentsBefore);

    const cases: Array<[string[], RegExp]> = [
      [["--account", `db=${slack}`], /--account db: apn_\w+ is an account of slack, the prop wants one of postgresql/],
      [["--account", `label=${slack}`], /--account label: the prop is a string, not an app prop/],
      [["--account", `nope=${slack}`], /--account nope: the component has no such prop \(it has db, label\)/],
      [["--account", `db=${slack}`, "--prop", 'db={"host":"x"}'], /--prop db and --account db: give one of them/],
    ];
    for (const [args, message] of cases) {
      const r = await hw("deploy", "account-db.mjs", "--name", "bad", ...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(oneLine(r.stderr)).toMatch(message);
    }
    const twice = await hw("deploy", "account-db.mjs", "--name", "bad", "--account", `db=${slack}`, "--account", `db=${slack}`);
    expect(twice.code).toBe(2);
    expect(await sources()).toBe(sourcesBefore);
    expect((await user.client.getAccount(slack)).used_by).toBe(0);
  });

  it("no value ever appeared in any output", () => {
    expect(seen.length).toBeGreaterThan(20);
    for (const r of seen) {
      for (const secret of SECRETS) {
        expect(r.stdout, secret).not.toContain(secret);
        expect(r.stderr, secret).not.toContain(secret);
      }
    }
  });
});
