/**
 * `GET /metrics` (outside /v1): Prometheus text format. For an admin's key, or for
 * HEADWATER_METRICS_TOKEN as a bearer token (a scraper needs no user); 401 otherwise.
 */
import crypto from "node:crypto";
import type { FastifyPluginAsync } from "fastify";
import type { Registry } from "prom-client";
import { ERROR_CODES } from "../../../shared/resources/index.js";
import { HttpError } from "../errors.js";
import { documentRoute } from "../route.js";

const BEARER = /^Bearer\s+(\S+)\s*$/i;

function sameToken(given: string, expected: string): boolean {
  const a = crypto.createHash("sha256").update(given).digest();
  const b = crypto.createHash("sha256").update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}

export const metricsRoutes: FastifyPluginAsync<{ registry: Registry; token: string | undefined }> = async (
  app,
  { registry, token },
) => {
  app.get("/metrics", async (request, reply) => {
    const given = BEARER.exec(request.headers.authorization ?? "")?.[1];
    const byToken = given !== undefined && token !== undefined && sameToken(given, token);
    if (!byToken) {
      const refuse = () => new HttpError(401, ERROR_CODES.unauthorized, "metrics need an admin's API key or the metrics token");
      const user = await app.authenticate(request).catch(() => {
        throw refuse();
      });
      if (!user.admin) throw refuse();
    }
    const text = await registry.metrics();
    return reply.type(registry.contentType).send(text);
  });
  documentRoute(app, {
    method: "GET",
    url: "/metrics",
    summary: "Prometheus metrics (an admin's key, or HEADWATER_METRICS_TOKEN)",
    tags: ["server"],
    contentType: "text/plain",
  });
};
