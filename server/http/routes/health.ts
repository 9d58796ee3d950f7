/**
 * `GET /healthz`: outside /v1, no auth. Answers as soon as the server accepts requests, with the
 * sandbox's isolation mode (`namespaces` or `process`), which an operator should be able to see.
 */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { route } from "../route.js";

export const healthRoutes: FastifyPluginAsync<{ isolation: "namespaces" | "process" }> = async (app, options) => {
  route(
    app,
    {
      method: "GET",
      url: "/healthz",
      summary: "Liveness",
      tags: ["server"],
      auth: "none",
      response: z.object({ ok: z.literal(true), sandbox: z.object({ isolation: z.enum(["namespaces", "process"]) }) }),
    },
    async () => ({ ok: true as const, sandbox: { isolation: options.isolation } }),
  );
};
