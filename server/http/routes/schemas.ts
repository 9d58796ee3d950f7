/**
 * Published schemas of formats the server reads from people's files (decisions.md "Building
 * workflows", "Workflow files"): `GET /v1/schemas/workflow-file.json`, the JSON Schema of
 * `workflow.yaml`, made from the schema the CLI checks a folder with. Public, as the OpenAPI
 * document is: a YAML editor fetches it from a `$schema` comment, with no key to give.
 */
import type { FastifyPluginAsync } from "fastify";
import { WORKFLOW_FILE_SCHEMA_PATH, workflowFileJsonSchema } from "../../../shared/resources/index.js";
import { route } from "../route.js";

export const schemaRoutes: FastifyPluginAsync<{ publicUrl: () => string }> = async (app, o) => {
  // Made once: the schema does not change while the server runs (its `$id` is set per answer).
  const schema = workflowFileJsonSchema();
  route(
    app,
    {
      method: "GET",
      url: WORKFLOW_FILE_SCHEMA_PATH.replace(/^\/v1/, ""),
      summary: "The JSON Schema of workflow.yaml (a workflow kept as files)",
      tags: ["workflows"],
      auth: "none",
    },
    async ({ request, reply }) => {
      const origin = o.publicUrl() || `${request.protocol}://${request.host}`;
      void reply.header("cache-control", "public, max-age=3600");
      return {
        $schema: schema.$schema,
        $id: `${origin.replace(/\/+$/, "")}${WORKFLOW_FILE_SCHEMA_PATH}`,
        ...schema,
      };
    },
  );
};
