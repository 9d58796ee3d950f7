/**
 * The OpenAPI 3.1 document of the v1 API, generated from the same zod schemas the server
 * validates with and the client parses with. The server collects one `ApiRouteDoc` per endpoint
 * as routes are declared, and serves the result at `GET /v1/openapi.json`.
 */
import * as z from "./zod.js";
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
  params?: z.core.$ZodType | undefined;
  query?: z.core.$ZodType | undefined;
  body?: z.core.$ZodType | undefined;
  response?: z.core.$ZodType | undefined;
  status: number;
  /** Media type of the success body when it is not JSON (`text/event-stream`). */
  contentType?: string | undefined;
}

type JsonSchema = Record<string, unknown>;

/**
 * Each operation's `operationId`: the name client generators give its method. Stable: renaming
 * one breaks every generated client, so an entry is never changed once published. An endpoint
 * missing here gets one derived from its method and path (`operationIdFor`); name new endpoints
 * here, after what they do.
 */
export const OPERATION_IDS: Record<string, string> = {
  "GET /healthz": "getHealth",
  "GET /v1/openapi.json": "getOpenApiDocument",
  "GET /v1/users/me": "getCurrentUser",
  "POST /v1/users/me/api_key": "rotateApiKey",
  "POST /v1/users": "createUser",
  "GET /v1/users": "listUsers",
  "GET /v1/users/{id}": "getUser",
  "PATCH /v1/users/{id}": "updateUser",
  "DELETE /v1/users/{id}": "deleteUser",
  "GET /v1/users/me/sources": "listMySources",
  "GET /v1/users/me/subscriptions": "listMySubscriptions",
  "GET /v1/users/me/components": "listMyComponents",
  "GET /v1/users/me/workflows": "listMyWorkflows",
  "GET /v1/users/me/env": "listMyEnvVars",
  "PUT /v1/users/me/env/{name}": "setEnvVar",
  "DELETE /v1/users/me/env/{name}": "deleteEnvVar",
  "POST /v1/data_stores": "createDataStore",
  "GET /v1/users/me/data_stores": "listMyDataStores",
  "GET /v1/data_stores/{id}": "getDataStore",
  "PATCH /v1/data_stores/{id}": "renameDataStore",
  "DELETE /v1/data_stores/{id}": "deleteDataStore",
  "GET /v1/data_stores/{id}/records": "listDataStoreRecords",
  "GET /v1/data_stores/{id}/records/{key}": "getDataStoreRecord",
  "PUT /v1/data_stores/{id}/records/{key}": "putDataStoreRecord",
  "DELETE /v1/data_stores/{id}/records/{key}": "deleteDataStoreRecord",
  "POST /v1/data_stores/{id}/records/{key}/increment": "incrementDataStoreRecord",
  "POST /v1/components": "createComponent",
  "GET /v1/components/registry/{key}": "getRegistryComponent",
  "GET /v1/components/{id}": "getComponent",
  "POST /v1/components/{id}/publish": "publishComponent",
  "POST /v1/components/{id}/props/{prop}/options": "getPropOptions",
  "POST /v1/sources": "createSource",
  "GET /v1/sources/{id}": "getSource",
  "PUT /v1/sources/{id}": "updateSource",
  "DELETE /v1/sources/{id}": "deleteSource",
  "GET /v1/sources/{id}/event_summaries": "listSourceEventSummaries",
  "DELETE /v1/sources/{id}/events": "deleteSourceEvents",
  "GET /v1/workflows/{id}/event_summaries": "listWorkflowEventSummaries",
  "GET /v1/workflows/{id}/$errors/event_summaries": "listWorkflowErrorSummaries",
  "POST /v1/subscriptions": "createSubscription",
  "DELETE /v1/subscriptions": "deleteSubscription",
  "POST /v1/auto_subscriptions": "createAutoSubscription",
  "POST /v1/workflows": "createWorkflow",
  "GET /v1/workflows/{id}": "getWorkflow",
  "PUT /v1/workflows/{id}": "updateWorkflow",
  "DELETE /v1/workflows/{id}": "deleteWorkflow",
  "GET /sources/{id}/sse": "streamSourceEmits",
  "GET /sse/dc/{id}/emits": "streamSourceEmitsAlias",
  "GET /sse/dc/{id}/observations": "streamSourceObservations",
  "GET /e/{id}": "triggerEndpointGet",
  "POST /e/{id}": "triggerEndpointPost",
  "GET /metrics": "getMetrics",
  "GET /v1/workflows/{id}/runs/{run_id}/compare": "compareWorkflowRuns",
  "GET /v1/schemas/workflow-file.json": "getWorkflowFileSchema",
};

const camel = (word: string) => word.replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ""));
const capital = (word: string) => (word ? word[0]!.toUpperCase() + word.slice(1) : "");

/** The operationId of an endpoint: its entry in OPERATION_IDS, else `getSourcesByIdEventStats`-like. */
export function operationIdFor(method: string, path: string): string {
  const known = OPERATION_IDS[`${method.toUpperCase()} ${path}`];
  if (known) return known;
  const words = path
    .split("/")
    .filter((seg) => seg && seg !== "v1")
    .map((seg) => {
      const param = /^\{(.+)\}$/.exec(seg);
      return param ? `By${capital(camel(param[1]!))}` : capital(camel(seg));
    });
  return method.toLowerCase() + words.join("");
}

function schemaOf(schema: z.core.$ZodType, io: "input" | "output"): JsonSchema {
  const js = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) as JsonSchema;
  delete js.$schema;
  return js;
}

/** Query or path parameters from an object schema: one entry per property. */
function parameters(schema: z.core.$ZodType | undefined, where: "query" | "path"): JsonSchema[] {
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
      operationId: operationIdFor(r.method, r.path),
    };
    const params = [...parameters(r.params, "path"), ...parameters(r.query, "query")];
    // Every `{name}` of the path is a parameter, whether or not the route gave its schema.
    for (const m of r.path.matchAll(/\{([^}]+)\}/g)) {
      if (!params.some((p) => p.in === "path" && p.name === m[1])) {
        params.unshift({ name: m[1], in: "path", required: true, schema: { type: "string" } });
      }
    }
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
