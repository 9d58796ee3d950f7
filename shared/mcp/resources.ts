/**
 * Resources: each source and workflow as JSON (`headwater://sources/{id}`,
 * `headwater://workflows/{id}`) and its newest 20 events (`.../events`), listed with
 * resources/list and offered as templates. The events resources are the ones a client
 * subscribes to (streams.ts sends `notifications/resources/updated` when new events arrive).
 */
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, ResourceTemplate, type McpServer, type ReadResourceResult } from "@modelcontextprotocol/server";
import { ApiError } from "../client/index.js";
import type { McpDeps } from "./deps.js";
import { completeIds, cutEvent, eventsUri, kindOfId, resourceUri, type Emitter, type EmitterKind } from "./emitters.js";
import { fitToLimit } from "./results.js";
import { shownSource } from "./tools/resources.js";

/** Events an events resource shows. */
export const RESOURCE_EVENTS = 20;
/** Sources (and workflows) resources/list names: the newest, one REST page each. */
const LISTED = 100;

const json = (uri: string, value: Record<string, unknown>): ReadResourceResult => ({
  contents: [{ uri, mimeType: "application/json", text: fitToLimit(value).text }],
});

/** A read's failure as the protocol says it: unknown (or another user's) is "not found". */
function readError(uri: string, err: unknown): Error {
  if (err instanceof ApiError && err.status === 404) return new ResourceNotFoundError(uri);
  if (err instanceof ApiError) return new ProtocolError(ProtocolErrorCode.InvalidRequest, `${err.message} (${err.code})`);
  return new ProtocolError(ProtocolErrorCode.InternalError, "the resource could not be read");
}

function emitterFrom(uri: URL, kind: EmitterKind, id: unknown): Emitter {
  if (typeof id !== "string" || kindOfId(id) !== kind) throw new ResourceNotFoundError(uri.href);
  return { kind, id };
}

/** The resource JSON of a source or workflow. */
export async function readEmitter(deps: McpDeps, e: Emitter): Promise<Record<string, unknown>> {
  return e.kind === "source" ? shownSource(await deps.client.getSource(e.id)) : await deps.client.getWorkflow(e.id);
}

/** The newest events of a source or workflow, data cut at 4 KB each. */
export async function readEvents(deps: McpDeps, e: Emitter, channel = "", limit = RESOURCE_EVENTS) {
  const q = { expand: "event" as const, event_name: channel, limit };
  const page = e.kind === "source" ? await deps.client.listSourceEvents(e.id, q) : await deps.client.listWorkflowEvents(e.id, q);
  return { id: e.id, channel: channel || "default", total_count: page.page_info.total_count, events: page.data.map((ev) => cutEvent(ev)) };
}

async function listed(deps: McpDeps, kind: EmitterKind) {
  const page =
    kind === "source" ? await deps.client.listMySources({ limit: LISTED }) : await deps.client.listMyWorkflows({ limit: LISTED });
  return page.data.map((item) => ({ e: { kind, id: item.id } as Emitter, name: item.name }));
}

export function registerResources(server: McpServer, deps: McpDeps): void {
  for (const kind of ["source", "workflow"] as const) {
    const plural = `${kind}s`;
    const complete = { id: (typed: string) => completeIds(deps.client, kind, typed) };
    server.registerResource(
      kind,
      new ResourceTemplate(`headwater://${plural}/{id}`, {
        list: async () => ({
          resources: (await listed(deps, kind)).map(({ e, name }) => ({ uri: resourceUri(e), name: `${kind} ${name}`, mimeType: "application/json" })),
        }),
        complete,
      }),
      {
        title: `A ${kind}`,
        description: `A ${kind} of the user, as JSON (what get_${kind === "source" ? "source" : "workflow"} answers).`,
        mimeType: "application/json",
      },
      async (uri, vars) => {
        const e = emitterFrom(uri, kind, vars.id);
        try {
          return json(uri.href, await readEmitter(deps, e));
        } catch (err) {
          throw readError(uri.href, err);
        }
      },
    );
    server.registerResource(
      `${kind}-events`,
      new ResourceTemplate(`headwater://${plural}/{id}/events`, {
        list: async () => ({
          resources: (await listed(deps, kind)).map(({ e, name }) => ({
            uri: eventsUri(e),
            name: `events of ${kind} ${name}`,
            mimeType: "application/json",
          })),
        }),
        complete,
      }),
      {
        title: `A ${kind}'s events`,
        description: `The newest ${RESOURCE_EVENTS} events a ${kind} emitted, newest first (data cut at 4 KB). Subscribe to be told when new ones arrive.`,
        mimeType: "application/json",
      },
      async (uri, vars) => {
        const e = emitterFrom(uri, kind, vars.id);
        try {
          return json(uri.href, await readEvents(deps, e));
        } catch (err) {
          throw readError(uri.href, err);
        }
      },
    );
  }
}
