/**
 * Bearer-key authentication (spec §5). `authenticate` resolves the caller or throws 401; routes
 * made with `route()` call it for you, other routes (SSE, outside /v1) use `app.authenticate`.
 */
import { randomBytes } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ERROR_CODES } from "../../shared/resources/index.js";
import type { AuthUser, UserService } from "../users/service.js";
import { HttpError } from "./errors.js";

declare module "fastify" {
  interface FastifyInstance {
    /** Resolves the caller of a request from its bearer key; throws a 401 HttpError. */
    authenticate(request: FastifyRequest): Promise<AuthUser>;
    /** Callers this process has just authenticated, for its own in-process requests. */
    vouches: Vouches;
  }
  interface FastifyRequest {
    /** Set once `authenticate` has accepted the request's key. */
    auth: AuthUser | null;
    /** The request came from this process for a caller it admitted (a vouch, below). */
    vouched: boolean;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The header of an in-process request that a vouch stands for (see Vouches). */
export const VOUCH_HEADER = "x-headwater-vouch";

/** How long a vouch holds after the caller's last admission: a tool call's REST calls follow it at once. */
const VOUCH_TTL_MS = 2_000;

interface Vouch {
  key: string;
  user: AuthUser;
  until: number;
}

/**
 * An MCP tool call is admitted with its key (server/mcp/route.ts), then makes its REST calls
 * in-process (server/mcp/inject.ts). Those carry a vouch: a random token, which never leaves the
 * process, standing for the caller as admitted a moment ago, so that the key is not hashed and
 * looked up again for each. A vouch holds for the same key only, and for VOUCH_TTL_MS after the
 * caller's last admission; a request whose vouch is unknown, stale or for another key is
 * authenticated as any other, so a key revoked or a user disabled is refused as before.
 */
export class Vouches {
  private readonly byToken = new Map<string, Vouch>();

  /** A new token for the caller with this key. */
  issue(key: string, user: AuthUser): string {
    const token = randomBytes(24).toString("base64url");
    this.byToken.set(token, { key, user, until: Date.now() + VOUCH_TTL_MS });
    return token;
  }

  /** The caller was admitted again (as `user`, as it is now): the token holds a while longer. */
  renew(token: string, user: AuthUser): void {
    const v = this.byToken.get(token);
    if (v) Object.assign(v, { user, until: Date.now() + VOUCH_TTL_MS });
  }

  revoke(token: string): void {
    this.byToken.delete(token);
  }

  /** The user the token stands for, when it is live and was issued for `key`. */
  userFor(token: string, key: string): AuthUser | undefined {
    const v = this.byToken.get(token);
    return v && v.key === key && v.until >= Date.now() ? v.user : undefined;
  }
}

export function registerAuth(app: FastifyInstance, users: UserService): void {
  app.decorateRequest("auth", null);
  app.decorateRequest("vouched", false);
  const vouches = new Vouches();
  app.decorate("vouches", vouches);
  app.decorate("authenticate", async (request: FastifyRequest): Promise<AuthUser> => {
    if (request.auth) return request.auth;
    const header = request.headers.authorization;
    if (!header)
      throw new HttpError(401, ERROR_CODES.unauthorized, "missing Authorization: Bearer <API key> header");
    const key = BEARER.exec(header)?.[1];
    if (!key)
      throw new HttpError(401, ERROR_CODES.unauthorized, "Authorization header must be 'Bearer <API key>'");
    const vouch = request.headers[VOUCH_HEADER];
    const vouched = typeof vouch === "string" ? vouches.userFor(vouch, key) : undefined;
    if (vouched) {
      request.vouched = true;
      return (request.auth = vouched);
    }
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
