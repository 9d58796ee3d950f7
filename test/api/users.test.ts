/** Users and keys over HTTP (spec §4 Users, decisions.md Users and keys). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { User } from "../../shared/resources/index.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError, rawRequest } from "../support/fixtures.js";
import { startServer, type TestServer } from "../support/server.js";

describe.each(testDatabases())("users on $name", (db) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ db, env: { HEADWATER_DAILY_INVOCATIONS_QUOTA: "500" } });
  });
  afterAll(() => s?.stop());

  it("GET /users/me returns the bootstrap admin with the presented key and quota fields", async () => {
    const me = await s.admin.getMe();
    expect(User.parse(me)).toBeTruthy();
    expect(me).toMatchObject({
      id: expect.stringMatching(/^u_[A-Za-z0-9]+$/),
      username: "admin",
      admin: true,
      api_key: s.adminKey,
      daily_invocations_quota: 500,
      daily_invocations_used: 0,
      daily_compute_time_quota: expect.any(Number),
      daily_compute_time_used: 0,
    });
  });

  it("admin POST /users makes a user whose key works, once per username", async () => {
    const u = await s.newUser("alice");
    expect(u.user).toMatchObject({ username: "alice", email: "alice@example.test", admin: false });
    expect(u.key).toMatch(/^hw_/);
    const me = await u.client.getMe();
    expect(me).toMatchObject({ id: u.user.id, username: "alice", api_key: u.key });
    await expectApiError(s.admin.createUser({ username: "alice" }), 409, "conflict");
  });

  it("concurrent POST /users with one username: one 200, the others 409 (no 5xx)", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () => s.admin.createUser({ username: "racer" })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results)
      if (r.status === "rejected") expect((r.reason as { status: number }).status).toBe(409);
  });

  it("POST /users validates its body", async () => {
    await expectApiError(s.admin.createUser({ username: "" }), 400, "validation_failed");
    await expectApiError(s.admin.createUser({ username: "has space" }), 400, "validation_failed");
    await expectApiError(
      s.admin.createUser({ username: "bob", email: "not-an-email" }),
      400,
      "validation_failed",
    );
    const r = await rawRequest(`${s.baseUrl}/users`, {
      method: "POST",
      key: s.adminKey,
      body: '{"username": ["x"]}',
    });
    expect(r.status).toBe(400);
  });

  it("non-admins get 403 from the admin endpoints", async () => {
    const u = await s.newUser();
    await expectApiError(u.client.createUser({ username: "mallory" }), 403, "forbidden");
    await expectApiError(u.client.listUsers(), 403, "forbidden");
  });

  it("POST /users/me/api_key rotates: the new key works, the old one is refused", async () => {
    const u = await s.newUser();
    const rotated = await u.client.rotateApiKey();
    expect(rotated.api_key).toBeDefined();
    expect(rotated.api_key).not.toBe(u.key);
    expect(rotated.id).toBe(u.user.id);
    await expectApiError(u.client.getMe(), 401, "unauthorized");
    const fresh = s.client(rotated.api_key!);
    expect((await fresh.getMe()).id).toBe(u.user.id);
  });

  it("GET /users lists users newest first, paginated, without their keys", async () => {
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await s.newUser());
    const page = await s.admin.listUsers({ limit: 2 });
    expect(page.data.map((u) => u.id)).toEqual([made[2]!.user.id, made[1]!.user.id]);
    expect(page.page_info.count).toBe(2);
    expect(page.data.every((u) => u.api_key === undefined)).toBe(true);
    const next = await s.admin.listUsers({ limit: 2, after: page.page_info.end_cursor! });
    expect(next.data[0]!.id).toBe(made[0]!.user.id);
    const back = await s.admin.listUsers({ limit: 2, before: next.page_info.start_cursor! });
    expect(back.data.map((u) => u.id)).toEqual(page.data.map((u) => u.id));
  });

  it("applies include and exclude to GET /users/me", async () => {
    const inc = await rawRequest(`${s.baseUrl}/users/me?include=id,username,nonsense`, { key: s.adminKey });
    expect(inc.body).toEqual({ data: { id: expect.any(String), username: "admin" } });
    const exc = await rawRequest(`${s.baseUrl}/users/me?exclude=api_key,email`, { key: s.adminKey });
    const data = (exc.body as { data: Record<string, unknown> }).data;
    expect(data.username).toBe("admin");
    expect(data).not.toHaveProperty("api_key");
    expect(data).not.toHaveProperty("email");
  });

  it("applies include in the body of a POST", async () => {
    const r = await rawRequest(`${s.baseUrl}/users`, {
      method: "POST",
      key: s.adminKey,
      body: JSON.stringify({ username: "carol", include: "username,api_key" }),
    });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ data: { username: "carol", api_key: expect.stringMatching(/^hw_/) } });
  });

  it("keeps users, keys and the bootstrap admin across a restart (idempotent bootstrap)", async () => {
    const u = await s.newUser();
    const total = (await s.admin.listUsers()).page_info.total_count;
    await s.restart();
    expect((await u.client.getMe()).id).toBe(u.user.id);
    expect((await s.admin.getMe()).username).toBe("admin");
    expect((await s.admin.listUsers()).page_info.total_count).toBe(total);
  });
});
