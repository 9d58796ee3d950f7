/**
 * The API half of the bridge: one handler per API method, each calling the shared client of the
 * current profile with arguments already validated by `bridgeArgs`. Users lose their `api_key`
 * on the way out: the renderer never sees a key, except a new user's, once, from `createUser`.
 */
import type { z } from "zod";
import type { BridgeManagedUser, BridgeMethod, bridgeArgs } from "../../shared/bridge.js";
import type { Client } from "../../shared/client/index.js";
import type { EventSummary, User } from "../../shared/resources/index.js";
import { HostError } from "./errors.js";

/** The bridge's own operations (connections, keys, live feeds), which the host answers itself. */
type HostMethod =
  | "hostInfo"
  | "getTheme"
  | "setTheme"
  | "listProfiles"
  | "currentProfile"
  | "addRemoteProfile"
  | "selectProfile"
  | "removeProfile"
  | "setProfileKey"
  | "keyStatus"
  | "rotateApiKey"
  | "sendTestRequest"
  | "listTestRequests"
  | "testAgentConnection"
  | "watch"
  | "watchRuns"
  | "unwatch";

/** Every other bridge operation is one API call, answered by the proxy below. */
export type ApiMethod = Exclude<BridgeMethod, HostMethod>;

type Args<M extends BridgeMethod> = z.output<(typeof bridgeArgs)[M]>;
type Handlers = { [M in ApiMethod]: (client: Client, ...args: Args<M>) => Promise<unknown> };

export function withoutKey(user: User): BridgeManagedUser {
  const { api_key: _key, ...rest } = user;
  return rest;
}

