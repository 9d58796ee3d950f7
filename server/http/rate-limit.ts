/**
 * Rate limits (decisions.md, Operating a server), with Fastify's own plugin
 * (`@fastify/rate-limit`): per API key on `/v1` (HEADWATER_RATE_LIMIT requests per second), and
 * per source endpoint on `/e/...` (HEADWATER_ENDPOINT_RATE_LIMIT); 0 turns either off.
 *
 * The plugin's own store counts in fixed windows (up to twice the limit can pass around a
 * window's edge, then nothing until the next). The contract asks for a token bucket, so this
 * file gives the plugin a store that is one: a bucket of `max` tokens (twice the rate: the
 * burst) refilled at `max / timeWindow`. The plugin keeps doing what it does well: the hook, the
 * keys, the `RateLimit-Limit` / `RateLimit-Remaining` / `RateLimit-Reset` and `Retry-After`
 * headers, and the 429 in our error shape (`rate_limited`).
 *
 * Buckets live in this process: with several instances each one limits on its own (a key may
 * get up to N times the rate across N instances): docs/operations.md says so.
 */
import crypto from "node:crypto";
import rateLimit from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ERROR_CODES } from "../../shared/resources/index.js";
import type { Config } from "../config.js";
import { HttpError } from "./errors.js";

/** The burst is this many seconds' worth of requests. */
const BURST_SECONDS = 2;
/** Buckets kept (least recently used go first; a forgotten bucket is a full one). */
const MAX_BUCKETS = 50_000;

type StoreCallback = (err: Error | null, res: { current: number; ttl: number }) => void;

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * The plugin's store interface (`incr`, `read`, `child`) over token buckets. `current` is what
 * the plugin compares with `max`: the tokens taken from a full bucket (more than `max` when the
 * request finds it empty); `ttl` is when the next token comes (refused) or the bucket is full.
 */
export class TokenBucketStore {
  private readonly buckets = new Map<string, Bucket>();

  incr(key: string, cb: StoreCallback, timeWindow: number, max: number): void {
    const now = Date.now();
    const perMs = max / timeWindow;
    const bucket = this.refill(key, now, max, perMs);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      cb(null, { current: Math.ceil(max - bucket.tokens), ttl: Math.ceil((max - bucket.tokens) / perMs) });
    } else {
      cb(null, { current: max + 1, ttl: Math.ceil((1 - bucket.tokens) / perMs) });
    }
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_BUCKETS) this.buckets.delete(this.buckets.keys().next().value!);
  }

  read(key: string, cb: StoreCallback, timeWindow: number, max: number): void {
    const hit = this.buckets.get(key);
    const perMs = max / timeWindow;
    const tokens = hit ? Math.min(max, hit.tokens + (Date.now() - hit.at) * perMs) : max;
    cb(null, { current: Math.ceil(max - tokens), ttl: Math.ceil((max - tokens) / perMs) });
  }

  /** One set of buckets for every route: the limit is per key, whatever the endpoint. */
  child(): TokenBucketStore {
    return this;
  }

  private refill(key: string, now: number, max: number, perMs: number): Bucket {
    const hit = this.buckets.get(key);
    if (!hit) return { tokens: max, at: now };
    hit.tokens = Math.min(max, hit.tokens + (now - hit.at) * perMs);
    hit.at = now;
    return hit;
  }
}

/** Per-route settings for the plugin (`config.rateLimit` of a route), or undefined when off. */
export interface RateLimits {
  api: Record<string, unknown> | undefined;
  endpoint: Record<string, unknown> | undefined;
}

declare module "fastify" {
  interface FastifyInstance {
    /** What `route()` and the endpoint routes put in their `config.rateLimit`. */
    rateLimits: RateLimits;
  }
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The bucket of an API request: its key (hashed: keys are never kept), else its address. */
function apiKeyOf(request: FastifyRequest): string {
  const key = BEARER.exec(request.headers.authorization ?? "")?.[1];
  if (key) return `k:${crypto.createHash("sha256").update(key).digest("base64url").slice(0, 22)}`;
  return `ip:${request.ip}`;
}

function endpointOf(request: FastifyRequest): string {
  return `e:${(request.params as { id?: string }).id ?? ""}`;
}

function settings(perSecond: number, keyGenerator: (r: FastifyRequest) => string, what: string) {
  if (perSecond <= 0) return undefined;
  return {
    max: perSecond * BURST_SECONDS,
    timeWindow: BURST_SECONDS * 1000,
    keyGenerator,
    errorResponseBuilder: (_req: FastifyRequest, ctx: { after: string }) =>
      new HttpError(429, ERROR_CODES.rateLimited, `too many requests: ${what} allows ${perSecond} per second; retry in ${ctx.after}`),
  };
}

export async function registerRateLimits(app: FastifyInstance, config: Pick<Config, "rateLimit" | "endpointRateLimit">): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    store: TokenBucketStore as never,
    // RateLimit-Limit / -Remaining / -Reset (the IETF draft's names) and Retry-After.
    enableDraftSpec: true,
  });
  app.decorate("rateLimits", {
    api: settings(config.rateLimit, apiKeyOf, "an API key"),
    endpoint: settings(config.endpointRateLimit, endpointOf, "this endpoint"),
  });
}
