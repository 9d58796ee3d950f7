/** `GET /healthz`: outside /v1, no auth. Answers as soon as the server accepts requests. */
import type { FastifyPluginAsync } from "fastify";
import { z } from "zod";
import { route } from "../route.js";

export const healthRoutes: FastifyPluginAsync = async (app) => {
  route(
    app,
    {
      method: "GET",
      url: "/healthz",
      summary: "Liveness",
      tags: ["server"],
      auth: "none",
      response: z.object({ ok: z.literal(true) }),
    },
    async () => ({ ok: true }),
  );
};
