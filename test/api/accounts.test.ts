/**
 * Connected accounts over HTTP (decisions.md "Connected accounts"): the accounts API, references
 * from sources, inline credentials turned into accounts, redaction of what runs leave behind,
 * scoping, bad input, and no credential value in any answer or in the data dir's files.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Account } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError, rawRequest, uniqueKey } from "../support/fixtures.js";
import { startServer, type TestServer, type TestUser } from "../support/server.js";
import { hit, waitForEvents } from "../runtime/helpers.js";

/** Values planted in credentials: none may come back in an answer, a stream or a file. */
const PASSWORD = "hunter2-secret-Pw0rd";
const TOKEN = "tok_live_9f8e7d6c5b4a";
const NEW_PASSWORD = "rotated-Secret-77x";

/** An HTTP source with an app prop: logs its credentials, emits them, and throws with one on `?fail`. */
const leakyComponent = (key = uniqueKey("leaky")) => `
export default {
  key: "${key}",
  name: "Leaky",
  version: "0.0.1",
  props: { svc: { type: "app", app: "demoapp" }, http: "$.interface.http" },
  async run(event) {
    const a = this.svc.$auth;
    console.log("connecting with", a);
    console.log(JSON.stringify(a));
    this.$emit({ host: a.host, password: a.password, api_token: a.api_token, note: "pw is " + a.password }, { summary: "pw " + a.password });
    if (event.query && event.query.fail) throw new Error("cannot connect with " + a.password);
  },
};`;

const endpointOf = (src: { configured_props: Record<string, unknown> }) =>
  (src.configured_props.http as { endpoint_url: string }).endpoint_url;

