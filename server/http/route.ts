/**
 * `route()`: how every API endpoint is declared. One call gives the Fastify route, validation of
 * params / query / body with the shared zod schemas (400 with details), authentication (401/403),
 * `include` / `exclude`, the success status, and the endpoint's entry in the OpenAPI document.
 *
 *   route(app, { method: "GET", url: "/sources/:id", summary: "A source", params: IdParams,
 *                response: Data(Source) }, async ({ params, user }) => ({ data: ... }));
 */
import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { ApiRouteDoc } from "../../shared/openapi.js";
import { ERROR_CODES } from "../../shared/resources/index.js";
import type { AuthUser } from "../users/service.js";
import type { Requester } from "../users/requester.js";
import { requireAdmin } from "./auth.js";
import { HttpError, parseOr400 } from "./errors.js";
import { applyFieldSelection, takeFieldSelection } from "./fields.js";
import { JsonBytes } from "./json-bytes.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Every endpoint declared with `route()`, for the OpenAPI document. Shared by all scopes. */
    apiRoutes: ApiRouteDoc[];
  }
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Infer<T> = T extends z.core.$ZodType ? z.infer<T> : undefined;

export interface RouteDef<P, Q, B> {
  method: Method;
  /** Relative to the plugin's prefix, Fastify syntax (`/sources/:id`). */
  url: string;
  summary: string;
  tags?: string[];
  /** Who may call it: any user (default), admins only, or anyone (no key). */
  auth?: "user" | "admin" | "none";
  params?: P;
  query?: Q;
  body?: B;
  /** Schema of the success body, for the OpenAPI document. */
  response?: z.core.$ZodType;
  /** Success status (default 200). 204 sends no body. */
  status?: number;
  /** Error statuses beyond those implied by the inputs (400, 401, 403, 404, 413), for the document. */
  errors?: number[];
}

export interface RouteContext<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The caller; for `auth: "none"` routes it is a placeholder that must not be used. */
  user: AuthUser;
  /** The caller, for work charged to a user that the handler starts (an npm install). */
  requester: Requester;
  request: FastifyRequest;
  reply: FastifyReply;
}

const NO_USER: AuthUser = Object.freeze({ id: "", username: "", admin: false, apiKey: "" });

/**
 * A body field the endpoint does not know is refused (400), so that a typo such as
 * `configured_prop` is an error rather than silently ignored. Schemas that choose their own
 * policy for extra keys (`z.looseObject`, `z.strictObject`) keep it. Classic and mini zod objects
 * alike: both are core `$ZodObject`s.
 */
function refuseUnknownFields(schema: z.core.$ZodType, body: unknown): void {
  if (!(schema instanceof z.core.$ZodObject) || schema._zod.def.catchall !== undefined) return;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return;
  const known = new Set(Object.keys(schema._zod.def.shape));
  const unknown = Object.keys(body).filter((k) => !known.has(k));
  if (unknown.length === 0) return;
  const details = unknown.map((k) => ({ path: `body.${k}`, message: "not a field of this endpoint" }));
  throw new HttpError(
    400,
    ERROR_CODES.validation,
    `invalid body.${unknown[0]}: not a field of this endpoint`,
    details,
  );
}

export function registerRouteRegistry(app: FastifyInstance): void {
  app.decorate("apiRoutes", [] as ApiRouteDoc[]);
}

export function route<
  P extends z.core.$ZodType | undefined = undefined,
  Q extends z.core.$ZodType | undefined = undefined,
  B extends z.core.$ZodType | undefined = undefined,
>(
  app: FastifyInstance,
  def: RouteDef<P, Q, B>,
  handler: (ctx: RouteContext<Infer<P>, Infer<Q>, Infer<B>>) => Promise<unknown>,
): void {
  const auth = def.auth ?? "user";
  const status = def.status ?? 200;
  // include / exclude travel in the query for GET and DELETE, in the body for POST, PUT, PATCH.
  const selectionInBody = def.method === "POST" || def.method === "PUT" || def.method === "PATCH";
  const fullPath = (app.prefix + def.url).replace(/:([A-Za-z0-9_]+)/g, "{$1}");
  app.apiRoutes.push({
    method: def.method,
    path: fullPath,
    summary: def.summary,
    tags: def.tags ?? [],
    auth: auth !== "none",
    admin: auth === "admin",
    errors: def.errors,
    params: def.params,
    query: def.query,
    body: def.body,
    response: def.response,
    status,
  });

  // Per API key on /v1 (rate-limit.ts); absent on an app made without the limits (unit tests).
  const limit = app.hasDecorator("rateLimits") && fullPath.startsWith("/v1/") ? app.rateLimits.api : undefined;
  app.route({
    method: def.method,
    url: def.url,
    ...(limit ? { config: { rateLimit: limit } } : {}),
    handler: async (request, reply) => {
      const user = auth === "none" ? NO_USER : await app.authenticate(request);
      if (auth === "admin") requireAdmin(user);
      const fromQuery = takeFieldSelection(request.query ?? {});
      const fromBody = takeFieldSelection(request.body);
      const selection = selectionInBody ? fromBody.selection : fromQuery.selection;
      const params = def.params ? parseOr400(def.params, request.params, "params") : undefined;
      const query = def.query ? parseOr400(def.query, fromQuery.rest, "query") : undefined;
      if (def.body) refuseUnknownFields(def.body, fromBody.rest);
      const body = def.body ? parseOr400(def.body, fromBody.rest ?? {}, "body") : undefined;
      const requester: Requester = { userId: user.id, admin: user.admin };
      const ctx = { params: params as Infer<P>, query: query as Infer<Q>, body: body as Infer<B>, user, requester, request, reply };
      const result = await handler(ctx);
      if (reply.sent) return reply;
      if (status === 204) return reply.code(204).send();
      if (result instanceof JsonBytes) {
        if (!selection.include && !selection.exclude) {
          // Its parts as they are (a run's megabytes are not copied again): one buffer goes out
          // with the head in one write; several, one write each.
          const json = reply.code(status).type("application/json; charset=utf-8");
          if (result.parts.length === 1) return json.send(result.parts[0]);
          return json
            .header("content-length", result.length)
            .send(Readable.from(result.parts, { objectMode: false }));
        }
        return reply.code(status).send(applyFieldSelection(JSON.parse(result.toString()), selection));
      }
      return reply.code(status).send(applyFieldSelection(result, selection));
    },
  });
}

/**
 * Lists an endpoint that is not made with `route()` (an SSE stream, the HTTP trigger) in the
 * OpenAPI document. `url` is relative to the plugin's prefix, in Fastify syntax.
 */
export function documentRoute(
  app: FastifyInstance,
  doc: {
    method: Method;
    url: string;
    summary: string;
    tags?: readonly string[];
    auth?: boolean;
    params?: z.core.$ZodType;
    status?: number;
    contentType?: string;
  },
): void {
  app.apiRoutes.push({
    method: doc.method,
    path: (app.prefix + doc.url).replace(/:([A-Za-z0-9_]+)/g, "{$1}"),
    summary: doc.summary,
    tags: [...(doc.tags ?? [])],
    auth: doc.auth ?? true,
    params: doc.params,
    status: doc.status ?? 200,
    contentType: doc.contentType,
  });
}