export const apiHandlers: Handlers = {
  getMe: async (c) => withoutKey(await c.getMe()),
  listUsers: async (c, q) => {
    const page = await c.listUsers(q);
    return { ...page, data: page.data.map(withoutKey) };
  },
  // The one answer with a key in it: the new user's, for the admin to hand over (see bridge.ts).
  createUser: async (c, body) => {
    const user = await c.createUser(body);
    if (!user.api_key) throw new HostError(502, "unexpected_response", "The server did not return the new user's key.");
    return { user: withoutKey(user), apiKey: user.api_key };
  },
  updateUser: async (c, id, body) => withoutKey(await c.updateUser(id, body)),
  deleteUser: async (c, id) => void (await c.deleteUser(id)),
  listMyComponents: (c, q) => c.listMyComponents(q),
  createComponent: (c, body) => c.createComponent(body),
  getComponent: (c, keyOrId) => c.getComponent(keyOrId),
  getRegistryComponent: (c, key) => c.getRegistryComponent(key),
  searchComponents: (c, q) => c.searchComponents(q),
  publishComponent: (c, id) => c.publishComponent(id),
  propOptions: (c, keyOrId, prop, body) => c.propOptions(keyOrId, prop, body),
  listMySources: (c, q) => c.listMySources(q),
  createSource: (c, body) => c.createSource(body),
  getSource: (c, id) => c.getSource(id),
  updateSource: (c, id, body) => c.updateSource(id, body),
  deleteSource: async (c, id) => void (await c.deleteSource(id)),
  listSourceEvents: (c, id, q) => c.listSourceEvents(id, q),
  getSourceEvent: (c, id, eventId, channel) => getSourceEvent(c, id, eventId, channel ?? ""),
  deleteSourceEvents: (c, id, q) => c.deleteSourceEvents(id, q),
  listWorkflowEvents: (c, id, q) => c.listWorkflowEvents(id, q),
  listWorkflowErrors: (c, id, q) => c.listWorkflowErrors(id, q),
  replaySourceEvents: (c, id, body) => c.replaySourceEvents(id, body),
  replayWorkflowEvents: (c, id, body) => c.replayWorkflowEvents(id, body),
  getSourceStats: (c, id, q) => c.getSourceStats(id, q),
  getWorkflowStats: (c, id, q) => c.getWorkflowStats(id, q),
  listMySubscriptions: (c) => c.listMySubscriptions(),
  createSubscription: (c, p) => c.createSubscription(p),
  deleteSubscription: async (c, p) => void (await c.deleteSubscription(p)),
  createAutoSubscription: (c, p) => c.createAutoSubscription(p),
  listMyWorkflows: (c, q) => c.listMyWorkflows(q),
  createWorkflow: (c, body) => c.createWorkflow(body),
  getWorkflow: (c, id) => c.getWorkflow(id),
  updateWorkflow: (c, id, body) => c.updateWorkflow(id, body),
  deleteWorkflow: async (c, id) => void (await c.deleteWorkflow(id)),
  listWorkflowVersions: (c, id, q) => c.listWorkflowVersions(id, q),
  getWorkflowVersion: (c, id, n) => c.getWorkflowVersion(id, n),
  restoreWorkflowVersion: (c, id, n, body) => c.restoreWorkflowVersion(id, n, body),
  getWorkflowDraft: (c, id) => c.getWorkflowDraft(id),
  updateWorkflowDraft: (c, id, body) => c.updateWorkflowDraft(id, body),
  discardWorkflowDraft: async (c, id) => void (await c.discardWorkflowDraft(id)),
  deployWorkflowDraft: (c, id, body) => c.deployWorkflowDraft(id, body),
  listWorkflowRuns: (c, id, q) => c.listWorkflowRuns(id, q),
  getWorkflowRun: (c, id, runId) => c.getWorkflowRun(id, runId),
  rerunWorkflowRun: (c, id, runId, body) => c.rerunWorkflowRun(id, runId, body),
  cancelWorkflowRun: (c, id, runId) => c.cancelWorkflowRun(id, runId),
  runWorkflow: (c, id, body) => c.runWorkflow(id, body),
  nextScheduleTicks: (c, id, count) => c.nextScheduleTicks(id, count),
  testWorkflow: (c, id, body) => c.testWorkflow(id, body),
  compareWorkflowRuns: (c, id, runId, withRun) => c.compareWorkflowRuns(id, runId, withRun),
  createAccount: (c, body) => c.createAccount(body),
  listMyAccounts: (c, q) => c.listMyAccounts(q),
  getAccount: (c, id) => c.getAccount(id),
  updateAccount: (c, id, body) => c.updateAccount(id, body),
  deleteAccount: async (c, id) => void (await c.deleteAccount(id)),
  listMyEnvVars: (c) => c.listMyEnvVars(),
  setEnvVar: (c, name, body) => c.setEnvVar(name, body),
  deleteEnvVar: async (c, name) => void (await c.deleteEnvVar(name)),
  listMyDataStores: (c, q) => c.listMyDataStores(q),
  createDataStore: (c, name) => c.createDataStore(name),
  renameDataStore: (c, id, name) => c.renameDataStore(id, name),
  deleteDataStore: async (c, id) => void (await c.deleteDataStore(id)),
  listDataStoreRecords: (c, id, q) => c.listDataStoreRecords(id, q),
  putDataStoreRecord: (c, id, key, body) => c.putDataStoreRecord(id, key, body),
  deleteDataStoreRecord: async (c, id, key) => void (await c.deleteDataStoreRecord(id, key)),
  listActions: (c, q) => c.listActions(q),
  getAction: (c, key) => c.getAction(key),
  runAction: (c, body) => c.runAction(body),
  actionOptions: (c, body) => c.actionOptions(body),
};

/** Names of the operations the proxy answers (the compiler checks `apiHandlers` covers them all). */
export const API_METHODS = Object.keys(apiHandlers) as ApiMethod[];

/**
 * One event with its full data. The API has no single-event read, but event cursors are event
 * ids and `after=C` lists what is older than C, so asking for one item after the id's successor
 * (`<ms>-<seq+1>`) returns the event itself. A server that wants cursors to exist gets a scan of
 * the retained events instead.
 */
async function getSourceEvent(
  c: Client,
  sourceId: string,
  eventId: string,
  channel: string,
): Promise<EventSummary> {
  const [ms, seq] = eventId.split("-").map(Number) as [number, number];
  const q = { expand: "event" as const, ...(channel ? { event_name: channel } : {}) };
  try {
    const page = await c.listSourceEvents(sourceId, { ...q, limit: 1, after: `${ms}-${seq + 1}` });
    if (page.data[0]?.id === eventId) return page.data[0];
  } catch {
    // Fall through to the scan.
  }
  let after: string | undefined;
  for (let i = 0; i < 100; i++) {
    const page = await c.listSourceEvents(sourceId, { ...q, limit: 100, ...(after ? { after } : {}) });
    const hit = page.data.find((e) => e.id === eventId);
    if (hit) return hit;
    after = page.page_info.end_cursor ?? undefined;
    if (page.data.length < 100 || !after) break;
  }
  throw new HostError(
    404,
    "not_found",
    `Event ${eventId} no longer exists: it may have been deleted or dropped by retention.`,
  );
}
