/** `GET /v1/openapi.json`: the OpenAPI 3.1 document of every endpoint declared with `route()`. */
import type { FastifyPluginAsync } from "fastify";
import { buildOpenApiDocument } from "../../../shared/openapi.js";
import { route } from "../route.js";

export const openapiRoutes: FastifyPluginAsync<{ version: string }> = async (app, opts) => {
  route(
    app,
    { method: "GET", url: "/openapi.json", summary: "This document", tags: ["server"], auth: "none" },
    async ({ request }) =>
      // Built on request: route plugins registered later (events, workflows) are included.
      buildOpenApiDocument(app.apiRoutes, {
        version: opts.version,
        serverUrl: `${request.protocol}://${request.host}`,
      }),
  );
};
