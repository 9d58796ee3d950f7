/**
 * The web host's HTTP server, on loopback only:
 *
 *   POST /__headwater/call/<method>   a bridge call: `{args: [...]}` → the host's `{ok, ...}` result
 *   GET  /__headwater/events          this page's push messages (SSE, resumable with Last-Event-ID)
 *   GET  /__headwater/bridge.js       the browser bridge (defines window.headwater)
 *   GET  /...                         the renderer build, index.html with the bridge script injected
 *
 * Calls and events need `Authorization: Bearer <per-launch token>`. The Host header must name
 * this loopback server (no DNS rebinding), and a cross-origin browser request is refused.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import type http from "node:http";
import { nodeHttp } from "../../shared/node-http.js";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { PUSH_CHANNELS } from "../../shared/bridge.js";
import type { Host } from "../core/host.js";
import { SESSION_HEADER, WEB_API_PREFIX } from "./client/index.js";
import { Session } from "./sessions.js";

export interface WebServerOptions {
  host: Host;
  /** 0 picks a free port. */
  port: number;
  token: string;
  /** The renderer build (dist/renderer). */
  rendererDir: string;
  /** The browser bridge bundle. */
  bridgeScript: () => Promise<string>;
  /** Body limit of a call (component code is up to 512 KB). */
  maxBodyBytes?: number;
  sessionIdleMs?: number;
  log?: (message: string) => void;
}

export interface WebServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  port: number;
  /** The dashboard URL with its token. */
  url: string;
  close(): Promise<void>;
}

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const MIME: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

