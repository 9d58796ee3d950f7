/**
 * `$.interface.http`: `ALL /e/:id` and `/e/:id/*` (outside /v1, no auth: the id is the secret
 * part of the URL). The request becomes the event `{method, path, query, headers, bodyRaw, body}`
 * and a job in the durable queue.
 * - Without customResponse: 200 `{"success":true}` once the job is durably queued.
 * - With customResponse: the first `this.http.respond` is the answer; 504 if the run ends or
 *   times out without one.
 * - Unknown id, or a source without an HTTP interface: 404 `not_found`. A workflow whose endpoint
 *   needs a bearer token, without it (or with another): 401 `unauthorized`, nothing stored or
 *   run; with it, the `authorization` header is left out of the event. An inactive target:
 *   404 `inactive` (nothing runs; re-enabling resumes). A disabled owner's: 403 `user_disabled`.
 *   Over quota: 429 `quota_exceeded`
 *   (recorded on the target's `$errors`).
 * Targets are resolved per id prefix, so workflows (`p_`) share this endpoint.
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { documentRoute } from "../../http/route.js";
import type { EnqueueJob } from "../queue-jobs.js";
import type { HttpResponse } from "../invoke.js";
import { RUN_ID_HEADER } from "../../../shared/resources/index.js";
import { runIdOfJob } from "../../../shared/ids.js";

export function endpointUrlFor(publicUrl: string, targetId: string): string {
  return `${publicUrl.replace(/\/+$/, "")}/e/${targetId}`;
}

export interface HttpTarget {
  ownerId: string;
  active: boolean;
  /** Whether the request waits for `respond` (the http prop's customResponse). */
  customResponse: boolean;
  /** The owner is disabled by an admin: 403 `user_disabled`, nothing runs. */
  ownerDisabled?: boolean;
  /**
   * A workflow's endpoint: every answer names its run (`x-headwater-run-id`), and one that waits
   * for the run (`customResponse`) waits this long before a 504 `workflow_response_timeout`.
   */
  workflow?: { responseTimeoutMs: number };
  /** The SHA-256 digest of the bearer token its requests must carry (a workflow's `http_auth`). */
  bearerSha256?: Buffer;
}

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Whether a request may reach the target: any, without a token; else only with `Authorization:
 * Bearer <token>` whose digest equals the target's (compared in constant time: digests have one
 * length whatever the token's).
 */
export function authorized(target: HttpTarget, header: string | string[] | undefined): boolean {
  const want = target.bearerSha256;
  if (!want) return true;
  const m = typeof header === "string" ? BEARER.exec(header) : null;
  if (!m) return false;
  return timingSafeEqual(createHash("sha256").update(m[1]!, "utf8").digest(), want);
}

export const UNAUTHORIZED = {
  error: "this endpoint needs Authorization: Bearer <token> with the workflow's token",
  code: "unauthorized",
} as const;

/** Finds an id's target; undefined when it does not exist or has no HTTP interface. */
export type HttpTargetResolver = (id: string) => Promise<HttpTarget | undefined>;

export interface HttpTriggerDeps {
  resolvers: Map<string, HttpTargetResolver>;
  /** Stores the jobs; resolves with their ids once they are durable. */
  enqueue: (jobs: EnqueueJob[]) => Promise<string[]>;
  responders: Responders;
  /**
   * Over quota: a message to answer 429 with (and the refusal is recorded, with the request's
   * whole event), else undefined. `event` is the job's form (httpEventOf: no parsed `body`).
   */
  overQuota: (targetId: string, ownerId: string, event: unknown) => Promise<string | undefined>;
  /** How long a custom-response request waits at most. */
  responseTimeoutMs: number;
  bodyLimit: number;
}

/**
 * Waiting HTTP requests by respond key; the job handler answers them. With several instances
 * the job may run on another instance than the one holding the request: answers for keys not
 * waiting here go through `relay` (server/cluster/response-relay.ts), which calls `deliver` there.
 */
export class Responders {
  private readonly waiting = new Map<string, (r: HttpResponse | undefined) => void>();
  /** Keys answered through the relay, so the end of the run does not also relay "no response". */
  private readonly relayed = new Set<string>();

  constructor(private readonly relay?: { send(key: string, response: HttpResponse | undefined): void }) {}

  wait(key: string, timeoutMs: number): Promise<HttpResponse | undefined> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.settle(key, undefined), timeoutMs);
      timer.unref();
      this.waiting.set(key, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
    });
  }

  /** The first response for a key wins; later ones are ignored. */
  respond(key: string | undefined, response: HttpResponse): void {
    if (!key) return;
    if (this.waiting.has(key) || !this.relay) return this.settle(key, response);
    if (this.relayed.has(key)) return;
    this.relayed.add(key);
    this.relay.send(key, response);
  }

  /** The run ended: a request still waiting gets no response (504). */
  finish(key: string | undefined): void {
    if (!key) return;
    if (this.waiting.has(key) || !this.relay) return this.settle(key, undefined);
    if (!this.relayed.delete(key)) this.relay.send(key, undefined);
  }

  /** An answer relayed from the instance that ran the job. */
  deliver(key: string, response: HttpResponse | undefined): void {
    this.settle(key, response);
  }

  private settle(key: string, r: HttpResponse | undefined): void {
    const resolve = this.waiting.get(key);
    if (!resolve) return;
    this.waiting.delete(key);
    resolve(r);
  }
}

/** An endpoint's URL without a sub-path or query: its event's path is "/" and its query empty. */
const PLAIN_ENDPOINT_URL = /^\/e\/[a-z]+_[A-Za-z0-9]+\/?$/;

/**
 * The event of a request to `/e/:id[/*]` as its job keeps it: the documented shape
 * (server/runtime/README.md) but for `body`, which the run gets parsed from `bodyRaw`
 * (http-body.ts).
 */
