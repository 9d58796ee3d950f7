/**
 * No error answer carries a server path, a command line or a stack (decisions.md, Operating a
 * server). Modules word their messages for users; this is the net under them: every answer of
 * 400 or more that is JSON goes through `findLeak` once, in an `onSend` hook of the whole app
 * (the API, SSE, endpoints). A message that leaks is logged (with what leaked, for the operator)
 * and answered with the server's directories cut out, or, for a command line or a stack, a
 * message that says only what failed. Tests register an observer to fail on any leak before it
 * is scrubbed (test/support/server.ts).
 */
import os from "node:os";
import path from "node:path";
import type { FastifyInstance } from "fastify";

export type Leak = "server_path" | "command_line" | "stack";

/** Directories whose paths must never appear in an answer. */
export function serverDirectories(dataDir: string): string[] {
  const dirs = [dataDir, process.cwd(), os.homedir(), os.tmpdir(), path.dirname(process.execPath)];
  return [...new Set(dirs.filter((d) => d && d !== "/" && path.isAbsolute(d)).map((d) => path.resolve(d)))].sort(
    (a, b) => b.length - a.length,
  );
}

const STACK_LINE = /\n\s*at\s|\bat\s+\S+\s+\((?:file:\/\/)?\/[^)]*:\d+:\d+\)|\bat\s+(?:file:\/\/)?\/\S+:\d+:\d+/;
const COMMAND_LINE = /\bCommand failed:|\bnpm (?:install|exec|ci|run)\b.*--|--prefix\b|\bnode_modules\/\.bin\//;

/** What an answer's text leaks, if anything. */
export function findLeak(text: string, dirs: readonly string[]): Leak | undefined {
  if (STACK_LINE.test(text)) return "stack";
  if (COMMAND_LINE.test(text)) return "command_line";
  for (const d of dirs) if (text.includes(d + path.sep) || text.includes(`"${d}"`) || text.endsWith(d)) return "server_path";
  if (/(?:^|[\s"'(=])\/(?:home|root|tmp|var|usr|opt|srv|work|etc|proc)\//.test(text)) return "server_path";
  return undefined;
}

type Observer = (leak: { status: number; url: string; body: string; leak: Leak }) => void;
const observers = new Set<Observer>();

/** Tests: called with every leaking error answer, before it is scrubbed. Returns an unsubscribe. */
export function observeLeaks(observer: Observer): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

export function registerLeakGuard(app: FastifyInstance, dataDir: string): void {
  const dirs = serverDirectories(dataDir);
  app.addHook("onSend", async (request, reply, payload) => {
    if (reply.statusCode < 400 || typeof payload !== "string") return payload;
    const type = String(reply.getHeader("content-type") ?? "");
    if (!type.includes("json")) return payload;
    const leak = findLeak(payload, dirs);
    if (!leak) return payload;
    const url = request.url.split("?")[0] ?? "";
    for (const o of observers) o({ status: reply.statusCode, url, body: payload, leak });
    request.log.warn({ leak, url, status: reply.statusCode, body: payload.slice(0, 2000) }, "an error answer leaked server details; scrubbed");
    let code = "internal_error";
    try {
      const parsed = JSON.parse(payload) as { code?: unknown };
      if (typeof parsed.code === "string") code = parsed.code;
    } catch {
      /* not our shape: replaced whole */
    }
    if (leak === "server_path") {
      let scrubbed = payload;
      for (const d of dirs) scrubbed = scrubbed.split(JSON.stringify(d).slice(1, -1)).join("<server>");
      if (!findLeak(scrubbed, dirs)) return scrubbed;
    }
    return JSON.stringify({ error: `the request failed (${code})`, code });
  });
}
