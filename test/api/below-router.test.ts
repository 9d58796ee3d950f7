/**
 * Errors raised below the router (by Node's HTTP parser, before Fastify routes anything) answer
 * in the API's error shape `{error, code}` with a stable code, over raw sockets: headers too
 * large, a malformed request line, an oversized URL (within and beyond the parser's limit), and
 * a URL Fastify's router cannot decode.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../server/config.js";
import { createHttpApp } from "../../server/http/app.js";
import { MAX_PATH_PARAM } from "../../server/http/client-errors.js";
import { startServer, type TestServer } from "../support/server.js";

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** Sends `request` as is and reads the answer until the server closes the connection. */
function raw(origin: string, request: string): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () => socket.destroy(new Error("no answer within 15 s")));
    socket.on("data", (c: Buffer) => chunks.push(c));
    // The server may close while we are still writing an oversized head.
    socket.on("error", (err: NodeJS.ErrnoException) => (err.code === "ECONNRESET" || err.code === "EPIPE" ? undefined : reject(err)));
    socket.on("close", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      const [head = "", body = ""] = text.split("\r\n\r\n", 2);
      const [statusLine = "", ...lines] = head.split("\r\n");
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? NaN);
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]));
      let parsed: unknown = body;
      try {
        parsed = JSON.parse(body);
      } catch {
        // left as text: the assertion shows it
      }
      resolve({ status, headers, body: parsed });
    });
    socket.write(request);
  });
}

describe("errors below the router", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.stop());

  const expectShape = (answer: RawAnswer, status: number, code: string) => {
    expect(answer.status).toBe(status);
    expect(answer.headers["content-type"]).toMatch(/^application\/json/);
    expect(answer.body).toEqual({ error: expect.any(String), code });
    expect((answer.body as { error: string }).error.length).toBeGreaterThan(0);
  };

  it("answers headers over the parser's limit with 431 headers_too_large", async () => {
    const answer = await raw(server.origin, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(20_000)}\r\n\r\n`);
    expectShape(answer, 431, "headers_too_large");
  });

  it("answers a malformed request line with 400 malformed_request", async () => {
    expectShape(await raw(server.origin, "NOT A REQUEST LINE\r\n\r\n"), 400, "malformed_request");
    expectShape(await raw(server.origin, "GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n"), 400, "malformed_request");
  });

  it("answers a URL over 8 KiB with 414 url_too_long, whether or not it fits the parser's limit", async () => {
    const within = await raw(server.origin, `GET /v1/users/me?q=${"a".repeat(9_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectShape(within, 414, "url_too_long");
    const beyond = await raw(server.origin, `GET /healthz?q=${"a".repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expectShape(beyond, 414, "url_too_long");
  });

  it("answers a URL whose percent-encoding is broken with 400 malformed_url", async () => {
    const answer = await raw(server.origin, "GET /v1/sources/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    expectShape(answer, 400, "malformed_url");
  });

  it("answers a path segment over the router's limit with 414 url_too_long", async () => {
    const answer = await raw(server.origin, `GET /v1/sources/${"a".repeat(MAX_PATH_PARAM + 1)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
    expectShape(answer, 414, "url_too_long");
  });

  it("keeps serving after those answers", async () => {
    const res = await fetch(`${server.origin}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ ok: true });
  });
});

describe("the router's own faults", () => {
  it("answer 500 internal_error, not a client error (a failing async route constraint)", async () => {
    const app = createHttpApp(loadConfig({ HEADWATER_LOG_LEVEL: "silent" }));
    // A constraint that needs I/O (say, a tenant lookup) and whose lookup fails.
    app.addConstraintStrategy({
      name: "tenant",
      storage: () => {
        const routes = new Map<string, unknown>();
        return { get: (k: string) => routes.get(k) ?? null, set: (k: string, v: unknown) => void routes.set(k, v) };
      },
      deriveConstraint: (_req: unknown, _ctx: unknown, done: (err: Error | null, value?: string) => void) => done(new Error("lookup failed")),
    } as never);
    app.get("/t", { constraints: { tenant: "a" } }, () => ({ ok: true }));
    try {
      const res = await app.inject({ method: "GET", url: "/t" });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({ error: "internal server error", code: "internal_error" });
    } finally {
      await app.close();
    }
  });
});
