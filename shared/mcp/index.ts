/**
 * Headwater as an MCP server: one set of tools, resources and prompts, written once over the
 * typed client, served by the API server at `/mcp` (server/mcp/) and by `headwater mcp` over
 * stdio (cli/commands/mcp.ts). Both hand `createHeadwaterMcp` a client that acts as the key's
 * user, so a tool can do exactly what that user's REST calls can, and nothing more.
 *
 *   tools/resources.ts  whoami, components, sources
 *   tools/workflows.ts  workflows: list, create, update (with their execution controls)
 *   tools/events.ts     list, get, wait for, replay, delete events; stats
 *   tools/wiring.ts     subscriptions, send_test_event
 *   tools/runs.ts       workflow runs: list, get, re-run, cancel
 *   tools/versions.ts   a workflow's draft (read, change, deploy) and versions (list, read, restore)
 *   tools/compare.ts    two runs compared, step by step
 *   tools/env.ts        environment variables: list, set, delete (a secret's value never answered)
 *   tools/triggers.ts   Run now (run_workflow), a workflow's next schedule ticks
 *   tools/data-stores.ts data stores: list, create; records: get, set, delete, list, increment
 *   resources.ts        headwater://{sources,workflows}/{id}[/events]
 *   prompts.ts          debug_source
 *   streams.ts          the SSE streams behind wait_for_events and resource subscriptions
 */
import { McpServer, ProtocolError, ProtocolErrorCode, ResourceNotFoundError } from "@modelcontextprotocol/server";
import type { LegacySubscriptions, McpDeps } from "./deps.js";
import { emitterOfEventsUri } from "./emitters.js";
import { registerPrompts } from "./prompts.js";
import { registerResources } from "./resources.js";
import { McpRefusal } from "./results.js";
import { register, type AnyTool } from "./tools/define.js";
import { deleteEvents, eventStats, getEvent, listEvents, replayEvents, waitForEventsTool } from "./tools/events.js";
import {
  createSource,
  deleteSource,
  getComponent,
  getSource,
  listComponents,
  listSources,
  updateSource,
  whoami,
} from "./tools/resources.js";
import { createWorkflow, listWorkflows, updateWorkflow } from "./tools/workflows.js";
import { listSubscriptions, sendTestEvent, subscribe, unsubscribe } from "./tools/wiring.js";
import { listActions, runAction } from "./tools/actions.js";
import { deleteEnv, listEnv, setEnv } from "./tools/env.js";
import {
  createDataStore,
  deleteRecord,
  getRecord,
  incrementRecord,
  listDataStores,
  listRecords,
  setRecord,
} from "./tools/data-stores.js";
import { cancelRun, getRun, listRuns, rerun } from "./tools/runs.js";
import { nextScheduleTicks, runWorkflow } from "./tools/triggers.js";
import { compareRuns } from "./tools/compare.js";
import { deployDraft, getDraft, getVersion, listVersions, restoreVersion, testWorkflow, updateDraft } from "./tools/versions.js";

export type { EndpointAnswer, EndpointRequest, LegacySubscriptions, McpDeps } from "./deps.js";
export { emitterOfEventsUri, requireReadable } from "./emitters.js";
export { ResourceWatches } from "./streams.js";

/** Every tool, in the order tools/list shows them. */
export const TOOLS: AnyTool[] = [
  whoami,
  listComponents,
  getComponent,
  listSources,
  getSource,
  createSource,
  updateSource,
  deleteSource,
  listEvents,
  getEvent,
  waitForEventsTool,
  replayEvents,
  deleteEvents,
  eventStats,
  listSubscriptions,
  subscribe,
  unsubscribe,
  listWorkflows,
  createWorkflow,
  updateWorkflow,
  getDraft,
  updateDraft,
  deployDraft,
  listVersions,
  getVersion,
  restoreVersion,
  testWorkflow,
  listRuns,
  getRun,
  rerun,
  cancelRun,
  runWorkflow,
  nextScheduleTicks,
  compareRuns,
  sendTestEvent,
  listActions,
  runAction,
  listEnv,
  setEnv,
  deleteEnv,
  listDataStores,
  createDataStore,
  getRecord,
  setRecord,
  deleteRecord,
  listRecords,
  incrementRecord,
];

const TOOL_BY_NAME = new Map(TOOLS.map((t) => [t.name, t]));

