/**
 * Environment variables over the API (decisions.md "Workflow triggers, environment variables and
 * data stores"), on SQLite and PostgreSQL: set, list, replace and delete; a secret's value never
 * answered; bad names, reserved names, oversized values and the 201st variable refused with
 * `details`, changing nothing; another user's variables neither listed nor reachable; and on
 * PostgreSQL a change on one instance read by the next run on the other.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "../../shared/client/index.js";
import { ENV_LIMITS } from "../../shared/resources/index.js";
import type { Server } from "../../server/app.js";
import { step } from "../delivery/helpers.js";
import { testDatabases } from "../support/databases.js";
import { expectApiError } from "../support/fixtures.js";
import { startSecondInstance, startServer, type TestServer, type TestUser } from "../support/server.js";
import { sendJson } from "../workflows/helpers.js";

const SECRET = "sk-live-5f9a1c3e7b";

describe.each(testDatabases())("environment variables on $name", (db) => {
  let srv: TestServer;
  let alice: TestUser;
  let bob: TestUser;

  beforeAll(async () => {
    srv = await startServer({ db });
    alice = await srv.newUser();
    bob = await srv.newUser();
  }, 60_000);
  afterAll(() => srv?.stop());

  it("sets, lists, replaces and deletes; a secret's value is never answered", async () => {
    const set = await alice.client.setEnvVar("API_KEY", { value: SECRET });
    expect(set).toEqual({
      name: "API_KEY",
      secret: true,
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
    const plain = await alice.client.setEnvVar("REGION", { value: "eu-west", secret: false });
    expect(plain).toMatchObject({ name: "REGION", secret: false, value: "eu-west" });

    const listed = await alice.client.listMyEnvVars();
    expect(listed.map((v) => v.name)).toEqual(["API_KEY", "REGION"]);
    expect(listed[0]).not.toHaveProperty("value");
    expect(listed[1]).toMatchObject({ value: "eu-west" });
    // Not anywhere in the raw answer either.
    const raw = await fetch(`${srv.baseUrl}/users/me/env`, {
      headers: { authorization: `Bearer ${alice.key}` },
    });
    expect(await raw.text()).not.toContain(SECRET);

    // Replacing keeps created_at; a secret made plain answers its new value, and back.
    const made = await alice.client.setEnvVar("REGION", { value: "us-east" });
    expect(made).toEqual({
      name: "REGION",
      secret: true,
      created_at: plain.created_at,
      updated_at: expect.any(Number),
    });
    expect(await alice.client.setEnvVar("REGION", { value: "ap", secret: false })).toMatchObject({
      value: "ap",
    });

    await alice.client.deleteEnvVar("REGION");
    expect((await alice.client.listMyEnvVars()).map((v) => v.name)).toEqual(["API_KEY"]);
    await expectApiError(alice.client.deleteEnvVar("REGION"), 404, "not_found");
    await alice.client.deleteEnvVar("API_KEY");
    expect(await alice.client.listMyEnvVars()).toEqual([]);
  });

  it("refuses bad names, the reserved prefix, a value that is no string or over 64 KB, with details, changing nothing", async () => {
    await alice.client.setEnvVar("KEEP", { value: "before", secret: false });
    const refusals: Array<[string, unknown]> = [
      ["1ABC", { value: "x" }],
      ["A-B", { value: "x" }],
      ["A".repeat(65), { value: "x" }],
      ["HEADWATER_KEY", { value: "x" }],
      ["KEEP", { value: 5 }],
      ["KEEP", { value: "x".repeat(ENV_LIMITS.valueBytes + 1) }],
      // Bytes, not characters: 22,000 three-byte characters are 66,000 bytes.
      ["KEEP", { value: "€".repeat(22_000) }],
      ["KEEP", {}],
      ["KEEP", { value: "x", secret: "yes" }],
      ["KEEP", { value: "x", other: 1 }],
    ];
    for (const [name, body] of refusals) {
      const err = await expectApiError(
        alice.client.raw("PUT", `/users/me/env/${encodeURIComponent(name)}`, { body }),
        400,
        "validation_failed",
      );
      expect(err.details?.length, `${name} ${JSON.stringify(body).slice(0, 50)}`).toBeGreaterThan(0);
    }
    const reserved = await expectApiError(alice.client.setEnvVar("HEADWATER_API_KEY", { value: "x" }), 400);
    expect(reserved.details).toEqual([
      { path: "params.name", message: expect.stringContaining("HEADWATER_") },
    ]);
    await expectApiError(alice.client.deleteEnvVar("no-such"), 400, "validation_failed");
    // Exactly 64 KB is taken.
    await alice.client.setEnvVar("BIG", { value: "y".repeat(ENV_LIMITS.valueBytes) });
    expect(await alice.client.listMyEnvVars()).toEqual([
      expect.objectContaining({ name: "BIG", secret: true }),
      expect.objectContaining({ name: "KEEP", value: "before" }),
    ]);
    await alice.client.deleteEnvVar("BIG");
    await alice.client.deleteEnvVar("KEEP");
  });

  it("holds at most 200 per user, also when they come at once: the rest are refused, a replacement is not", async () => {
    const u = await srv.newUser();
    const results = await Promise.allSettled(
      Array.from({ length: ENV_LIMITS.perUser + 5 }, (_, i) =>
        u.client.setEnvVar(`V${i}`, { value: `v${i}`, secret: i % 2 === 0 }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(ENV_LIMITS.perUser);
    expect((await u.client.listMyEnvVars()).length).toBe(ENV_LIMITS.perUser);
    const taken = new Set((await u.client.listMyEnvVars()).map((v) => v.name));
    for (let i = 0; i < ENV_LIMITS.perUser + 5; i++)
      if (!taken.has(`V${i}`)) await expectApiError(u.client.deleteEnvVar(`V${i}`), 404);
    const err = await expectApiError(
      u.client.setEnvVar("ONE_MORE", { value: "x" }),
      400,
      "validation_failed",
    );
    expect(err.details).toEqual([{ path: "name", message: expect.stringContaining("200") }]);
    const one = [...taken][0]!;
    expect(await u.client.setEnvVar(one, { value: "again", secret: false })).toMatchObject({
      value: "again",
    });
    const all = await u.client.listMyEnvVars();
    expect(all).toHaveLength(ENV_LIMITS.perUser);
    expect(all.some((v) => v.name === "ONE_MORE")).toBe(false);
  });

  it("keeps each user's variables to themselves: listed, deleted and read by runs only as their own", async () => {
    await alice.client.setEnvVar("SHARED_NAME", { value: "alice-value-1", secret: false });
    expect(await bob.client.listMyEnvVars()).toEqual([]);
    await expectApiError(bob.client.deleteEnvVar("SHARED_NAME"), 404, "not_found");
    await bob.client.setEnvVar("SHARED_NAME", { value: "bob-value-22", secret: false });
    expect((await alice.client.listMyEnvVars()).find((v) => v.name === "SHARED_NAME")?.value).toBe(
      "alice-value-1",
    );

    const code = step(`return process.env.SHARED_NAME ?? null;`);
    for (const [user, want] of [
      [alice, "alice-value-1"],
      [bob, "bob-value-22"],
    ] as const) {
      const wf = await user.client.createWorkflow({ name: "who", steps: [{ name: "read", code }] });
      const run = await user.client.testWorkflow(wf.id);
      expect(run.steps[0]!.return_value).toBe(want);
    }
    await bob.client.deleteEnvVar("SHARED_NAME");
    await alice.client.deleteEnvVar("SHARED_NAME");
  });

  it("applies a change to the next run after the answer", async () => {
    const wf = await alice.client.createWorkflow({
      name: "reads",
      http_response: "workflow",
      steps: [{ name: "r", code: step(`await $.respond({ body: { v: process.env.MODE ?? null } });`) }],
    });
    const call = async () => ((await (await sendJson(wf.endpoint_url, {})).json()) as { v: string | null }).v;
    expect(await call()).toBe(null);
    for (const value of ["one", "two", "three"]) {
      await alice.client.setEnvVar("MODE", { value, secret: false });
      expect(await call()).toBe(value);
    }
    await alice.client.deleteEnvVar("MODE");
    expect(await call()).toBe(null);
  });
});

const postgres = testDatabases().find((d) => d.name === "postgres");

// Skipped without HEADWATER_TEST_DATABASE_URL: instances share a database only on PostgreSQL.
describe.skipIf(!postgres)("environment variables across two instances on one PostgreSQL database", () => {
  let first: TestServer;
  let secondInstance: Awaited<ReturnType<typeof startSecondInstance>>;
  let second: Server;
  let alice: TestUser;

  beforeAll(async () => {
    first = await startServer({ db: postgres! });
    secondInstance = await startSecondInstance(first);
    second = secondInstance.server;
    alice = await first.newUser();
  }, 60_000);
  afterAll(async () => {
    await secondInstance?.close();
    await first?.stop();
  });

  it(
    "a change answered by one instance is what the next run reads on the other",
    { timeout: 60_000 },
    async () => {
      const wf = await alice.client.createWorkflow({
        name: "shared",
        http_response: "workflow",
        steps: [{ code: step(`await $.respond({ body: { v: process.env.TOKEN ?? null } });`) }],
      });
      const onSecond = createClient({ baseUrl: `${second.url}/v1`, apiKey: alice.key });
      const callOn = async (origin: string) =>
        ((await (await sendJson(`${origin}/e/${wf.id}`, {})).json()) as { v: unknown }).v;
      // Both instances have read (and remember) the empty set.
      expect(await callOn(second.url)).toBe(null);
      expect(await callOn(first.origin)).toBe(null);
      for (const [n, changeOn, runOn] of [
        [1, alice.client, second.url],
        [2, onSecond, first.origin],
        [3, alice.client, second.url],
      ] as const) {
        await changeOn.setEnvVar("TOKEN", { value: `token-${n}-value` });
        const v = await callOn(runOn);
        expect(v, `change ${n}`).toBe(`token-${n}-value`);
      }
      await onSecond.deleteEnvVar("TOKEN");
      expect(await callOn(first.origin)).toBe(null);
    },
  );
});
