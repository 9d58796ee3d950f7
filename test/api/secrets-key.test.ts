/**
 * The secrets key (decisions.md "Connected accounts"): the data dir's key file, a wrong key
 * (`secrets_key_mismatch` for the runs that need a credential, every other source unharmed),
 * `HEADWATER_SECRETS_KEY_PREVIOUS`, `headwater secrets rotate` while the server runs, PostgreSQL
 * refusing to start without a key, the move of inline credentials stored before accounts
 * existed, and no planted value in the data dir's files or a backup after all of it.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "../../server/app.js";
import { ConfigError, loadConfig } from "../../server/config.js";
import { createClient, type Client } from "../../shared/client/index.js";
import { runCli } from "../cli/helpers.js";
import { uniqueKey } from "../support/fixtures.js";
import { randomKey, tempDataDir } from "../support/server.js";
import { hit, waitForEvents } from "../runtime/helpers.js";

const PASSWORD = "planted-Pa55word-for-scan";

const component = (key = uniqueKey("acct")) => `
export default {
  key: "${key}",
  name: "Account User",
  version: "0.0.1",
  props: { svc: { type: "app", app: "demoapp" }, http: "$.interface.http" },
  async run() {
    console.log("using", this.svc.$auth.password);
    this.$emit({ host: this.svc.$auth.host });
  },
};`;
const plain = (key = uniqueKey("plain")) => `
export default { key: "${key}", name: "Plain", version: "0.0.1", props: { http: "$.interface.http" },
  async run(event) { this.$emit({ ok: true }); } };`;

const newKeyText = () => crypto.randomBytes(32).toString("base64");

interface Running {
  server: Server;
  admin: Client;
}

const running: Server[] = [];
afterEach(async () => {
  for (const s of running.splice(0)) await s.close().catch(() => undefined);
});

async function start(dataDir: string, adminKey: string, env: Record<string, string> = {}): Promise<Running> {
  const server = await createServer(
    loadConfig({
      HEADWATER_HOST: "127.0.0.1",
      HEADWATER_PORT: "0",
      HEADWATER_DATA_DIR: dataDir,
      HEADWATER_API_KEY: adminKey,
      HEADWATER_LOG_LEVEL: "silent",
      HEADWATER_NPM_COMPONENTS: "0",
      HEADWATER_RATE_LIMIT: "0",
      ...env,
    }),
  );
  running.push(server);
  return { server, admin: createClient({ baseUrl: `${server.url}/v1`, apiKey: adminKey }) };
}

async function stop(r: Running): Promise<void> {
  await r.server.close();
  running.splice(running.indexOf(r.server), 1);
}

/** An account-backed source and a plain one, and their endpoints. */
async function deploy(client: Client) {
  const account = await client.createAccount({ app: "demoapp", auth: { host: "db.example", password: PASSWORD } });
  const withAccount = await client.createSource({ component_code: component(), configured_props: { svc: { authProvisionId: account.id } } });
  const other = await client.createSource({ component_code: plain() });
  const url = (s: typeof other) => (s.configured_props.http as { endpoint_url: string }).endpoint_url;
  return { account, withAccount, other, urls: { withAccount: url(withAccount), other: url(other) } };
}

/** The endpoint path of a source on whichever server runs now. */
const on = (r: Running, endpointUrl: string) => r.server.url + new URL(endpointUrl).pathname;

function scan(dir: string, value: string): string[] {
  const found: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    const p = path.join(e.parentPath, e.name);
    if (e.isFile() && fs.readFileSync(p).includes(value)) found.push(path.relative(dir, p));
  }
  return found;
}