describe.each(testDatabases())("connected accounts on $name", (db) => {
  let s: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    s = await startServer({ db });
    alice = await s.newUser();
    bob = await s.newUser();
  });
  afterAll(async () => {
    await s?.stop();
  });

  it("POST /accounts answers the account with field names only; GET, list and app= filter", async () => {
    const acc = await alice.client.createAccount({ app: "demoapp", name: "Prod", auth: { host: "db.internal", password: PASSWORD, extra_field: 42 } });
    expect(Account.parse(acc)).toBeTruthy();
    expect(acc).toMatchObject({ id: expect.stringMatching(/^apn_/), app: "demoapp", name: "Prod", used_by: 0 });
    expect(acc.fields.sort()).toEqual(["extra_field", "host", "password"]);
    expect(JSON.stringify(acc)).not.toContain(PASSWORD);

    const raw = await rawRequest(`${s.baseUrl}/accounts/${acc.id}`, { key: alice.key });
    expect(raw.status).toBe(200);
    expect(JSON.stringify(raw.body)).not.toContain(PASSWORD);
    expect(JSON.stringify(raw.body)).not.toContain("db.internal");

    await alice.client.createAccount({ app: "otherapp", auth: { token: TOKEN } });
    const all = await alice.client.listMyAccounts();
    expect(all.page_info.total_count).toBe(2);
    const demo = await alice.client.listMyAccounts({ app: "demoapp" });
    expect(demo.data.map((a) => a.id)).toEqual([acc.id]);
    const other = demo.data.length && (await alice.client.listMyAccounts({ app: "otherapp" })).data[0]!;
    expect(other && other.name).toBe("otherapp #1");
    expect(JSON.stringify(all)).not.toContain(TOKEN);
  });

  it("a source references an account: runs get $auth, answers show only {authProvisionId}, logs and errors are redacted", async () => {
    const acc = await alice.client.createAccount({ app: "demoapp", auth: { host: "db.internal", password: PASSWORD, api_token: TOKEN } });
    const src = await alice.client.createSource({ component_code: leakyComponent(), configured_props: { svc: { authProvisionId: acc.id } } });
    expect(src.configured_props.svc).toEqual({ authProvisionId: acc.id });
    expect((await alice.client.getAccount(acc.id)).used_by).toBe(1);

    expect((await hit(endpointOf(src), { body: { n: 1 } })).status).toBe(200);
    const [emitted] = await waitForEvents(alice.client, src.id, "", 1);
    // The host is data the run may emit; the password and token are not.
    expect(emitted!.event).toEqual({ host: "db.internal", password: "****", api_token: "****", note: "pw is ****" });
    expect(emitted!.metadata.summary).toBe("pw ****");
    const logs = await waitForEvents(alice.client, src.id, "$logs", 2);
    const logText = JSON.stringify(logs);
    expect(logText).toContain("db.internal".length >= 4 ? "****" : "");
    expect(logText).not.toContain(PASSWORD);
    expect(logText).not.toContain(TOKEN);

    await hit(endpointOf(src) + "?fail=1", { body: { n: 2 } });
    const [err] = await waitForEvents(alice.client, src.id, "$errors", 1);
    const errText = JSON.stringify(err);
    expect(errText).toContain("cannot connect with ****");
    expect(errText).not.toContain(PASSWORD);

    for (const body of [await alice.client.getSource(src.id), await alice.client.listMySources()])
      expect(JSON.stringify(body)).not.toContain(PASSWORD);
  });

  it("PATCH replaces the values: runs after the answer use them; a rename keeps them", async () => {
    const acc = await alice.client.createAccount({ app: "demoapp", auth: { host: "first.host", password: PASSWORD } });
    const src = await alice.client.createSource({ component_code: leakyComponent(), configured_props: { svc: { authProvisionId: acc.id } } });
    await hit(endpointOf(src), { body: {} });
    await waitForEvents(alice.client, src.id, "", 1);
    const patched = await alice.client.updateAccount(acc.id, { auth: { host: "second.host", password: NEW_PASSWORD } });
    expect(patched.fields.sort()).toEqual(["host", "password"]);
    await hit(endpointOf(src), { body: {} });
    const events = await waitForEvents(alice.client, src.id, "", 2);
    expect(events.map((e) => (e.event as { host: string }).host)).toEqual(["first.host", "second.host"]);
    const renamed = await alice.client.updateAccount(acc.id, { name: "Renamed" });
    expect(renamed).toMatchObject({ name: "Renamed", fields: ["host", "password"] });
    await hit(endpointOf(src), { body: {} });
    const after = await waitForEvents(alice.client, src.id, "", 3);
    expect((after[2]!.event as { host: string }).host).toBe("second.host");
  });

  it("DELETE: 409 account_in_use naming the source, then 204 once nothing uses it", async () => {
    const acc = await alice.client.createAccount({ app: "demoapp", auth: { password: PASSWORD } });
    const src = await alice.client.createSource({ name: "uses-it", component_code: leakyComponent(), configured_props: { svc: { authProvisionId: acc.id } } });
    const err = await expectApiError(alice.client.deleteAccount(acc.id), 409, "account_in_use");
    expect(err.message).toContain(src.id);
    expect(err.message).toContain("uses-it");
    const res = await rawRequest(`${s.baseUrl}/accounts/${acc.id}`, { method: "DELETE", key: alice.key });
    expect(res.body).toMatchObject({ code: "account_in_use", details: [{ path: `used_by.${src.id}`, message: expect.stringContaining("svc") }] });
    await alice.client.deleteSource(src.id);
    await alice.client.deleteAccount(acc.id);
    await expectApiError(alice.client.getAccount(acc.id), 404, "not_found");
  });

  it("inline $auth becomes an account named after the source; new inline values replace it; it goes with the source", async () => {
    const src = await alice.client.createSource({
      name: "inline-src",
      component_code: leakyComponent(),
      configured_props: { svc: { $auth: { host: "inline.host", password: PASSWORD } } },
    });
    const ref = src.configured_props.svc as { authProvisionId: string };
    expect(ref).toEqual({ authProvisionId: expect.stringMatching(/^apn_/) });
    const acc = await alice.client.getAccount(ref.authProvisionId);
    expect(acc).toMatchObject({ app: "demoapp", name: "inline-src (svc)", used_by: 1 });
    expect(JSON.stringify(await alice.client.getSource(src.id))).not.toContain(PASSWORD);

    await hit(endpointOf(src), { body: {} });
    const [first] = await waitForEvents(alice.client, src.id, "", 1);
    expect((first!.event as { host: string }).host).toBe("inline.host");

    const updated = await alice.client.updateSource(src.id, {
      component_id: src.component_id,
      configured_props: { svc: { $auth: { host: "inline2.host", password: NEW_PASSWORD } } },
    });
    expect(updated.configured_props.svc).toEqual(ref);
    await hit(endpointOf(src), { body: {} });
    const events = await waitForEvents(alice.client, src.id, "", 2);
    expect((events[1]!.event as { host: string }).host).toBe("inline2.host");

    await alice.client.deleteSource(src.id);
    await expectApiError(alice.client.getAccount(ref.authProvisionId), 404);
  });

  it("another user's account is a 404 to read, patch, delete and reference; nothing is created", async () => {
    const acc = await alice.client.createAccount({ app: "demoapp", auth: { password: PASSWORD } });
    await expectApiError(bob.client.getAccount(acc.id), 404, "not_found");
    await expectApiError(bob.client.updateAccount(acc.id, { name: "mine" }), 404, "not_found");
    await expectApiError(bob.client.deleteAccount(acc.id), 404, "not_found");
    const before = (await bob.client.listMySources()).page_info.total_count;
    await expectApiError(bob.client.createSource({ component_code: leakyComponent(), configured_props: { svc: { authProvisionId: acc.id } } }), 404, "not_found");
    await expectApiError(bob.client.createSource({ component_code: leakyComponent(), configured_props: { svc: { authProvisionId: "apn_doesnotexist" } } }), 404);
    expect((await bob.client.listMySources()).page_info.total_count).toBe(before);
    expect((await bob.client.listMyAccounts()).page_info.total_count).toBe(0);
    expect((await alice.client.getAccount(acc.id)).name).not.toBe("mine");
  });

  it("bad input is a 400 that changes nothing", async () => {
    const before = (await alice.client.listMyAccounts({ limit: 100 })).page_info.total_count;
    const post = (body: unknown) => rawRequest(`${s.baseUrl}/accounts`, { method: "POST", key: alice.key, body: JSON.stringify(body) });
    for (const body of [
      { app: "demoapp", auth: "password" },
      { app: "demoapp", auth: ["a"] },
      { app: "demoapp" },
      { auth: { a: "b" } },
      { app: "", auth: {} },
      { app: "demoapp", auth: {}, password: "x" },
      { app: "demo app!", auth: {} },
    ]) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
    expect((await post("{not json" as unknown)).status).toBe(400);
    const acc = await alice.client.createAccount({ app: "demoapp", auth: { password: PASSWORD } });
    const patch = await rawRequest(`${s.baseUrl}/accounts/${acc.id}`, { method: "PATCH", key: alice.key, body: JSON.stringify({ auth: 5 }) });
    expect(patch.status).toBe(400);
    for (const svc of [{ authProvisionId: 7 }, { authProvisionId: acc.id, $auth: { a: "b" } }, { $auth: "x" }, "text"]) {
      const res = await rawRequest(`${s.baseUrl}/sources`, {
        method: "POST",
        key: alice.key,
        body: JSON.stringify({ component_code: leakyComponent(), configured_props: { svc } }),
      });
      expect(res.status, JSON.stringify(svc)).toBe(400);
    }
    // An account of another app than the prop's.
    const other = await alice.client.createAccount({ app: "otherapp", auth: { token: "x" } });
    await expectApiError(alice.client.createSource({ component_code: leakyComponent(), configured_props: { svc: { authProvisionId: other.id } } }), 400, "validation_failed");
    expect((await alice.client.listMyAccounts({ limit: 100 })).page_info.total_count).toBe(before + 2);
    await expectApiError(alice.client.listMyAccounts({ after: "not-a-cursor!" }), 400);
  });

  it.runIf(db.name === "sqlite")("no planted value is in any file of the data dir (database, WAL, search index)", async () => {
    // Everything above ran on this server: accounts, inline values, runs that logged, emitted and threw.
    await new Promise((r) => setTimeout(r, 300));
    const found: string[] = [];
    const walk = (dir: string) => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) {
          const bytes = fs.readFileSync(p);
          for (const v of [PASSWORD, TOKEN, NEW_PASSWORD]) if (bytes.includes(v)) found.push(`${v} in ${path.relative(s.dataDir, p)}`);
        }
      }
    };
    walk(s.dataDir);
    expect(found).toEqual([]);
    // The key file is owner-only.
    expect(fs.statSync(path.join(s.dataDir, "secrets.key")).mode & 0o077).toBe(0);
  });
});
