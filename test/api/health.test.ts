import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { startServer, type TestServer } from "../support/server.js";

describe.each(testDatabases())("server basics on $name", (db) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ db });
  });
  afterAll(() => s?.stop());

  it("answers /healthz without a key", async () => {
    const res = await fetch(`${s.origin}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, sandbox: { isolation: expect.stringMatching(/^(namespaces|process)$/) } });
  });

  it("answers an unknown route with a 404 error body", async () => {
    const res = await fetch(`${s.baseUrl}/nothing/here`, {
      headers: { Authorization: `Bearer ${s.adminKey}` },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ code: "not_found" });
  });
});