export function httpEventOf(
  method: string,
  reqUrl: string,
  reqHeaders: IncomingHttpHeaders,
  raw: string,
  id: string,
  /** Leaves the `authorization` header out (an endpoint with a bearer token: the token is kept nowhere). */
  dropAuthorization = false,
) {
  let path = "/";
  const query: Record<string, string | string[]> = {};
  // Parsing a URL is a good part of an ingest request's own work: skipped where it changes nothing.
  if (!PLAIN_ENDPOINT_URL.test(reqUrl)) {
    const url = new URL(reqUrl, "http://x");
    const rest = url.pathname.slice(`/e/${id}`.length);
    path = rest === "" ? "/" : rest;
    for (const [k, v] of url.searchParams) {
      const prev = query[k];
      query[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
  }
  const headers: Record<string, string> = {};
  for (const k in reqHeaders) {
    if (dropAuthorization && k === "authorization") continue;
    const v = reqHeaders[k];
    if (v !== undefined) headers[k.toLowerCase()] = Array.isArray(v) ? v.join(", ") : v;
  }
  return {
    method,
    path,
    query,
    headers,
    bodyRaw: raw,
  };
}

function httpEvent(req: FastifyRequest, id: string, dropAuthorization: boolean) {
  const raw = Buffer.isBuffer(req.body) ? req.body.toString("utf8") : "";
  return httpEventOf(req.method, req.url, req.headers, raw, id, dropAuthorization);
}

const HOP_BY_HOP = new Set(["content-length", "transfer-encoding", "connection", "keep-alive"]);

function sendCustom(reply: FastifyReply, r: HttpResponse) {
  reply.code(r.status);
  for (const [k, v] of Object.entries(r.headers ?? {})) {
    if (HOP_BY_HOP.has(k.toLowerCase()) || v === undefined || v === null) continue;
    reply.header(k, Array.isArray(v) ? v.map(String) : String(v));
  }
  const body = r.body;
  if (typeof body === "string") {
    if (!reply.hasHeader("content-type")) reply.type("text/plain; charset=utf-8");
    return reply.send(body);
  }
  if (body === null || body === undefined) return reply.send("");
  if (!reply.hasHeader("content-type")) reply.type("application/json; charset=utf-8");
  return reply.send(JSON.stringify(body));
}

export function httpTriggerRoutes(deps: HttpTriggerDeps) {
  return async function routes(app: FastifyInstance): Promise<void> {
    // Every content type arrives as raw bytes: the event keeps bodyRaw and parses it itself.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("*", { parseAs: "buffer", bodyLimit: deps.bodyLimit }, (_req, body, done) =>
      done(null, body),
    );

    const handler = async (req: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
      const id = req.params.id;
      const resolver = [...deps.resolvers].find(([prefix]) => id.startsWith(prefix))?.[1];
      const target = resolver && /^[a-z]+_[A-Za-z0-9]+$/.test(id) ? await resolver(id) : undefined;
      if (!target) return reply.code(404).send({ error: `no HTTP endpoint ${id}`, code: "not_found" });
      if (!authorized(target, req.headers.authorization))
        return reply.code(401).header("www-authenticate", "Bearer").send(UNAUTHORIZED);
      if (target.ownerDisabled) {
        return reply
          .code(403)
          .send({
            error: `the owner of ${id} is disabled: its endpoint accepts no requests`,
            code: "user_disabled",
          });
      }
      if (!target.active)
        return reply
          .code(404)
          .send({ error: `${id} is inactive: its endpoint accepts no requests`, code: "inactive" });
      const event = httpEvent(req, id, target.bearerSha256 !== undefined);
      const refused = await deps.overQuota(id, target.ownerId, event);
      if (refused) return reply.code(429).send({ error: refused, code: "quota_exceeded" });
      const job: EnqueueJob = { targetId: id, ownerId: target.ownerId, trigger: "http", event };
      const workflow = target.workflow;
      if (!target.customResponse) {
        const [jobId] = await deps.enqueue([job]);
        if (workflow && jobId) reply.header(RUN_ID_HEADER, runIdOfJob(jobId));
        return reply.code(200).send({ success: true });
      }
      job.respondTo = randomUUID();
      const answer = deps.responders.wait(
        job.respondTo,
        workflow?.responseTimeoutMs ?? deps.responseTimeoutMs,
      );
      let runId: string | undefined;
      try {
        const [jobId] = await deps.enqueue([job]);
        runId = workflow && jobId ? runIdOfJob(jobId) : undefined;
      } catch (err) {
        deps.responders.finish(job.respondTo);
        throw err;
      }
      const response = await answer;
      if (runId) reply.header(RUN_ID_HEADER, runId);
      if (!response) {
        if (workflow) {
          return reply
            .code(504)
            .send({
              error: "the workflow did not respond in time",
              code: "workflow_response_timeout",
              run_id: runId,
            });
        }
        return reply.code(504).send({ error: "the source ended without responding", code: "no_response" });
      }
      return sendCustom(reply, response);
    };
    // Per endpoint when HEADWATER_ENDPOINT_RATE_LIMIT is set (server/http/rate-limit.ts).
    const limit = app.hasDecorator("rateLimits") ? app.rateLimits.endpoint : undefined;
    const options = limit ? { config: { rateLimit: limit } } : {};
    app.all("/e/:id", options, handler);
    app.all("/e/:id/*", options, handler);
    for (const method of ["GET", "POST"] as const) {
      documentRoute(app, {
        method,
        url: "/e/:id",
        summary: "HTTP trigger of a source or workflow (any method, any sub-path)",
        tags: ["triggers"],
        auth: false,
      });
    }
  };
}