/** The tool of that name, if there is one. */
export const toolNamed = (name: string): AnyTool | undefined => TOOL_BY_NAME.get(name);

/** Who answers: the identity every result and the initialize answer carry. */
export const serverInfo = (version: string) => ({ name: "headwater", title: "Headwater", version });

const INSTRUCTIONS = `Headwater runs event sources (components that emit events from HTTP requests, timers or APIs) and workflows, for one user: the owner of the API key. Find things with list_sources / get_source; deploy with create_source; read events with list_events (q searches) and get_event; after send_test_event or a deploy, use wait_for_events rather than polling; $errors and $logs channels hold failures and console output (the debug_source prompt reads them for you). A workflow's runs (list_runs, get_run) show what each step did: logs, return values, the error and its stack; rerun runs one again, from a step; run_workflow runs a workflow now (next_schedule_ticks shows when its schedules run); cancel_run stops one that waits (queued, retrying, delayed). create_workflow and update_workflow set how runs are retried (retry), how many run at once (concurrency) and how many start per period (throttle). To change a workflow without touching what runs, update_draft then deploy_draft (get_draft shows it and its problems); list_versions, get_version and restore_version read and bring back its history; compare_runs shows what changed between a run and the last good one (code, statuses, values), step by step. Changes that make a version take base_version (the version you read): a version_conflict answer means someone changed it meanwhile, so read it again first. set_env keeps a secret (an API key) for the user's code, read as process.env.NAME; its value is never shown again, by any tool. Data stores keep state across runs (list_data_stores, list_records, get_record, set_record, increment_record adds atomically). Every tool that names a source or workflow takes it as \`id\`. delete_source, delete_events and unsubscribe cannot be undone.`;

export interface HeadwaterMcpOptions {
  /** The server's version, shown to clients. */
  version: string;
  /** The protocol era this instance serves (the SDK's factory says). */
  era: "legacy" | "modern";
  /** Where `resources/subscribe` (2025-11-25) keeps subscriptions; absent: not on this instance's era. */
  legacySubscriptions?: LegacySubscriptions;
  /**
   * The instance serves one `tools/call` of this tool and nothing else (an HTTP request): only
   * that tool is registered, which spares registering the rest for every call.
   */
  onlyTool?: string;
}

/** A fresh MCP server instance for one request (HTTP) or one connection (stdio). */
export function createHeadwaterMcp(deps: McpDeps, o: HeadwaterMcpOptions): McpServer {
  const server = new McpServer(
    serverInfo(o.version),
    {
      capabilities: {
        tools: { listChanged: false },
        resources: { subscribe: true, listChanged: false },
        prompts: { listChanged: false },
        // logging/setLevel, for 2025-11-25 clients that set one (2026-07-28 deprecates it). The
        // server sends no log notifications: a source's logs are its $logs events.
        ...(o.era === "legacy" ? { logging: {} } : {}),
      },
      instructions: INSTRUCTIONS,
    },
  );
  const one = o.onlyTool === undefined ? undefined : TOOLS.find((t) => t.name === o.onlyTool);
  if (one) {
    register(server, deps, [one]);
    return server;
  }
  register(server, deps, TOOLS);
  registerResources(server, deps);
  registerPrompts(server, deps);
  const subs = o.legacySubscriptions;
  if (subs) {
    server.server.setRequestHandler("resources/subscribe", async (request) => {
      await legacySubscribe(subs.subscribe.bind(subs), request.params.uri);
      return {};
    });
    server.server.setRequestHandler("resources/unsubscribe", async (request) => {
      await legacySubscribe(subs.unsubscribe.bind(subs), request.params.uri);
      return {};
    });
  }
  return server;
}

/** Only events resources change on their own; a refusal is the protocol's invalid-params error. */
async function legacySubscribe(fn: (uri: string) => Promise<void>, uri: string): Promise<void> {
  if (!emitterOfEventsUri(uri)) {
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `only events resources (headwater://sources/{id}/events, headwater://workflows/{id}/events) can be subscribed to: ${uri}`);
  }
  try {
    await fn(uri);
  } catch (err) {
    if (err instanceof McpRefusal && err.status === 404) throw new ResourceNotFoundError(uri, err.message);
    if (err instanceof McpRefusal) throw new ProtocolError(ProtocolErrorCode.InvalidParams, err.message);
    throw err;
  }
}