export async function startWebServer(opts: WebServerOptions): Promise<WebServer> {
  const log = opts.log ?? (() => undefined);
  const maxBody = opts.maxBodyBytes ?? 2 * 1024 * 1024;
  const tokenBuf = Buffer.from(opts.token);
  const sessions = new Map<string, Session>();
  const watchOwner = new Map<string, Session>();
  let port = opts.port;

  const dropSession = (s: Session) => {
    for (const w of s.watchIds) {
      watchOwner.delete(w);
      void opts.host.call("unwatch", [w]);
    }
    s.close();
    sessions.delete(s.id);
  };
  const sessionOf = (req: http.IncomingMessage): Session | undefined => {
    const id = req.headers[SESSION_HEADER.toLowerCase()];
    if (typeof id !== "string" || !/^[A-Za-z0-9-]{8,64}$/.test(id)) return undefined;
    let s = sessions.get(id);
    if (!s) {
      if (sessions.size >= 100) {
        const oldest = sessions.values().next().value;
        if (oldest) dropSession(oldest);
      }
      s = new Session(id, 500, opts.sessionIdleMs ?? 30_000, dropSession);
      sessions.set(id, s);
    }
    return s;
  };

  const unsubscribe = opts.host.subscribe({
    streamBatch: (b) => watchOwner.get(b.watchId)?.push(PUSH_CHANNELS.streamBatch, b),
    runBatch: (b) => watchOwner.get(b.watchId)?.push(PUSH_CHANNELS.runBatch, b),
    streamState: (u) => {
      const owner = watchOwner.get(u.watchId);
      owner?.push(PUSH_CHANNELS.streamState, u);
      if (owner && (u.state === "closed" || u.state === "unauthorized")) {
        owner.watchIds.delete(u.watchId);
        watchOwner.delete(u.watchId);
      }
    },
    profilesChanged: (p) => {
      for (const s of sessions.values()) s.push(PUSH_CHANNELS.profilesChanged, p);
    },
  });

  const authorized = (req: http.IncomingMessage) => {
    const m = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    if (!m) return false;
    const given = Buffer.from(m[1]!);
    return given.length === tokenBuf.length && crypto.timingSafeEqual(given, tokenBuf);
  };

  const server = nodeHttp.createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`web host: ${req.method} ${req.url} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      if (!res.headersSent) sendJson(res, 500, { error: "internal error", code: "internal_error" });
      else res.destroy();
    });
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    res.setHeader("X-Frame-Options", "DENY");
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");

    const allowedHosts = [`127.0.0.1:${port}`, `localhost:${port}`];
    if (!allowedHosts.includes(req.headers.host ?? "")) {
      return sendJson(res, 421, { error: "wrong host", code: "misdirected_request" });
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts.some((h) => origin === `http://${h}`)) {
      return sendJson(res, 403, { error: "cross-origin requests are refused", code: "forbidden" });
    }

    const url = new URL(req.url ?? "/", `http://${req.headers.host}`);
    if (url.pathname.startsWith(`${WEB_API_PREFIX}/call/`)) {
      if (req.method !== "POST") return sendJson(res, 405, { error: "use POST", code: "method_not_allowed" });
      if (!authorized(req)) return sendJson(res, 401, { error: "missing or wrong token", code: "unauthorized" });
      if (!/^application\/json\b/.test(req.headers["content-type"] ?? "")) {
        return sendJson(res, 415, { error: "send application/json", code: "unsupported_media_type" });
      }
      const method = url.pathname.slice(`${WEB_API_PREFIX}/call/`.length);
      const raw = await readBody(req, maxBody);
      if (raw === undefined) return sendJson(res, 413, { error: "request too large", code: "payload_too_large" });
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        return sendJson(res, 400, { error: "malformed JSON", code: "invalid_json" });
      }
      const args = typeof body === "object" && body !== null ? (body as { args?: unknown }).args : undefined;
      const session = sessionOf(req);
      // A feed belongs to the page that opened it: its batches go to that page's event stream only.
      const opensFeed = method === "watch" || method === "watchRuns";
      if (opensFeed && !session) {
        return sendJson(res, 400, { error: `the ${SESSION_HEADER} header is required to watch`, code: "bad_request" });
      }
      const result = await opts.host.call(method, args ?? []);
      if (opensFeed && result.ok && session) {
        const watchId = result.value as string;
        session.watchIds.add(watchId);
        watchOwner.set(watchId, session);
      }
      return sendJson(res, 200, result);
    }

    if (url.pathname === `${WEB_API_PREFIX}/events`) {
      if (!authorized(req)) return sendJson(res, 401, { error: "missing or wrong token", code: "unauthorized" });
      const session = sessionOf(req);
      if (!session) return sendJson(res, 400, { error: `the ${SESSION_HEADER} header is required`, code: "bad_request" });
      res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-store", Connection: "keep-alive" });
      res.write(":ok\n\n");
      const last = Number(req.headers["last-event-id"] ?? 0);
      session.attach(res, Number.isFinite(last) ? last : 0);
      const ping = setInterval(() => res.write(":ping\n\n"), 15_000);
      res.on("close", () => clearInterval(ping));
      return;
    }

    if (req.method !== "GET" && req.method !== "HEAD") {
      return sendJson(res, 405, { error: "method not allowed", code: "method_not_allowed" });
    }
    if (url.pathname === `${WEB_API_PREFIX}/bridge.js`) {
      return send(res, 200, MIME[".js"]!, await opts.bridgeScript(), "no-cache");
    }
    return serveRenderer(url.pathname, res);
  }

  function serveRenderer(pathname: string, res: http.ServerResponse) {
    const root = path.resolve(opts.rendererDir);
    let rel: string;
    try {
      rel = decodeURIComponent(pathname);
    } catch {
      return sendJson(res, 400, { error: "bad path", code: "bad_request" });
    }
    const file = path.resolve(root, `.${rel}`);
    if (file !== root && !file.startsWith(root + path.sep)) return sendJson(res, 404, { error: "not found", code: "not_found" });
    const isFile = fs.existsSync(file) && fs.statSync(file).isFile();
    if (isFile && path.basename(file) !== "index.html") {
      const type = MIME[path.extname(file)] ?? "application/octet-stream";
      const immutable = rel.startsWith("/assets/");
      return send(res, 200, type, fs.readFileSync(file), immutable ? "public, max-age=31536000, immutable" : "no-cache");
    }
    if (!isFile && path.extname(rel) !== "") return sendJson(res, 404, { error: "not found", code: "not_found" });
    // The app shell (also for client-side routes).
    const index = path.join(root, "index.html");
    if (!fs.existsSync(index)) {
      return send(res, 503, MIME[".txt"]!, "The dashboard is not built yet: run `npm start` (it builds it) or `npx vite build`.", "no-store");
    }
    const html = fs
      .readFileSync(index, "utf8")
      .replace(/<head>/i, `<head>\n    <script src="${WEB_API_PREFIX}/bridge.js"></script>`);
    res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    return send(res, 200, MIME[".html"]!, html, "no-store");
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, "127.0.0.1", () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    port,
    url: `${origin}/?token=${encodeURIComponent(opts.token)}`,
    async close() {
      unsubscribe();
      for (const s of [...sessions.values()]) dropSession(s);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, cache: string) {
  res.writeHead(status, { "Content-Type": type, "Cache-Control": cache });
  res.end(body);
}

function sendJson(res: http.ServerResponse, status: number, body: unknown) {
  send(res, status, "application/json; charset=utf-8", JSON.stringify(body), "no-store");
}

/** The body as text, or undefined when it exceeds `max` bytes. */
async function readBody(req: http.IncomingMessage, max: number): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  if (Number(req.headers["content-length"] ?? 0) > max) {
    req.resume();
    return undefined;
  }
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    // Keep draining (discarding) so the client can read our 413 instead of a reset.
    if (size <= max) chunks.push(chunk as Buffer);
  }
  return size > max ? undefined : Buffer.concat(chunks).toString("utf8");
}
