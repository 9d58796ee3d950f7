/**
 * The OpenAPI 3.1 document of the v1 API, generated from the same zod schemas the server
 * validates with and the client parses with. The server collects one `ApiRouteDoc` per endpoint
 * as routes are declared, and serves the result at `GET /v1/openapi.json`.
 */
import { z } from "zod";
import { ErrorBody } from "./resources/error.js";

export interface ApiRouteDoc {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** OpenAPI path syntax, with the `/v1` prefix: `/v1/sources/{id}`. */
  path: string;
  summary: string;
  tags: string[];
  /** Needs `Authorization: Bearer <key>`. */
  auth: boolean;
  /** Only for admins (403 otherwise). */
  admin?: boolean;
  /** Further error statuses the endpoint may answer (409, 429...). */
  errors?: number[] | undefined;
  params?: z.ZodType | undefined;
  query?: z.ZodType | undefined;
  body?: z.ZodType | undefined;
  response?: z.ZodType | undefined;
  status: number;
  /** Media type of the success body when it is not JSON (`text/event-stream`). */
  contentType?: string | undefined;
}

type JsonSchema = Record<string, unknown>;

function schemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const js = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  delete js.$schema;
  return js;
}

/** Query or path parameters from an object schema: one entry per property. */
function parameters(schema: z.ZodType | undefined, where: "query" | "path"): JsonSchema[] {
  if (!schema) return [];
  const js = schemaOf(schema, "input");
  const props = (js.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((js.required ?? []) as string[]);
  return Object.entries(props).map(([name, s]) => ({
    name,
    in: where,
    required: where === "path" || required.has(name),
    schema: s,
  }));
}

const FIELD_SELECTION: JsonSchema[] = [
  {
    name: "include",
    in: "query",
    required: false,
    schema: { type: "string" },
    description: "Comma-separated fields to keep in each resource",
  },
  {
    name: "exclude",
    in: "query",
    required: false,
    schema: { type: "string" },
    description: "Comma-separated fields to drop from each resource",
  },
];

const ERROR_STATUSES: Record<string, string> = {
  "400": "Bad request: malformed JSON, wrong types, bad cursor or limit",
  "401": "Missing or unknown API key",
  "403": "Admins only",
  "404": "Unknown id, or one that belongs to another user",
  "409": "Conflicts with what exists (a component key or username held by someone else)",
  "413": "Body too large",
  "429": "A daily quota is used up, or a rate limit is hit",
};

export function buildOpenApiDocument(
  routes: ApiRouteDoc[],
  info: { version: string; serverUrl?: string },
): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const r of routes) {
    const op: JsonSchema = {
      summary: r.summary,
      tags: r.tags,
      operationId: `${r.method.toLowerCase()} ${r.path}`,
    };
    const params = [...parameters(r.params, "path"), ...parameters(r.query, "query")];
    if (r.method === "GET" || r.method === "DELETE") params.push(...FIELD_SELECTION);
    if (params.length > 0) op.parameters = params;
    if (r.body) {
      op.requestBody = {
        required: true,
        content: { "application/json": { schema: schemaOf(r.body, "input") } },
      };
    }
    const responses: Record<string, JsonSchema> = {};
    responses[String(r.status)] = r.contentType
      ? { description: "Success", content: { [r.contentType]: {} } }
      : r.status === 204 || !r.response
        ? { description: "Success" }
        : {
            description: "Success",
            content: { "application/json": { schema: schemaOf(r.response, "output") } },
          };
    const hasBody = r.method === "POST" || r.method === "PUT" || r.method === "PATCH";
    const applies: Record<string, boolean> = {
      "400": Boolean(r.params ?? r.query ?? r.body),
      "401": r.auth,
      "403": r.admin === true,
      "404": r.path.includes("{") || Boolean(r.body),
      "413": hasBody,
    };
    for (const code of r.errors ?? []) applies[String(code)] = true;
    for (const [code, description] of Object.entries(ERROR_STATUSES)) {
      if (!applies[code]) continue;
      responses[code] = {
        description,
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      };
    }
    op.responses = responses;
    if (!r.auth) op.security = [];
    (paths[r.path] ??= {})[r.method.toLowerCase()] = op;
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Headwater API",
      version: info.version,
      description: "Event sources and workflows. Every error is {error, code, details?}.",
    },
    servers: info.serverUrl ? [{ url: info.serverUrl }] : [],
    security: [{ bearer: [] }],
    components: {
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
      schemas: { Error: schemaOf(ErrorBody, "output") },
    },
    paths,
  };
}
