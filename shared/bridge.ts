/**
 * The contract between the renderer and its host: what `window.headwater` offers.
 *
 * In Electron the preload script implements it over IPC; in web mode a small browser client
 * (`electron/web/client/`) implements it over HTTP on loopback, and the web host injects it into
 * the served index.html, so `window.headwater` is defined in both modes before the renderer's
 * code runs. (Renderer tests can build one with `createWebBridge` from `electron/web/client`.) Either way the host (`electron/core`)
 * holds the API key and does all network work; the renderer only ever learns whether a key is set
 * and its last four characters.
 *
 * Rules:
 * - One method per operation, no generic channel. Every call resolves (never rejects) to
 *   `{ok: true, value}` or `{ok: false, error: {status, code, message}}`.
 * - Arguments are positional, as in the shared client (`updateSource(id, body)`). The host
 *   validates every argument with `bridgeArgs` below before doing anything.
 * - Live streams: `watch(emitterId, channel)` resolves to a watch id; batches of event summaries
 *   (oldest first within a batch) and connection states arrive through `onStreamBatch` /
 *   `onStreamState`, tagged with that id. `watchRuns(workflowId)` does the same for a
 *   workflow's runs, whose batches arrive through `onRunBatch`. `unwatch(watchId)` closes either.
 *
 * Runs in Node and in the browser: no Node-only imports.
 */
import * as z from "./zod.js";
import {
  AccountListQuery,
  ActionOptionsBody,
  ActionsQuery,
  RunActionBody,
  AutoSubscriptionParams,
  CreateAccountBody,
  EnvName,
  SetEnvBody,
  CreateDataStoreBody,
  DataStoreKey,
  PutRecordBody,
  RecordListQuery,
  ComponentSearchQuery,
  CreateComponentBody,
  CreateSourceBody,
  CreateUserBody,
  CreateWorkflowBody,
  DeleteEventsQuery,
  EventListQuery,
  PageQuery,
  PropOptionsBody,
  ReplayEventsBody,
  RerunBody,
  RunWorkflowBody,
  RestoreVersionBody,
  DraftBody,
  DeployDraftBody,
  RunListQuery,
  StatsQuery,
  TestRunBody,
  SubscriptionParams,
  UpdateAccountBody,
  UpdateSourceBody,
  UpdateUserBody,
  UpdateWorkflowBody,
  type Account,
  type Action,
  type ActionOptions,
  type ActionResult,
  type AutoSubscription,
  type Component,
  type EnvVar,
  type DataStore,
  type DataStoreRecord,
  type ComponentSearch,
  type EventSummary,
  type Page,
  type PropOptions,
  type ReplayResult,
  type Run,
  type RunComparison,
  type ScheduleTick,
  LAST_SUCCESS,
  type Source,
  type Stats,
  type Subscription,
  type User,
  type Workflow,
  type WorkflowDraft,
  type WorkflowVersion,
  type WorkflowVersionInfo,
} from "./resources/index.js";
import { BRIDGE_METHOD_NAMES, PUSH_CHANNELS } from "./bridge-names.js";

export { BRIDGE_METHOD_NAMES, PUSH_CHANNELS };

// ---------------------------------------------------------------------------------------------
// Results

export interface BridgeError {
  /** HTTP status of the API's answer; 0 when the server could not be reached; 400 for bad arguments. */
  status: number;
  /** The API's snake_case code (`unauthorized`, `not_found`, ...) or a host code (`invalid_argument`, `network_error`, `no_profile`). */
  code: string;
  /** Words a user understands. */
  message: string;
  details?: Array<{ path: string; message: string }>;
}

export type BridgeResult<T> = { ok: true; value: T } | { ok: false; error: BridgeError };
type R<T> = Promise<BridgeResult<T>>;

// ---------------------------------------------------------------------------------------------
// Profiles and keys

/** Whether a key is stored, and its last four characters (never more). */
export interface KeyStatus {
  isSet: boolean;
  lastFour: string | null;
}

/**
 * `local`: the bundled server, started by the host as a child process with its own data dir.
 * `remote`: any server speaking the v1 API, ours or the hosted service.
 */
export type ProfileKind = "local" | "remote";

