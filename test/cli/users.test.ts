/**
 * `headwater users ...` through the real binary against a real server: what an admin sees, and
 * what each command changes for the user concerned (their key, their endpoint, their quota).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../shared/client/index.js";
import { expectApiError } from "../support/fixtures.js";
import { startServer, type TestServer } from "../support/server.js";
import { flags, ndjson, oneLine, runCli } from "./helpers.js";

const HTTP_SOURCE = `export default {
  name: "hook", version: "0.1.0",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run() { this.http.respond({ status: 201, body: { ok: true } }); },
};`;
const endpointOf = (src: { configured_props: Record<string, unknown> }) =>
  (src.configured_props.http as { endpoint_url: string }).endpoint_url;

describe("headwater users", { timeout: 180_000 }, () => {
  let server: TestServer;
  let hw: (...args: string[]) => ReturnType<typeof runCli>;

  beforeAll(async () => {
    server = await startServer({ env: { HEADWATER_DAILY_INVOCATIONS_QUOTA: "1000" } });
    hw = (...args) => runCli([...flags(server.baseUrl, server.adminKey), ...args]);
  });
  afterAll(async () => {
    await server?.stop();
  });

  /** Creates a user through the CLI; returns its id and the key printed once. */
  async function createWithCli(username: string) {
    const r = await hw("users", "create", username, "--email", `${username}@example.test`);
    expect(r.code, r.stderr).toBe(0);
    const key = /api key\s+(\S+)/.exec(r.stdout)?.[1];
    const id = /id\s+(u_\w+)/.exec(r.stdout)?.[1];
    expect(key).toBeDefined();
    expect(id).toBeDefined();
    return { id: id!, key: key!, client: createClient({ baseUrl: server.baseUrl, apiKey: key! }), result: r };
  }

  it("create prints the new key once, and it works; list shows every user without keys", async () => {
    const alice = await createWithCli("alice");
    expect(alice.result.stdout).toMatch(/username\s+alice/);
    expect(alice.result.stdout).toMatch(/email\s+alice@example\.test/);
    expect(alice.result.stderr).toMatch(/shown only now/);
    expect((await alice.client.getMe()).username).toBe("alice");

    const j = await hw("users", "create", "bob", "--admin", "--json");
    expect(j.code, j.stderr).toBe(0);
    const [bob] = ndjson(j.stdout) as Array<{ id: string; username: string; admin: boolean; api_key: string }>;
    expect(bob).toMatchObject({ username: "bob", admin: true, api_key: expect.any(String) });
    expect((await createClient({ baseUrl: server.baseUrl, apiKey: bob!.api_key }).getMe()).admin).toBe(true);

    const table = await hw("users", "list");
    expect(table.code, table.stderr).toBe(0);
    const lines = table.stdout.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^USERNAME\s+ID\s+ADMIN\s+DISABLED\s+INVOCATIONS TODAY\s+COMPUTE TODAY$/);
    expect(lines.find((l) => l.startsWith("alice "))).toMatch(new RegExp(`^alice\\s+${alice.id}\\s+no\\s+no\\s+0 of 1000\\s+0 ms of 24 h$`));
    expect(lines.find((l) => l.startsWith("bob "))).toMatch(/^bob\s+u_\w+\s+yes\s+no/);
    expect(table.stdout).not.toContain(alice.key);

    const rows = ndjson((await hw("users", "list", "--json")).stdout) as Array<Record<string, unknown>>;
    expect(rows.map((u) => u.username)).toEqual(expect.arrayContaining(["admin", "alice", "bob"]));
    for (const u of rows) expect(u).not.toHaveProperty("api_key");
  });

  it("set changes a user's quotas, in force at once; default goes back to the server's", async () => {
    const carol = await createWithCli("carol");
    const src = await carol.client.createSource({ component_code: HTTP_SOURCE });
    expect((await fetch(endpointOf(src), { method: "POST", body: "{}" })).status).toBe(201);

    const r = await hw("users", "set", "carol", "--daily-invocations-quota", "1", "--daily-compute-time-quota", "90m");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/invocations today\s+1 of 1 \(own\)/);
    expect(r.stdout).toMatch(/compute today\s+.* of 1\.5 h \(own\)/);
    expect(await server.admin.getUser(carol.id)).toMatchObject({
      daily_invocations_quota: 1,
      daily_compute_time_quota: 90 * 60_000,
      quota_overrides: { daily_invocations_quota: 1, daily_compute_time_quota: 90 * 60_000 },
    });
    // Carol used her one invocation: her endpoint now refuses.
    const refused = await fetch(endpointOf(src), { method: "POST", body: "{}" });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: "quota_exceeded" });
    const listed = await hw("users", "list");
    expect(listed.stdout.split("\n").find((l) => l.startsWith("carol "))).toMatch(/1 of 1 \(own\)\s+.* of 1\.5 h \(own\)$/);

    const back = await hw("users", "set", carol.id, "--daily-invocations-quota", "default", "--json");
    expect(back.code, back.stderr).toBe(0);
    const [shown] = ndjson(back.stdout) as Array<Record<string, unknown>>;
    expect(shown).toMatchObject({ id: carol.id, daily_invocations_quota: 1000, quota_overrides: { daily_invocations_quota: null, daily_compute_time_quota: 90 * 60_000 } });
    expect(shown).not.toHaveProperty("api_key");
    expect((await fetch(endpointOf(src), { method: "POST", body: "{}" })).status).toBe(201);

    const promote = await hw("users", "set", "carol", "--admin");
    expect(promote.code, promote.stderr).toBe(0);
    expect((await server.admin.getUser(carol.id)).admin).toBe(true);
    expect((await hw("users", "set", "carol", "--no-admin")).code).toBe(0);
    expect((await server.admin.getUser(carol.id)).admin).toBe(false);
  });

  it("disable refuses the user's key and endpoint; enable lets them in again; nothing is lost", async () => {
    const dave = await createWithCli("dave");
    const src = await dave.client.createSource({ component_code: HTTP_SOURCE });
    const off = await hw("users", "disable", "dave");
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toBe(`disabled ${dave.id} (dave)\n`);
    await expectApiError(dave.client.getMe(), 403, "user_disabled");
    expect((await fetch(endpointOf(src), { method: "POST", body: "{}" })).status).toBe(403);
    expect((await hw("users", "list")).stdout.split("\n").find((l) => l.startsWith("dave "))).toMatch(/^dave\s+u_\w+\s+no\s+yes/);

    const on = await hw("users", "enable", dave.id);
    expect(on.code, on.stderr).toBe(0);
    expect(on.stdout).toBe(`enabled ${dave.id} (dave)\n`);
    expect((await dave.client.getMe()).username).toBe("dave");
    expect((await dave.client.getSource(src.id)).id).toBe(src.id);
    expect((await fetch(endpointOf(src), { method: "POST", body: "{}" })).status).toBe(201);
  });

  it("delete asks for --yes when it cannot ask, then removes the user and what they own", async () => {
    const erin = await createWithCli("erin");
    const src = await erin.client.createSource({ component_code: HTTP_SOURCE });
    const unconfirmed = await hw("users", "delete", "erin");
    expect(unconfirmed.code).toBe(2);
    expect(oneLine(unconfirmed.stderr)).toMatch(/add --yes to confirm/);
    expect((await server.admin.getUser(erin.id)).username).toBe("erin");

    const r = await hw("users", "delete", "erin", "--yes");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`deleted ${erin.id} (erin) and everything they owned\n`);
    await expectApiError(server.admin.getUser(erin.id), 404, "not_found");
    await expectApiError(erin.client.getMe(), 401);
    expect((await fetch(endpointOf(src), { method: "POST", body: "{}" })).status).toBe(404);
  });

  it("the last admin cannot be demoted, disabled or deleted (409 last_admin, exit 1)", async () => {
    // bob (an admin, from the first test) goes first, so admin is the last one.
    expect((await hw("users", "delete", "bob", "--yes")).code).toBe(0);
    for (const args of [["set", "admin", "--no-admin"], ["disable", "admin"], ["delete", "admin", "--yes"]]) {
      const r = await hw("users", ...args);
      expect(r.code, args.join(" ")).toBe(1);
      expect(oneLine(r.stderr)).toMatch(/last_admin, HTTP 409/);
    }
    expect(await server.admin.getMe()).toMatchObject({ username: "admin", admin: true, disabled: false });
  });

  it("bad input is a usage error that changes nothing; unknown users and non-admins are refused", async () => {
    const frank = await createWithCli("frank");
    for (const args of [
      ["set", "frank", "--daily-invocations-quota", "-1"],
      ["set", "frank", "--daily-invocations-quota", "lots"],
      ["set", "frank", "--daily-compute-time-quota", "2 hours"],
      ["set", "frank"],
      ["create"],
    ]) {
      const r = await hw("users", ...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).not.toMatch(/\n\s+at /);
    }
    expect(await server.admin.getUser(frank.id)).toMatchObject({ quota_overrides: { daily_invocations_quota: null, daily_compute_time_quota: null } });

    const nobody = await hw("users", "disable", "nobody");
    expect(nobody.code).toBe(1);
    expect(oneLine(nobody.stderr)).toMatch(/no user named nobody/);
    const noId = await hw("users", "delete", "u_doesnotexist", "--yes");
    expect(noId.code).toBe(1);
    expect(oneLine(noId.stderr)).toMatch(/no user with id u_doesnotexist/);
    const taken = await hw("users", "create", "frank");
    expect(taken.code).toBe(1);
    expect(oneLine(taken.stderr)).toMatch(/HTTP 409/);

    const asFrank = await runCli([...flags(server.baseUrl, frank.key), "users", "list"]);
    expect(asFrank.code).toBe(1);
    expect(oneLine(asFrank.stderr)).toMatch(/HTTP 403/);
  });
});
