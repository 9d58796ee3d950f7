/**
 * Admin user management (decisions.md, Operating a server): GET / PATCH / DELETE /users/{id}.
 * Per-user quotas, disabling (key 403, endpoints 403, timers stop), the last admin, and deleting
 * a user with everything they own (endpoints 404 at once, timers stop), on a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { User } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError, rawRequest } from "../support/fixtures.js";
import { startServer, type TestServer } from "../support/server.js";
import { waitForEvents } from "../runtime/helpers.js";

/** An HTTP source that answers itself (201) and emits each request. */
const HTTP_SOURCE = `export default {
  name: "echo", version: "0.1.0",
  props: { http: { type: "$.interface.http", customResponse: true } },
  async run(event) { this.http.respond({ status: 201, body: { ok: true } }); this.$emit({ at: Date.now() }); },
};`;

/** A timer source emitting every second. */
const TIMER_SOURCE = `export default {
  name: "ticker", version: "0.1.0",
  props: { timer: { type: "$.interface.timer", default: { intervalSeconds: 1 } } },
  async run() { this.$emit({ at: Date.now() }); },
};`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const endpointOf = (src: { configured_props: Record<string, unknown> }) =>
  (src.configured_props.http as { endpoint_url: string }).endpoint_url;

describe.each(testDatabases())("user administration on $name", (db) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ db, env: { HEADWATER_DAILY_INVOCATIONS_QUOTA: "500" } });
  });
  afterAll(() => s?.stop());

  it("GET /users/{id} shows a user with disabled and quota_overrides; unknown ids are 404", async () => {
    const u = await s.newUser();
    const got = await s.admin.getUser(u.user.id);
    expect(User.parse(got)).toBeTruthy();
    expect(got).toMatchObject({
      id: u.user.id,
      username: u.user.username,
      admin: false,
      disabled: false,
      daily_invocations_quota: 500,
      quota_overrides: { daily_invocations_quota: null, daily_compute_time_quota: null },
    });
    expect(got.api_key).toBeUndefined();
    await expectApiError(s.admin.getUser("u_doesnotexist"), 404, "not_found");
    await expectApiError(u.client.getUser(u.user.id), 403, "forbidden");
    await expectApiError(u.client.updateUser(u.user.id, { admin: true }), 403, "forbidden");
    await expectApiError(u.client.deleteUser(u.user.id), 403, "forbidden");
    expect((await s.admin.getUser(u.user.id)).admin).toBe(false);
  });

  it("PATCH validates its body and changes nothing on bad input", async () => {
    const u = await s.newUser();
    const bad = [
      '{"daily_invocations_quota": -1}',
      '{"daily_invocations_quota": 1.5}',
      '{"daily_compute_time_quota": "10"}',
      '{"disabled": "yes"}',
      '{"admin": true, "quota": 3}',
      "{not json",
    ];
    for (const body of bad) {
      const r = await rawRequest(`${s.baseUrl}/users/${u.user.id}`, { method: "PATCH", key: s.adminKey, body });
      expect(r.status, body).toBe(400);
      expect(r.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
    }
    expect(await s.admin.getUser(u.user.id)).toMatchObject({ admin: false, disabled: false });
    const missing = await rawRequest(`${s.baseUrl}/users/u_nobody`, { method: "PATCH", key: s.adminKey, body: "{}" });
    expect(missing.status).toBe(404);
  });

  it("a per-user invocations quota is in force at once; null goes back to the server default", async () => {
    const u = await s.newUser();
    const src = await u.client.createSource({ component_code: HTTP_SOURCE });
    expect((await fetch(endpointOf(src), { method: "POST" })).status).toBe(201);

    const patched = await s.admin.updateUser(u.user.id, { daily_invocations_quota: 0 });
    expect(patched).toMatchObject({ daily_invocations_quota: 0, quota_overrides: { daily_invocations_quota: 0 } });
    expect((await u.client.getMe()).daily_invocations_quota).toBe(0);
    const refused = await fetch(endpointOf(src), { method: "POST" });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: "quota_exceeded" });

    const back = await s.admin.updateUser(u.user.id, { daily_invocations_quota: null });
    expect(back).toMatchObject({ daily_invocations_quota: 500, quota_overrides: { daily_invocations_quota: null } });
    expect((await fetch(endpointOf(src), { method: "POST" })).status).toBe(201);
  });

  it("a disabled user's key is 403 user_disabled, endpoints 403, timers stop; enabling resumes all", async () => {
    const u = await s.newUser();
    const web = await u.client.createSource({ component_code: HTTP_SOURCE });
    const ticker = await u.client.createSource({ component_code: TIMER_SOURCE });
    await waitForEvents(u.client, ticker.id, "", 1);

    await s.admin.updateUser(u.user.id, { disabled: true });
    const disabledAt = Date.now();
    expect((await s.admin.getUser(u.user.id)).disabled).toBe(true);
    await expectApiError(u.client.getMe(), 403, "user_disabled");
    await expectApiError(u.client.listMySources(), 403, "user_disabled");
    const sse = await fetch(`${s.origin}/sources/${ticker.id}/sse`, { headers: { Authorization: `Bearer ${u.key}` } });
    expect(sse.status).toBe(403);
    const hitDisabled = await fetch(endpointOf(web), { method: "POST" });
    expect(hitDisabled.status).toBe(403);
    expect(await hitDisabled.json()).toMatchObject({ code: "user_disabled" });
    await sleep(3000);

    await s.admin.updateUser(u.user.id, { disabled: false });
    const enabledAt = Date.now();
    expect((await u.client.getMe()).id).toBe(u.user.id);
    expect((await fetch(endpointOf(web), { method: "POST" })).status).toBe(201);
    // Nothing was deleted, and no tick ran while disabled (one already running may finish).
    await sleep(2500);
    const events = (await u.client.listSourceEvents(ticker.id, { limit: 100 })).data;
    const ats = events.map((e) => (e.event as { at: number }).at);
    expect(ats.filter((at) => at > disabledAt + 1000 && at < enabledAt)).toEqual([]);
    expect(ats.some((at) => at > enabledAt)).toBe(true);
    expect(ats.some((at) => at < disabledAt)).toBe(true);
  });

  it("the last enabled admin cannot be demoted, disabled or deleted (409 last_admin)", async () => {
    const me = await s.admin.getMe();
    await expectApiError(s.admin.updateUser(me.id, { admin: false }), 409, "last_admin");
    await expectApiError(s.admin.updateUser(me.id, { disabled: true }), 409, "last_admin");
    await expectApiError(s.admin.deleteUser(me.id), 409, "last_admin");
    expect((await s.admin.getUser(me.id)).admin).toBe(true);

    // With a second admin, the first may step down; then the second is the last.
    const other = await s.admin.createUser({ username: "second-admin", admin: true });
    const second = s.client(other.api_key!);
    const down = await second.updateUser(me.id, { admin: false });
    expect(down.admin).toBe(false);
    await expectApiError(second.updateUser(other.id, { disabled: true }), 409, "last_admin");
    await second.updateUser(me.id, { admin: true });
    // Two admins demoting each other at once: exactly one succeeds.
    const race = await Promise.allSettled([
      s.admin.updateUser(other.id, { admin: false }),
      second.updateUser(me.id, { admin: false }),
    ]);
    expect(race.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const admins = (await s.admin.listUsers({ limit: 100 }).catch(() => second.listUsers({ limit: 100 }))).data.filter(
      (x) => x.admin && !x.disabled,
    );
    expect(admins).toHaveLength(1);
    const lastKey = admins[0]!.id === me.id ? s.adminKey : other.api_key!;
    await s.client(lastKey).updateUser(admins[0]!.id === me.id ? other.id : me.id, { admin: true });
  });

  it("DELETE /users/{id} removes the user and everything they own; endpoints 404 at once", async () => {
    const u = await s.newUser();
    const web = await u.client.createSource({ component_code: HTTP_SOURCE });
    const ticker = await u.client.createSource({ component_code: TIMER_SOURCE });
    const wf = await u.client.createWorkflow({
      name: "wf",
      steps: [{ name: "s1", code: "export default { async run() { return 1; } }" }],
    });
    expect((await fetch(endpointOf(web), { method: "POST" })).status).toBe(201);
    await sleep(1200);
    // Another user runs a component this user published: it outlives its author.
    const published = await u.client.createComponent({
      component_code: `export default { key: "shared-${Date.now()}", name: "shared", version: "0.1.0", props: {}, async run() {} };`,
    });
    await u.client.publishComponent(published.id);
    const other = await s.newUser();
    const borrowed = await other.client.createSource({ key: published.key! });

    await s.admin.deleteUser(u.user.id);
    const gone = await fetch(endpointOf(web), { method: "POST" });
    expect(gone.status).toBe(404);
    await expectApiError(u.client.getMe(), 401, "unauthorized");
    await expectApiError(s.admin.getUser(u.user.id), 404, "not_found");
    await expectApiError(s.admin.deleteUser(u.user.id), 404, "not_found");
    const listed = (await s.admin.listUsers({ limit: 100 })).data.map((x) => x.id);
    expect(listed).not.toContain(u.user.id);
    // Nothing of theirs is left in the database (events, timers, jobs, sources, workflows).
    const dbh = s.server.store.db;
    const count = async (table: "events" | "timers" | "jobs" | "sources" | "workflows" | "components" | "api_keys", col: string) =>
      Number(
        (
          await dbh
            .selectFrom(table)
            .select(({ fn }) => fn.countAll().as("n"))
            .where(col as never, "=", u.user.id as never)
            .executeTakeFirstOrThrow()
        ).n,
      );
    expect(await count("events", "owner_id")).toBe(0);
    expect(await count("timers", "owner_id")).toBe(0);
    expect(await count("sources", "user_id")).toBe(0);
    expect(await count("workflows", "owner_id")).toBe(0);
    expect(await count("components", "user_id")).toBe(0);
    expect(await count("api_keys", "user_id")).toBe(0);
    expect(ticker.id).toMatch(/^dc_/);
    const wfHit = await fetch(wf.endpoint_url!, { method: "POST" });
    expect(wfHit.status).toBe(404);
    // The other user's source still exists and still runs its component.
    expect((await other.client.getSource(borrowed.id)).id).toBe(borrowed.id);
    // Their timer does not run again.
    await sleep(2000);
    expect(await count("events", "owner_id")).toBe(0);
  });
});

describe("the system user", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer();
  });
  afterAll(() => s?.stop());

  it("is not among the users an admin lists, and its name cannot be taken", async () => {
    const u = await s.newUser();
    const page = await s.admin.listUsers({ limit: 100 });
    const names = page.data.map((x) => x.username);
    expect(names).toContain(u.user.username);
    expect(names).not.toContain("headwater");
    expect(page.page_info.total_count).toBe(page.data.length);
    await expectApiError(s.admin.createUser({ username: "headwater", email: "x@example.com" }), 409);
    // The built-in components it holds still resolve for everyone.
    expect((await u.client.getRegistryComponent("schedule")).key).toBe("schedule");
  });
});
