/**
 * The ingest path of `/e/:id`, in front of Fastify: the one case that carries an endpoint's load
 * (a JSON POST to an active source or workflow that answers at once, its target and its owner's
 * quota already known) is answered here, with exactly what the Fastify route (http.ts) answers:
 * 200 `{"success":true}` once the job is durably queued (a workflow's naming its run), the same
 * event, the same metrics.
 *
 * Why: under load the route's own work was small next to Fastify's per request (routing, the
 * app's hooks, the content-type parser, the reply's serialisation and its onSend/onResponse
 * hooks): about a third of the server's time on an endpoint's load (docs/benchmarks.md).
 *
 * Everything else goes to Fastify untouched (this returns false before reading anything): other
 * methods, sub-paths, other content types, chunked or oversized bodies, unknown, inactive,
 * disabled or custom-response targets, a missing or wrong bearer token, a quota read due or used up (the route records the
 * refusal), per-endpoint rate limits, a stopping server (app.ts checks that before calling).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { FastPath } from "../../http/app.js";
import { MAX_PATH_PARAM, MAX_URL_BYTES } from "../../http/client-errors.js";
import { httpRequestDuration, httpRequests } from "../../http/request-metrics.js";
import type { EnqueueJob } from "../queue-jobs.js";
import { RUN_ID_HEADER } from "../../../shared/resources/index.js";
import { runIdOfJob } from "../../../shared/ids.js";
import { authorized, httpEventOf, type HttpTarget } from "./http.js";

export interface FastIngestDeps {
  /** The target as remembered (no read): undefined when it is not. */
  target(id: string): HttpTarget | undefined;
  /** True when the owner's quota is known to admit one more request (no read). */
  admits(ownerId: string): true | undefined;
  /** Stores the jobs; resolves with their ids once they are durable. */
  enqueue(jobs: EnqueueJob[]): Promise<string[]>;
  bodyLimit: number;
  log(msg: string, err: unknown): void;
}

/** `/e/<id>` (a trailing slash allowed, as the router allows it), with or without a query. */
const ENDPOINT_URL = /^\/e\/([a-z]+_[A-Za-z0-9]+)\/?(?:\?|$)/;
/** The router's longest path parameter (longer: its 414). */
const MAX_ID = MAX_PATH_PARAM;
const JSON_TYPE = /^application\/json(?:; ?charset=utf-8)?$/i;
const DIGITS = /^\d{1,12}$/;

// Strings, not Buffers: Node then sends the head and the body in one write (a Buffer body goes
// out with the head through writev, which showed as the largest single item in profiles).
const OK_BODY = '{"success":true}';
/** Fastify's headers for that answer; Node adds Date, Connection and Keep-Alive. */
const OK_HEADERS = ["content-type", "application/json; charset=utf-8", "content-length", String(OK_BODY.length)];
const FAILED_BODY = JSON.stringify({ error: "internal server error", code: "internal_error" });
const FAILED_HEADERS = ["content-type", "application/json; charset=utf-8", "content-length", String(FAILED_BODY.length)];

const ROUTE = "/e/:id";
const METHODS = new Set(["POST", "PUT", "PATCH"]);

export function endpointFastPath(deps: FastIngestDeps): FastPath {
  // The answers' counters, by method and status (labelling a sample per request showed in profiles).
  const counters = new Map<string, { inc(): void }>();
  const durations = new Map<string, { observe(v: number): void }>();
  const count = (method: string, status: number, startedAt: number) => {
    const key = `${method} ${status}`;
    let c = counters.get(key);
    if (!c) counters.set(key, (c = httpRequests.labels({ method, route: ROUTE, status: String(status) })));
    c.inc();
    let d = durations.get(method);
    if (!d) durations.set(method, (d = httpRequestDuration.labels({ method, route: ROUTE })));
    d.observe((performance.now() - startedAt) / 1000);
  };

  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const method = req.method ?? "";
    const url = req.url ?? "";
    if (!METHODS.has(method) || url.length > MAX_URL_BYTES) return false;
    const m = ENDPOINT_URL.exec(url);
    const id = m?.[1];
    if (!id || id.length > MAX_ID) return false;
    const headers = req.headers;
    const length = headers["content-length"];
    const type = headers["content-type"];
    if (headers["transfer-encoding"] !== undefined || length === undefined || !DIGITS.test(length)) return false;
    const size = Number(length);
    if (size > deps.bodyLimit || type === undefined || !JSON_TYPE.test(type)) return false;
    const target = deps.target(id);
    if (!target || !target.active || target.ownerDisabled || target.customResponse) return false;
    // A missing or wrong token is answered by the route (401); a right one costs a hash here.
    if (target.bearerSha256 && !authorized(target, headers.authorization)) return false;
    if (!deps.admits(target.ownerId)) return false;

    // Taken: from here this request is answered here.
    const startedAt = performance.now();
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    // A client gone before its body ended: nothing was queued, there is no one to answer.
    req.on("error", () => undefined);
    req.on("end", () => {
      const raw = chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8");
      let job: EnqueueJob;
      try {
        job = { targetId: id, ownerId: target.ownerId, trigger: "http", event: httpEventOf(method, url, headers, raw, id, target.bearerSha256 !== undefined) };
      } catch (err) {
        return fail(err);
      }
      deps.enqueue([job]).then(([jobId]) => {
        res.writeHead(200, target.workflow && jobId ? [...OK_HEADERS, RUN_ID_HEADER, runIdOfJob(jobId)] : OK_HEADERS);
        res.end(OK_BODY);
        count(method, 200, startedAt);
      }, fail);
    });
    const fail = (err: unknown) => {
      deps.log("endpoint request failed", err);
      res.writeHead(500, FAILED_HEADERS);
      res.end(FAILED_BODY);
      count(method, 500, startedAt);
    };
    return true;
  };
}
