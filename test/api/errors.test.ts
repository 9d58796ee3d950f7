/** The error model and authentication, over HTTP (decisions.md, Errors). */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testDatabases } from "../support/databases.js";
import { rawRequest } from "../support/fixtures.js";
import { startServer, type TestServer } from "../support/server.js";

describe.each(testDatabases())("errors and auth on $name", (db) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer({ db, env: { HEADWATER_BODY_LIMIT_BYTES: "2048" } });
  });
  afterAll(() => s?.stop());

  it("answers /healthz without a key", async () => {
    const r = await rawRequest(`${s.origin}/healthz`);
    expect(r).toMatchObject({ status: 200, body: { ok: true } });
  });

  it("refuses a missing, malformed or unknown key with 401", async () => {
    for (const key of [undefined, "not-a-real-key"]) {
      const r = await rawRequest(`${s.baseUrl}/users/me`, { key });
      expect(r.status).toBe(401);
      expect(r.body).toMatchObject({ code: "unauthorized" });
    }
    const res = await fetch(`${s.baseUrl}/users/me`, { headers: { Authorization: `Basic ${s.adminKey}` } });
    expect(res.status).toBe(401);
  });

  it("answers an unknown route with 404 not_found", async () => {
    const r = await rawRequest(`${s.baseUrl}/nothing/here`, { key: s.adminKey });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ code: "not_found" });
  });

  it("answers malformed JSON with 400 invalid_json, and changes nothing", async () => {
    const before = await s.admin.listMySources();
    const r = await rawRequest(`${s.baseUrl}/sources/`, {
      method: "POST",
      key: s.adminKey,
      body: '{"component_code": ',
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: "invalid_json", error: expect.any(String) });
    expect((await s.admin.listMySources()).page_info.total_count).toBe(before.page_info.total_count);
  });

  it("takes an empty body sent as JSON as no body", async () => {
    const u = await s.newUser();
    const r = await rawRequest(`${s.baseUrl}/users/me/api_key`, { method: "POST", key: u.key, body: "" });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ data: { id: u.user.id, api_key: expect.stringMatching(/^hw_/) } });
    const c = await rawRequest(`${s.baseUrl}/components`, { method: "POST", key: s.adminKey, body: "" });
    expect(c.status).toBe(400);
    expect(c.body).toMatchObject({ code: "validation_failed" });
  });

  it("refuses a JSON body that tries prototype poisoning", async () => {
    const r = await rawRequest(`${s.baseUrl}/users`, {
      method: "POST",
      key: s.adminKey,
      body: '{"username": "proto", "__proto__": {"admin": true}}',
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: expect.any(String), error: expect.any(String) });
  });

  it("answers wrong types with 400 validation_failed and details", async () => {
    const r = await rawRequest(`${s.baseUrl}/components`, {
      method: "POST",
      key: s.adminKey,
      body: '{"component_code": 42}',
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: "validation_failed",
      details: [{ path: "body.component_code", message: expect.any(String) }],
    });
  });

  it("refuses fields an endpoint does not know (400, named in details), and changes nothing", async () => {
    const before = (await s.admin.listMySources()).page_info.total_count;
    const r = await rawRequest(`${s.baseUrl}/sources/`, {
      method: "POST",
      key: s.adminKey,
      body: JSON.stringify({ key: "anything", active: "yes", configured_prop: {} }),
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: "validation_failed",
      details: [
        { path: "body.active", message: expect.any(String) },
        { path: "body.configured_prop", message: expect.any(String) },
      ],
    });
    expect((await s.admin.listMySources()).page_info.total_count).toBe(before);
  });

  it("answers a body over the limit with 413 payload_too_large", async () => {
    const body = JSON.stringify({ component_code: "x".repeat(4096) });
    const r = await rawRequest(`${s.baseUrl}/components`, { method: "POST", key: s.adminKey, body });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ code: "payload_too_large" });
  });

  it("answers a body of an unsupported type with 415, and plain text with 400", async () => {
    const xml = await rawRequest(`${s.baseUrl}/components`, {
      method: "POST",
      key: s.adminKey,
      body: "<component/>",
      contentType: "application/xml",
    });
    expect(xml.status).toBe(415);
    expect(xml.body).toMatchObject({ code: "unsupported_media_type" });
    const text = await rawRequest(`${s.baseUrl}/components`, {
      method: "POST",
      key: s.adminKey,
      body: "component_code=x",
      contentType: "text/plain",
    });
    expect(text.status).toBe(400);
    expect(text.body).toMatchObject({ code: "validation_failed" });
  });

  it("never leaks a stack trace in an error body", async () => {
    const r = await rawRequest(`${s.baseUrl}/sources/`, { method: "POST", key: s.adminKey, body: "[1,2" });
    expect(JSON.stringify(r.body)).not.toMatch(/at .*\.(ts|js):\d+/);
  });

  it("answers an id holding a NUL or another control byte with 404 on every route that takes one", async () => {
    const doc = (await rawRequest(`${s.baseUrl}/openapi.json`)).body as { paths: Record<string, Record<string, unknown>> };
    const withIds = Object.entries(doc.paths).filter(([p]) => p.includes("{"));
    expect(withIds.length).toBeGreaterThan(20);
    const user = await s.newUser();
    const answers: string[] = [];
    for (const [p, methods] of withIds) {
      for (const method of Object.keys(methods)) {
        for (const [i, bad] of ["dc_%00x", "p_%01", "%7F"].entries()) {
          // Each path parameter in turn holds the bad byte; the others a plain id.
          const params = p.match(/\{[^}]+\}/g)!;
          const url = params.reduce((u, name, j) => u.replace(name, j === i % params.length ? bad : "p_abc"), p);
          const res = await fetch(`${s.origin}${url}`, {
            method: method.toUpperCase(),
            headers: { authorization: `Bearer ${method === "get" && i === 0 ? s.adminKey : user.key}`, "content-type": "application/json" },
            body: method === "get" || method === "delete" ? undefined : "{}",
          });
          const body = (await res.json().catch(() => ({}))) as { code?: string };
          answers.push(`${method.toUpperCase()} ${url} ${res.status} ${body.code}`);
        }
      }
    }
    expect(answers.filter((a) => !a.endsWith(" 404 not_found"))).toEqual([]);
  });

  it("refuses a NUL in the API's query strings and JSON bodies with 400; an endpoint takes it as data", async () => {
    const u = await s.newUser();
    const code = "export default defineComponent({ async run({ steps }) { return steps.trigger.event.body; } })";
    const wf = await u.client.createWorkflow({ name: "takes anything", steps: [{ name: "a", code }] });
    const auth = { authorization: `Bearer ${u.key}`, "content-type": "application/json" };
    const query = await fetch(`${s.baseUrl}/workflows/${wf.id}/event_summaries?event_name=a%00`, { headers: auth });
    expect(query.status).toBe(400);
    expect(await query.json()).toMatchObject({ code: "bad_request" });
    for (const [method, path] of [["POST", "/workflows"], ["PUT", `/workflows/${wf.id}`]] as const) {
      const body = JSON.stringify({ name: "a\u0000b", steps: [{ name: "a", code }] });
      const res = await fetch(`${s.baseUrl}${path}`, { method, headers: auth, body });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: "bad_request" });
    }
    expect((await u.client.getWorkflow(wf.id)).name).toBe("takes anything");
    // The text \u0000 (a backslash, then "u0000") is no NUL.
    expect((await u.client.updateWorkflow(wf.id, { name: "a\\u0000b" })).name).toBe("a\\u0000b");
    const hit = await fetch(`${wf.endpoint_url}?q=%00`, { method: "POST", headers: auth, body: '{"n":"a\\u0000"}' });
    expect(hit.status).toBe(200);
  });

  it("serves an OpenAPI 3.1 document listing every endpoint", async () => {
    const r = await rawRequest(`${s.baseUrl}/openapi.json`);
    expect(r.status).toBe(200);
    const doc = r.body as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe("3.1.0");
    const ops = Object.entries(doc.paths).flatMap(([p, m]) =>
      Object.keys(m).map((k) => `${k.toUpperCase()} ${p}`),
    );
    expect(ops).toEqual(
      expect.arrayContaining([
        "GET /healthz",
        "GET /v1/users/me",
        "POST /v1/users/me/api_key",
        "POST /v1/users",
        "GET /v1/users",
        "GET /v1/users/me/sources",
        "GET /v1/users/me/components",
        "POST /v1/components",
        "GET /v1/components/{id}",
        "GET /v1/components/registry/{key}",
        "POST /v1/components/{id}/publish",
        "POST /v1/sources",
        "GET /v1/sources/{id}",
        "PUT /v1/sources/{id}",
        "DELETE /v1/sources/{id}",
        "GET /sources/{id}/sse",
        "POST /e/{id}",
      ]),
    );
    // Bodies and answers carry their schemas; every operation lists its error answers.
    const post = doc.paths["/v1/sources"]!.post as {
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
      responses: Record<string, unknown>;
    };
    expect(Object.keys(post.requestBody.content["application/json"]!.schema.properties)).toEqual(
      expect.arrayContaining([
        "component_id",
        "component_code",
        "component_url",
        "key",
        "name",
        "configured_props",
      ]),
    );
    expect(Object.keys(post.responses)).toEqual(
      expect.arrayContaining(["200", "400", "401", "404", "409", "413"]),
    );
    const list = doc.paths["/v1/users/me/sources"]!.get as {
      parameters: Array<{ name: string; in: string }>;
    };
    expect(list.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(["limit", "after", "before", "include", "exclude"]),
    );
  });
});