/**
 * Where a profile's connection stands. Remote profiles are `ready` as soon as they are saved;
 * once the server answers a call or a stream with 401 they are `refused` (with a
 * `statusMessage`) until a call succeeds again or the key is replaced. The local profile is
 * `idle` until it is first selected, then `starting` while its server boots.
 */
export type ProfileStatus = "idle" | "starting" | "ready" | "failed" | "refused";

export interface Profile {
  id: string;
  name: string;
  kind: ProfileKind;
  /** The API base, ending in `/v1`. Empty for a local profile whose server has not started yet. */
  baseUrl: string;
  key: KeyStatus;
  status: ProfileStatus;
  /** Why the profile failed or its key was refused (`failed`, `refused`), in words a user understands. */
  statusMessage?: string;
  /** True for the selected profile. */
  current: boolean;
}

/**
 * A user as the renderer sees it: the key is never included. Picked field by field, not
 * `Omit<User, "api_key">`: `User` is a loose object type (it has an index signature), and Omit
 * over it keeps only the index signature, widening every field to `unknown`.
 */
export type BridgeUser = Pick<
  User,
  | "id"
  | "username"
  | "email"
  | "admin"
  | "daily_compute_time_quota"
  | "daily_compute_time_used"
  | "daily_invocations_quota"
  | "daily_invocations_used"
>;

/**
 * A user as an admin sees them in the Users panel: also whether they are disabled, and which
 * quotas are their own (`quota_overrides`, `null` = the server's default). Never a key.
 */
export type BridgeManagedUser = BridgeUser & Pick<User, "disabled" | "quota_overrides">;

/**
 * Where the host keeps API keys (never the keys themselves), so the renderer can say what is true:
 * `os-encrypted`: encrypted with the OS keychain (Electron safeStorage);
 * `file`: a file readable only by the user (mode 0600), not encrypted (web mode);
 * `memory`: not written anywhere, gone when the app quits.
 */
export type KeyStorage = "os-encrypted" | "file" | "memory";

/** The dashboard's colour theme: "system" follows the OS (prefers-color-scheme). */
export const ThemePreference = z.enum(["system", "light", "dark"]);
export type ThemePreference = z.infer<typeof ThemePreference>;

export interface HostInfo {
  mode: "electron" | "web";
  version: string;
  keyStorage: KeyStorage;
}

// ---------------------------------------------------------------------------------------------
// Live streams

/** Connection state of one watch. `unauthorized` and `closed` are final: no more retries. */
export type StreamState = "connecting" | "open" | "reconnecting" | "closed" | "unauthorized";

export interface StreamStateUpdate {
  watchId: string;
  state: StreamState;
  /** Why (for reconnecting, closed, unauthorized), in words a user understands. */
  message?: string;
  /** HTTP status that ended the stream, when there was one (401, 403, 404). */
  status?: number;
  /** For `reconnecting`: how long until the next attempt. */
  retryInMs?: number;
}

export interface StreamBatch {
  watchId: string;
  /** Oldest first. Back-filled events after a reconnect arrive the same way, never duplicated. */
  events: EventSummary[];
}

/**
 * Changes of a workflow's runs (`watchRuns`): each run as it is now (as in lists), once per run
 * and batch (its latest state), in the order their changes arrived.
 */
export interface RunBatch {
  watchId: string;
  runs: Run[];
}

/** Channels of an emitter: `""` (default), `$logs`, `$errors`. */
export const STREAM_CHANNELS = ["", "$logs", "$errors"] as const;
export type StreamChannel = (typeof STREAM_CHANNELS)[number];

/** How often the host flushes a watch's events to the renderer. */
export const STREAM_BATCH_INTERVAL_MS = 50;

/** Rows the renderer's live feed keeps per watch; older rows are dropped (the bench relies on it). */
export const LIVE_FEED_MAX_ROWS = 50_000;

export type Unsubscribe = () => void;

// ---------------------------------------------------------------------------------------------
// Argument schemas: one tuple per method. The host parses every call with these.

