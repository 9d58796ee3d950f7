/**
 * HTTP request counts and durations (`/metrics`), labelled by method, route pattern
 * (`/v1/sources/:id`, never the URL: ids would make a series per resource) and status.
 * Requests no route matched count under `unmatched`. An MCP tool's in-process `/v1` requests
 * (vouched, auth.ts) are not HTTP requests this server received: its `POST /mcp` is counted.
 */
import type { FastifyInstance } from "fastify";
import { Counter, Histogram } from "prom-client";

export const httpRequests = new Counter({
  name: "headwater_http_requests_total",
  help: "HTTP requests answered, by method, route pattern and status",
  labelNames: ["method", "route", "status"] as const,
  registers: [],
});

export const httpRequestDuration = new Histogram({
  name: "headwater_http_request_duration_seconds",
  help: "Time from a request's arrival to its answer, by method and route pattern",
  labelNames: ["method", "route"] as const,
  buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
  registers: [],
});

export function registerRequestMetrics(app: FastifyInstance): void {
  app.addHook("onResponse", async (request, reply) => {
    if (request.vouched) return;
    const route = request.routeOptions.url ?? "unmatched";
    const method = request.method;
    httpRequests.inc({ method, route, status: String(reply.statusCode) });
    httpRequestDuration.observe({ method, route }, reply.elapsedTime / 1000);
  });
}
