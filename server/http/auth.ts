/**
 * Bearer-key authentication (spec §5). `authenticate` resolves the caller or throws 401; routes
 * made with `route()` call it for you, other routes (SSE, outside /v1) use `app.authenticate`.
 */
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ERROR_CODES } from "../../shared/resources/index.js";
import type { AuthUser, UserService } from "../users/service.js";
import { HttpError } from "./errors.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Resolves the caller of a request from its bearer key; throws a 401 HttpError. */
    authenticate(request: FastifyRequest): Promise<AuthUser>;
  }
  interface FastifyRequest {
    /** Set once `authenticate` has accepted the request's key. */
    auth: AuthUser | null;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export function registerAuth(app: FastifyInstance, users: UserService): void {
  app.decorateRequest("auth", null);
  app.decorate("authenticate", async (request: FastifyRequest): Promise<AuthUser> => {
    if (request.auth) return request.auth;
    const header = request.headers.authorization;
    if (!header)
      throw new HttpError(401, ERROR_CODES.unauthorized, "missing Authorization: Bearer <API key> header");
    const key = BEARER.exec(header)?.[1];
    if (!key)
      throw new HttpError(401, ERROR_CODES.unauthorized, "Authorization header must be 'Bearer <API key>'");
    const user = await users.authenticate(key);
    if (!user) throw new HttpError(401, ERROR_CODES.unauthorized, "unknown API key");
    if (user.disabled) {
      throw new HttpError(403, ERROR_CODES.userDisabled, "this user is disabled: ask an admin to enable it");
    }
    request.auth = user;
    return user;
  });
}

export function requireAdmin(user: AuthUser): void {
  if (!user.admin) throw new HttpError(403, ERROR_CODES.forbidden, "this endpoint is for admins only");
}