const Str = (max = 200) => z.string().check(z.minLength(1), z.maxLength(max));
const SourceId = z.string().check(z.regex(/^dc_[A-Za-z0-9]{1,64}$/, "not a source id (dc_...)"));
const WorkflowId = z.string().check(z.regex(/^p_[A-Za-z0-9]{1,64}$/, "not a workflow id (p_...)"));
const UserId = z.string().check(z.regex(/^u_[A-Za-z0-9]{1,64}$/, "not a user id (u_...)"));
const AccountId = z.string().check(z.regex(/^apn_[A-Za-z0-9]{1,64}$/, "not an account id (apn_...)"));
const DataStoreId = z.string().check(z.regex(/^ds_[A-Za-z0-9]{1,64}$/, "not a data store id (ds_...)"));
const ComponentId = z.string().check(z.regex(/^sc_[A-Za-z0-9]{1,64}$/, "not a component id (sc_...)"));
const EmitterId = z.union([SourceId, WorkflowId]);
const VersionNumber = z.number().check(z.int(), z.positive());
const EventId = z.string().check(z.regex(/^\d{1,15}-\d{1,9}$/, "not an event id"));
const RunId = z.string().check(z.regex(/^r_[A-Za-z0-9]{1,64}$/, "not a run id (r_...)"));
const ProfileId = Str(64);
const WatchId = Str(64);
const Channel = z.enum(STREAM_CHANNELS);