describe("the secrets key", { timeout: 120_000 }, () => {
  it("the embedded default makes an owner-only key file; a wrong key fails only the runs that need a credential", async () => {
    const dataDir = tempDataDir();
    const adminKey = randomKey();
    let r = await start(dataDir, adminKey);
    const keyFile = path.join(dataDir, "secrets.key");
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600);
    const d = await deploy(r.admin);
    await hit(on(r, d.urls.withAccount), { body: {} });
    await waitForEvents(r.admin, d.withAccount.id, "", 1);
    await stop(r);

    // The key file replaced (a data dir restored without its key): the server still starts.
    fs.writeFileSync(keyFile, `${newKeyText()}\n`, { mode: 0o600 });
    r = await start(dataDir, adminKey);
    await hit(on(r, d.urls.withAccount), { body: {} });
    await hit(on(r, d.urls.other), { body: {} });
    const [err] = await waitForEvents(r.admin, d.withAccount.id, "$errors", 1);
    expect(err!.event).toMatchObject({ error: { code: "secrets_key_mismatch", message: expect.stringContaining(d.account.id) } });
    expect(await waitForEvents(r.admin, d.other.id, "", 1)).toHaveLength(1);
    // The account still reads (names only), and new values sealed under this key mend it.
    expect((await r.admin.getAccount(d.account.id)).fields).toEqual(["host", "password"]);
    await r.admin.updateAccount(d.account.id, { auth: { host: "mended.example", password: PASSWORD } });
    await hit(on(r, d.urls.withAccount), { body: {} });
    const events = await waitForEvents(r.admin, d.withAccount.id, "", 2);
    expect(events[1]!.event).toEqual({ host: "mended.example" });
  });

  it("headwater secrets rotate makes a new key file while the server runs; the server follows without a restart", async () => {
    const dataDir = tempDataDir();
    const adminKey = randomKey();
    let r = await start(dataDir, adminKey);
    const d = await deploy(r.admin);
    const before = fs.readFileSync(path.join(dataDir, "secrets.key"), "utf8");

    const rotated = await runCli(["secrets", "rotate", "--data-dir", dataDir]);
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toMatch(/1 account\(s\) sealed again under key [0-9a-f]{16}/);
    expect(fs.readFileSync(path.join(dataDir, "secrets.key.previous"), "utf8")).toBe(before);
    expect(fs.readFileSync(path.join(dataDir, "secrets.key"), "utf8")).not.toBe(before);
    expect(fs.statSync(path.join(dataDir, "secrets.key")).mode & 0o777).toBe(0o600);

    await hit(on(r, d.urls.withAccount), { body: {} });
    expect((await waitForEvents(r.admin, d.withAccount.id, "", 1))[0]!.event).toEqual({ host: "db.example" });
    await stop(r);

    // Everything is under the new key: the old one is no longer needed.
    fs.rmSync(path.join(dataDir, "secrets.key.previous"));
    r = await start(dataDir, adminKey);
    await hit(on(r, d.urls.withAccount), { body: {} });
    const events = await waitForEvents(r.admin, d.withAccount.id, "", 2);
    expect(events[1]!.event).toEqual({ host: "db.example" });
    expect(await waitForEvents(r.admin, d.withAccount.id, "$errors", 0)).toEqual([]);

    // The data dir and a backup hold no value: the logs said it, the store has ****.
    const backup = path.join(tempDataDir(), "copy.db");
    const b = await runCli(["backup", backup, "--data-dir", dataDir]);
    expect(b.code, b.stderr).toBe(0);
    await stop(r);
    expect(scan(dataDir, PASSWORD)).toEqual([]);
    expect(fs.readFileSync(backup).includes(PASSWORD)).toBe(false);
  });

  it("HEADWATER_SECRETS_KEY_PREVIOUS opens what the old key sealed; rotate re-seals it; then the old key can go", async () => {
    const dataDir = tempDataDir();
    const adminKey = randomKey();
    const oldKey = newKeyText();
    const newKey = newKeyText();
    let r = await start(dataDir, adminKey, { HEADWATER_SECRETS_KEY: oldKey });
    expect(fs.existsSync(path.join(dataDir, "secrets.key"))).toBe(false);
    const d = await deploy(r.admin);
    await stop(r);

    r = await start(dataDir, adminKey, { HEADWATER_SECRETS_KEY: newKey, HEADWATER_SECRETS_KEY_PREVIOUS: oldKey });
    await hit(on(r, d.urls.withAccount), { body: {} });
    await waitForEvents(r.admin, d.withAccount.id, "", 1);
    const rotated = await runCli(["secrets", "rotate"], {
      env: { HEADWATER_DATA_DIR: dataDir, HEADWATER_SECRETS_KEY: newKey, HEADWATER_SECRETS_KEY_PREVIOUS: oldKey },
    });
    expect(rotated.code, rotated.stderr).toBe(0);
    expect(rotated.stdout).toContain("1 account(s) sealed again");
    await stop(r);

    r = await start(dataDir, adminKey, { HEADWATER_SECRETS_KEY: newKey });
    await hit(on(r, d.urls.withAccount), { body: {} });
    expect(await waitForEvents(r.admin, d.withAccount.id, "", 2)).toHaveLength(2);
    await stop(r);

    // The old key alone no longer opens anything: the runs say so.
    r = await start(dataDir, adminKey, { HEADWATER_SECRETS_KEY: oldKey });
    await hit(on(r, d.urls.withAccount), { body: {} });
    const [err] = await waitForEvents(r.admin, d.withAccount.id, "$errors", 1);
    expect(err!.event).toMatchObject({ error: { code: "secrets_key_mismatch" } });
  });

  it("a bad key is a configuration error; PostgreSQL without a key refuses to start, saying so", async () => {
    expect(() => loadConfig({ HEADWATER_SECRETS_KEY: "too-short" })).toThrow(/HEADWATER_SECRETS_KEY.*32 bytes/s);
    const err = await createServer(
      loadConfig({ HEADWATER_DATA_DIR: tempDataDir(), HEADWATER_PORT: "0", HEADWATER_DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" }),
    ).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toContain("HEADWATER_SECRETS_KEY is required with HEADWATER_DATABASE_URL");
  });

  it("inline credentials stored before accounts existed move into accounts at start, and leave no copy in the files", async () => {
    const dataDir = tempDataDir();
    const adminKey = randomKey();
    let r = await start(dataDir, adminKey);
    const src = await r.admin.createSource({ name: "legacy", component_code: component() });
    // As an older server stored it: the values in clear in configured_props.
    const inline = JSON.stringify({ svc: { $auth: { host: "legacy.example", password: PASSWORD } }, http: src.configured_props.http });
    await r.server.store.db.updateTable("sources").set({ configured_props: inline }).where("id", "=", src.id).execute();
    await stop(r);

    r = await start(dataDir, adminKey);
    const moved = await r.admin.getSource(src.id);
    const ref = moved.configured_props.svc as { authProvisionId: string };
    expect(ref.authProvisionId).toMatch(/^apn_/);
    expect(await r.admin.getAccount(ref.authProvisionId)).toMatchObject({ app: "demoapp", name: "legacy (svc)", used_by: 1, fields: ["host", "password"] });
    await hit(on(r, (src.configured_props.http as { endpoint_url: string }).endpoint_url), { body: {} });
    expect((await waitForEvents(r.admin, src.id, "", 1))[0]!.event).toEqual({ host: "legacy.example" });
    await stop(r);
    expect(scan(dataDir, PASSWORD)).toEqual([]);
  });
});