export const RemoteProfileInput = z.object({
  name: z.string().check(z.trim(), z.minLength(1, "a name is required"), z.maxLength(100)),
  baseUrl: z
    .url({ protocol: /^https?$/, message: "the base URL must be an http(s) URL" })
    .check(z.refine((u) => !/[?#]/.test(u), "the base URL has no query or fragment")),
  apiKey: z.string().check(z.trim(), z.minLength(1, "an API key is required"), z.maxLength(500)),
});
export type RemoteProfileInput = z.input<typeof RemoteProfileInput>;

// ---------------------------------------------------------------------------------------------
// Test requests: "Send test event" on an HTTP source or workflow. The host sends them (never the
// page) to the emitter's own endpoint, and keeps the last few per emitter in its settings.

export const TEST_REQUEST_METHODS = ["POST", "GET", "PUT", "PATCH", "DELETE"] as const;
/** Requests kept per emitter to send again. */
export const TEST_REQUESTS_KEPT = 5;
export const TEST_REQUEST_BODY_MAX = 256 * 1024;

export const TestRequestHeader = z.object({
  name: z.string().check(z.trim(), z.regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$/, "not a valid header name")),
  value: z.string().check(z.maxLength(4000), z.regex(/^[^\r\n]*$/, "a header value is one line")),
});
export type TestRequestHeader = z.infer<typeof TestRequestHeader>;

export const TestRequestInput = z.object({
  method: z.enum(TEST_REQUEST_METHODS),
  /** Appended to the endpoint URL: `/`, `/orders/1?x=y`. */
  path: z
    .string()
    .check(z.maxLength(2000), z.regex(/^(\/[^\s#]*)?$/, "a path starts with / and has no spaces")),
  headers: z.array(TestRequestHeader).check(z.maxLength(50)),
  /** JSON text, or empty for no body. */
  body: z.string().check(
    z.maxLength(TEST_REQUEST_BODY_MAX),
    z.refine((b: string) => {
      if (b.trim() === "") return true;
      try {
        JSON.parse(b);
        return true;
      } catch {
        return false;
      }
    }, "the body is not valid JSON"),
  ),
});
export type TestRequestInput = z.infer<typeof TestRequestInput>;

export interface TestResponse {
  /** The URL the host sent to (the endpoint plus the path). */
  url: string;
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  /** The response's text (cut at 64 KiB, then `truncated`). */
  body: string;
  truncated: boolean;
  durationMs: number;
}

/** A request kept to send again: never a secret-looking header (shared/secrets.ts). */
export interface SavedTestRequest extends TestRequestInput {
  sentAt: number;
}

// ---------------------------------------------------------------------------------------------
// Agents: "Connect an agent" in Account. The host tests the connection's MCP endpoint
// (`<origin>/mcp`) with its key, as an agent would, and answers what the agent would see.

/**
 * The MCP endpoint of a connection: `/mcp` at the origin of its `/v1` base, beside `/healthz`
 * (as the live streams are). Throws on a base URL that is not a URL.
 */
export function mcpUrlOf(baseUrl: string): string {
  return `${new URL(baseUrl).origin}/mcp`;
}

export interface AgentTool {
  name: string;
  description?: string;
}

export interface AgentConnectionTest {
  /** The endpoint the host reached: the connection's origin + `/mcp`. */
  url: string;
  /** Every tool the server lists (all pages), in its order. */
  tools: AgentTool[];
  /** The protocol revision agreed on (`2026-07-28`, `2025-11-25`). */
  protocolVersion?: string;
  /** The server as it named itself. */
  server?: { name: string; version: string };
}

export const bridgeArgs = {
  // host
  hostInfo: z.tuple([]),
  // the dashboard's own settings, kept by the host (electron-store, or web mode's settings file)
  getTheme: z.tuple([]),
  setTheme: z.tuple([ThemePreference]),
  // profiles and keys
  listProfiles: z.tuple([]),
  currentProfile: z.tuple([]),
  addRemoteProfile: z.tuple([RemoteProfileInput]),
  selectProfile: z.tuple([ProfileId]),
  removeProfile: z.tuple([ProfileId]),
  setProfileKey: z.tuple([ProfileId, z.string().check(z.trim(), z.minLength(1), z.maxLength(500))]),
  keyStatus: z.tuple([z.optional(ProfileId)]),
  // users
  getMe: z.tuple([]),
  rotateApiKey: z.tuple([]),
  // users, admins only (the server answers 403 to others)
  listUsers: z.tuple([z.optional(PageQuery)]),
  createUser: z.tuple([CreateUserBody]),
  updateUser: z.tuple([UserId, UpdateUserBody]),
  deleteUser: z.tuple([UserId]),
  // components
  listMyComponents: z.tuple([z.optional(PageQuery)]),
  createComponent: z.tuple([CreateComponentBody]),
  getComponent: z.tuple([Str(200)]),
  getRegistryComponent: z.tuple([Str(200)]),
  searchComponents: z.tuple([z.optional(ComponentSearchQuery)]),
  publishComponent: z.tuple([ComponentId]),
  propOptions: z.tuple([Str(200), Str(200), z.optional(PropOptionsBody)]),
  // sources
  listMySources: z.tuple([z.optional(PageQuery)]),
  createSource: z.tuple([CreateSourceBody]),
  getSource: z.tuple([SourceId]),
  updateSource: z.tuple([SourceId, UpdateSourceBody]),
  deleteSource: z.tuple([SourceId]),
  // events
  listSourceEvents: z.tuple([SourceId, z.optional(EventListQuery)]),
  getSourceEvent: z.tuple([SourceId, EventId, z.optional(Channel)]),
  deleteSourceEvents: z.tuple([SourceId, z.optional(DeleteEventsQuery)]),
  listWorkflowEvents: z.tuple([WorkflowId, z.optional(EventListQuery)]),
  listWorkflowErrors: z.tuple([WorkflowId, z.optional(EventListQuery)]),
  replaySourceEvents: z.tuple([SourceId, z.optional(ReplayEventsBody)]),
  replayWorkflowEvents: z.tuple([WorkflowId, z.optional(ReplayEventsBody)]),
  getSourceStats: z.tuple([SourceId, z.optional(StatsQuery)]),
  getWorkflowStats: z.tuple([WorkflowId, z.optional(StatsQuery)]),
  // subscriptions
  listMySubscriptions: z.tuple([]),
  createSubscription: z.tuple([SubscriptionParams]),
  deleteSubscription: z.tuple([SubscriptionParams]),
  createAutoSubscription: z.tuple([AutoSubscriptionParams]),
  // workflows
  listMyWorkflows: z.tuple([z.optional(PageQuery)]),
  createWorkflow: z.tuple([CreateWorkflowBody]),
  getWorkflow: z.tuple([WorkflowId]),
  updateWorkflow: z.tuple([WorkflowId, UpdateWorkflowBody]),
  deleteWorkflow: z.tuple([WorkflowId]),
  // versions and the draft (decisions.md "Building workflows")
  listWorkflowVersions: z.tuple([WorkflowId, z.optional(PageQuery)]),
  getWorkflowVersion: z.tuple([WorkflowId, VersionNumber]),
  restoreWorkflowVersion: z.tuple([WorkflowId, VersionNumber, z.optional(RestoreVersionBody)]),
  getWorkflowDraft: z.tuple([WorkflowId]),
  updateWorkflowDraft: z.tuple([WorkflowId, DraftBody]),
  discardWorkflowDraft: z.tuple([WorkflowId]),
  deployWorkflowDraft: z.tuple([WorkflowId, z.optional(DeployDraftBody)]),
  // workflow runs (extension; a server without them answers 404)
  listWorkflowRuns: z.tuple([WorkflowId, z.optional(RunListQuery)]),
  getWorkflowRun: z.tuple([WorkflowId, RunId]),
  rerunWorkflowRun: z.tuple([WorkflowId, RunId, z.optional(RerunBody)]),
  cancelWorkflowRun: z.tuple([WorkflowId, RunId]),
  runWorkflow: z.tuple([WorkflowId, z.optional(RunWorkflowBody)]),
  nextScheduleTicks: z.tuple([WorkflowId, z.optional(z.number().check(z.int(), z.gte(1), z.lte(50)))]),
  testWorkflow: z.tuple([WorkflowId, z.optional(TestRunBody)]),
  /** `with`: another run's id, or "last_success". */
  compareWorkflowRuns: z.tuple([WorkflowId, RunId, z.optional(z.union([RunId, z.literal(LAST_SUCCESS)]))]),
  // connected accounts: values go in, only field names come back
  createAccount: z.tuple([CreateAccountBody]),
  listMyAccounts: z.tuple([z.optional(AccountListQuery)]),
  getAccount: z.tuple([AccountId]),
  updateAccount: z.tuple([AccountId, UpdateAccountBody]),
  deleteAccount: z.tuple([AccountId]),
  // environment variables: a secret's value goes in and never comes back
  listMyEnvVars: z.tuple([]),
  setEnvVar: z.tuple([EnvName, SetEnvBody]),
  deleteEnvVar: z.tuple([EnvName]),
  // data stores: stores and their records by key
  listMyDataStores: z.tuple([z.optional(PageQuery)]),
  createDataStore: z.tuple([CreateDataStoreBody.shape.name]),
  renameDataStore: z.tuple([DataStoreId, CreateDataStoreBody.shape.name]),
  deleteDataStore: z.tuple([DataStoreId]),
  listDataStoreRecords: z.tuple([DataStoreId, z.optional(RecordListQuery)]),
  putDataStoreRecord: z.tuple([DataStoreId, DataStoreKey, PutRecordBody]),
  deleteDataStoreRecord: z.tuple([DataStoreId, DataStoreKey]),
  // actions: the vendor's (and the account's own) components of type "action", run by key
  listActions: z.tuple([z.optional(ActionsQuery)]),
  getAction: z.tuple([Str(200)]),
  runAction: z.tuple([RunActionBody]),
  actionOptions: z.tuple([ActionOptionsBody]),
  // test requests
  sendTestRequest: z.tuple([EmitterId, TestRequestInput]),
  listTestRequests: z.tuple([EmitterId]),
  // agents
  testAgentConnection: z.tuple([]),
  // live streams
  watch: z.tuple([EmitterId, Channel]),
  watchRuns: z.tuple([WorkflowId]),
  unwatch: z.tuple([WatchId]),
} as const;

/** Every request/response method of the bridge (the stream listeners are not in this list). */
export type BridgeMethod = keyof typeof bridgeArgs;
export const BRIDGE_METHODS: readonly BridgeMethod[] = BRIDGE_METHOD_NAMES;
// Compile-time check: the zod-free name list is exactly the schema keys.
type NamesMatch = [BridgeMethod] extends [(typeof BRIDGE_METHOD_NAMES)[number]]
  ? [(typeof BRIDGE_METHOD_NAMES)[number]] extends [BridgeMethod]
    ? true
    : false
  : false;
const _namesMatch: NamesMatch = true;
void _namesMatch;
export type BridgeArgs<M extends BridgeMethod> = z.input<(typeof bridgeArgs)[M]>;

// ---------------------------------------------------------------------------------------------
// The interface

export interface HeadwaterBridge {
  hostInfo(): R<HostInfo>;
  /** The colour theme chosen in the dashboard ("system" until one is chosen). */
  getTheme(): R<ThemePreference>;
  /** Keeps the colour theme in the host's settings; answers it. */
  setTheme(theme: ThemePreference): R<ThemePreference>;

  listProfiles(): R<Profile[]>;
  /** The selected profile, or null when none is (a fresh web host pointed nowhere). */
  currentProfile(): R<Profile | null>;
  /** Saves a remote profile (key into the vault) and selects it. */
  addRemoteProfile(input: RemoteProfileInput): R<Profile>;
  /** Switches profile: closes every watch of the old one (each reports `closed`). */
  selectProfile(id: string): R<Profile>;
  /** Removes a remote profile and its key. The local profile cannot be removed. */
  removeProfile(id: string): R<void>;
  /** Replaces a profile's key (e.g. after a 401). */
  setProfileKey(id: string, apiKey: string): R<Profile>;
  /** Key status of a profile (default: the current one). */
  keyStatus(profileId?: string): R<KeyStatus>;
  /** Profile list changes (added, removed, selected, local server started or failed). */
  onProfilesChanged(cb: (profiles: Profile[]) => void): Unsubscribe;

  getMe(): R<BridgeUser>;
  /** Issues a new key, stores it in the vault; the renderer learns only its last four characters. */
  rotateApiKey(): R<{ user: BridgeUser; key: KeyStatus }>;

  /** Admins: every user of the server (a page). */
  listUsers(q?: PageQuery): R<Page<BridgeManagedUser>>;
  /**
   * Admins: creates a user. The answer carries the NEW user's key, this once, for the admin to
   * hand over: it is not this connection's key (the host keeps no copy) and cannot be read again.
   */
  createUser(body: BridgeArgs<"createUser">[0]): R<{ user: BridgeManagedUser; apiKey: string }>;
  /** Admins: quotas (`null` = the server's default), `disabled`, `admin`. 409 `last_admin`. */
  updateUser(id: string, body: BridgeArgs<"updateUser">[1]): R<BridgeManagedUser>;
  /** Admins: deletes a user and everything they own. 409 `last_admin`. */
  deleteUser(id: string): R<void>;

  listMyComponents(q?: PageQuery): R<Page<Component>>;
  createComponent(body: BridgeArgs<"createComponent">[0]): R<Component>;
  getComponent(keyOrId: string): R<Component>;
  getRegistryComponent(key: string): R<Component>;
  /** Registry and fetched vendor components by key or name; a query naming an app fetches its package. */
  searchComponents(q?: ComponentSearchQuery): R<ComponentSearch>;
  publishComponent(id: string): R<Component>;
  /** A prop's choices from its `options()` (component id or key, prop name, props so far). */
  propOptions(keyOrId: string, prop: string, body?: BridgeArgs<"propOptions">[2]): R<PropOptions>;

  listMySources(q?: PageQuery): R<Page<Source>>;
  createSource(body: BridgeArgs<"createSource">[0]): R<Source>;
  getSource(id: string): R<Source>;
  updateSource(id: string, body: BridgeArgs<"updateSource">[1]): R<Source>;
  deleteSource(id: string): R<void>;

  listSourceEvents(id: string, q?: EventListQuery): R<Page<EventSummary>>;
  /** One event with its full data (`expand=event`), for the detail pane. */
  getSourceEvent(sourceId: string, eventId: string, channel?: StreamChannel): R<EventSummary>;
  deleteSourceEvents(id: string, q?: DeleteEventsQuery): R<{ accepted: boolean }>;
  listWorkflowEvents(id: string, q?: EventListQuery): R<Page<EventSummary>>;
  listWorkflowErrors(id: string, q?: EventListQuery): R<Page<EventSummary>>;
  /** Delivers a channel's retained events (a range, or all) again to its listeners, or to one. */
  replaySourceEvents(id: string, body?: ReplayEventsBody): R<ReplayResult>;
  replayWorkflowEvents(id: string, body?: ReplayEventsBody): R<ReplayResult>;
  /** Events, errors, logs, invocations and compute ms per bucket (the volume chart). */
  getSourceStats(id: string, q?: StatsQuery): R<Stats>;
  getWorkflowStats(id: string, q?: StatsQuery): R<Stats>;

  listMySubscriptions(): R<Subscription[]>;
  createSubscription(params: SubscriptionParams): R<Subscription>;
  deleteSubscription(params: SubscriptionParams): R<void>;
  createAutoSubscription(params: AutoSubscriptionParams): R<AutoSubscription>;

  listMyWorkflows(q?: PageQuery): R<Page<Workflow>>;
  createWorkflow(body: BridgeArgs<"createWorkflow">[0]): R<Workflow>;
  getWorkflow(id: string): R<Workflow>;
  updateWorkflow(id: string, body: BridgeArgs<"updateWorkflow">[1]): R<Workflow>;
  deleteWorkflow(id: string): R<void>;
  /** The workflow's versions, newest first. */
  listWorkflowVersions(id: string, q?: PageQuery): R<Page<WorkflowVersionInfo>>;
  /** One version with the workflow as it was. */
  getWorkflowVersion(id: string, version: number): R<WorkflowVersion>;
  /** A new version with that version's content (409 `version_conflict` when `base_version` is stale). */
  restoreWorkflowVersion(id: string, version: number, body?: RestoreVersionBody): R<Workflow>;
  /** The draft (404 `no_draft` when there is none). */
  getWorkflowDraft(id: string): R<WorkflowDraft>;
  /** Changes the draft (creates it from the current version first). */
  updateWorkflowDraft(id: string, body: DraftBody): R<WorkflowDraft>;
  discardWorkflowDraft(id: string): R<void>;
  /** Deploys the draft as the next version (400 `invalid_step`, 409 `version_conflict`). */
  deployWorkflowDraft(id: string, body?: DeployDraftBody): R<Workflow>;

  /** A page of a workflow's runs, newest first (`status` keeps one status). 404 on a server without runs. */
  listWorkflowRuns(id: string, q?: RunListQuery): R<Page<Run>>;
  /** One run whole: its event uncut, every step's logs, values and error. */
  getWorkflowRun(id: string, runId: string): R<Run>;
  /** A new run of the same event (from a step: the steps before it are reused); answered once it ended or after ~10 s. */
  rerunWorkflowRun(id: string, runId: string, body?: RerunBody): R<Run>;
  /** Cancels a queued, retrying or delayed run (answered `cancelled`); 409 `run_not_cancellable` once it started or ended. */
  cancelWorkflowRun(id: string, runId: string): R<Run>;
  /** Run now: a production run (trigger MANUAL) with the event (default {}), answered queued; 409 when inactive. */
  runWorkflow(id: string, body?: RunWorkflowBody): R<Run>;
  /** The next `count` ticks (default 5) over all the workflow's schedules, in time order. */
  nextScheduleTicks(id: string, count?: number): R<ScheduleTick[]>;
  /**
   * A test run of the draft (or the current version, or `body.steps`) on a chosen event: its emits
   * and answer are recorded, never sent. Answered once it ended, or as it is after ~60 s (follow it with getWorkflowRun).
   */
  testWorkflow(id: string, body?: TestRunBody): R<Run>;
  /** Two runs compared step by step (`with`: a run id or "last_success", the default; 404 when there is no good run). */
  compareWorkflowRuns(id: string, runId: string, withRun?: string): R<RunComparison>;

  /**
   * Connected accounts: an app's credentials stored once on the server and referenced from a
   * prop as `{authProvisionId}`. Values are sent, never answered: an account lists its field names.
   */
  createAccount(body: BridgeArgs<"createAccount">[0]): R<Account>;
  /** A page of the user's accounts, optionally of one app. */
  listMyAccounts(q?: AccountListQuery): R<Page<Account>>;
  getAccount(id: string): R<Account>;
  /** Renames, and/or replaces every value at once (`auth`). */
  updateAccount(id: string, body: BridgeArgs<"updateAccount">[1]): R<Account>;
  /** 409 `account_in_use` while a source or step references it; `details` name them. */
  deleteAccount(id: string): R<void>;

  /**
   * Environment variables: what the user's code reads as `process.env.NAME`. Secret by default:
   * a secret's value is sent, never answered (a plain one's is).
   */
  listMyEnvVars(): R<EnvVar[]>;
  /** Creates or replaces one (`secret` defaults to true). */
  setEnvVar(name: string, body: SetEnvBody): R<EnvVar>;
  /** 404 when there is none of that name. */
  deleteEnvVar(name: string): R<void>;

  /** Data stores: keys and JSON values the user's sources and steps share across runs. */
  listMyDataStores(q?: PageQuery): R<Page<DataStore>>;
  createDataStore(name: string): R<DataStore>;
  renameDataStore(id: string, name: string): R<DataStore>;
  /** 409 `data_store_in_use` while a source or workflow step names it; `details` name them. */
  deleteDataStore(id: string): R<void>;
  /** A page of live records in ascending key order, optionally of keys starting with `prefix`. */
  listDataStoreRecords(id: string, q?: RecordListQuery): R<Page<DataStoreRecord>>;
  /** Creates or replaces a record (`ttl_seconds`: it expires that long after). */
  putDataStoreRecord(id: string, key: string, body: PutRecordBody): R<DataStoreRecord>;
  deleteDataStoreRecord(id: string, key: string): R<void>;

  /**
   * Actions (components of type "action"): an app's (its vendor package is installed on the
   * server's first use, so the first answer may be slow), or the account's own without `app`.
   */
  listActions(q?: ActionsQuery): R<Action[]>;
  getAction(key: string): R<Action>;
  /** Runs one now; a thrown error is the result's `error` (the call itself succeeds). */
  runAction(body: RunActionBody): R<ActionResult>;
  /** A prop's choices from its `async options()`, with the props configured so far. */
  actionOptions(body: ActionOptionsBody): R<ActionOptions>;

  /**
   * Sends a request to an HTTP source's or workflow's own endpoint, from the host (the page
   * never reaches the network), and answers the response. The request is kept (without secret
   * headers) among the emitter's last few, for `listTestRequests`.
   */
  sendTestRequest(emitterId: string, request: TestRequestInput): R<TestResponse>;
  /** The emitter's kept test requests, newest first. */
  listTestRequests(emitterId: string): R<SavedTestRequest[]>;

  /**
   * Connects to the current connection's MCP endpoint (`<origin>/mcp`, Streamable HTTP) with its
   * key, lists the tools and disconnects: what an agent given that URL and key would see. Errors:
   * 401 `unauthorized`, 404 `no_mcp` (no MCP endpoint there), 0 `network_error`, 504 `timeout`.
   */
  testAgentConnection(): R<AgentConnectionTest>;

  /**
   * Starts a live feed of an emitter's channel (`""`, `$logs`, `$errors`). Sources stream over
   * SSE; workflows (which have no SSE endpoint) are polled. Resolves to the watch id. The feed
   * first delivers the channel's recent events (up to 100, read over REST once connected), then
   * live ones; after a reconnect it back-fills what it missed. No id is delivered twice.
   * Switching profile closes every watch (each reports `closed`).
   */
  watch(emitterId: string, channel: StreamChannel): R<string>;
  /**
   * Follows a workflow's runs over its runs stream (SSE): every start, status change and end
   * arrives through `onRunBatch`, states through `onStreamState`. No backlog: list first, then
   * follow. A server without runs answers 404: the watch reports `closed` with status 404.
   */
  watchRuns(workflowId: string): R<string>;
  unwatch(watchId: string): R<void>;
  onStreamBatch(cb: (batch: StreamBatch) => void): Unsubscribe;
  onRunBatch(cb: (batch: RunBatch) => void): Unsubscribe;
  onStreamState(cb: (update: StreamStateUpdate) => void): Unsubscribe;
}

/** The methods the host answers, with the argument tuples of the interface above. */
export type BridgeCallable = Pick<HeadwaterBridge, BridgeMethod>;

// Compile-time check: every schema accepts exactly what the interface's method takes.
type SameArgs<M extends BridgeMethod> =
  Parameters<HeadwaterBridge[M]> extends BridgeArgs<M>
    ? BridgeArgs<M> extends Parameters<HeadwaterBridge[M]>
      ? true
      : false
    : false;
type AllSame = false extends { [M in BridgeMethod]: SameArgs<M> }[BridgeMethod] ? false : true;
const _argsMatchInterface: AllSame = true;
void _argsMatchInterface;

declare global {
  interface Window {
    /** Present in Electron (preload); absent in web mode, where `electron/web/client` provides it. */
    headwater?: HeadwaterBridge;
  }
}
