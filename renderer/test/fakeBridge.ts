/**
 * A test double of `window.headwater` (shared/bridge.ts) for renderer tests: in-memory sources,
 * components, events and subscriptions; every call recorded; any method can be made to fail or
 * to wait on a gate; stream batches and states are pushed by the test.
 */
import type {
  AgentConnectionTest,
  BridgeError,
  BridgeMethod,
  BridgeResult,
  HeadwaterBridge,
  HostInfo,
  ThemePreference,
  Profile,
  RunBatch,
  SavedTestRequest,
  StreamBatch,
  StreamStateUpdate,
  TestRequestInput,
  TestResponse,
} from "../../shared/bridge.js";
import { compareEventIds } from "../../shared/ids.js";
import { cutEvent, makeRun, rerunOf, RUN_T0 } from "./fakeRuns.js";
import { FakeTests } from "./fakeTests.js";
import { FakeVersions } from "./fakeVersions.js";
import type {
  Account,
  Action,
  ActionOptions,
  ActionOptionsBody,
  ActionResult,
  ActionsQuery,
  Component,
  ComponentMatch,
  ComponentSearch,
  ComponentSearchQuery,
  EnvVar,
  DataStore,
  DataStoreRecord,
  EventSummary,
  Page,
  PageQuery,
  PropOptions,
  PropOptionsBody,
  ReplayEventsBody,
  ReplayResult,
  RerunBody,
  Run,
  RunComparison,
  RunActionBody,
  RunListQuery,
  SetEnvBody,
  PutRecordBody,
  RecordListQuery,
  Source,
  TestRunBody,
  Stats,
  StatsQuery,
  Subscription,
  User,
  Workflow,
} from "../../shared/resources/index.js";

type Listener<T> = (v: T) => void;

/** The channel mark of a `watchRuns` feed among the watches. */
const RUNS = "$runs";

export function makeSource(n: number, over: Partial<Source> = {}): Source {
  return {
    id: `dc_src${n}`,
    component_id: "sc_timer",
    configured_props: { timer: { cron: null, interval_seconds: 60 } },
    active: true,
    created_at: 1_700_000_000 + n,
    updated_at: 1_700_000_000 + n,
    name: `source-${n}`,
    name_slug: `source-${n}`,
    ...over,
  };
}

export function makeWorkflow(n: number, over: Partial<Workflow> = {}): Workflow {
  return {
    id: `p_wf${n}`,
    name: `workflow-${n}`,
    deployment_id: `d_wf${n}`,
    steps: [],
    endpoint_url: `http://127.0.0.1:7433/p_wf${n}`,
    active: true,
    created_at: 1_700_000_000 + n,
    updated_at: 1_700_000_000 + n,
    ...over,
  };
}

/** A remote connection "Staging" (r1), current and ready unless overridden. */
export function remoteProfile(over: Partial<Profile> = {}): Profile {
  return {
    id: "r1",
    name: "Staging",
    kind: "remote",
    baseUrl: "https://s/v1",
    key: { isSet: true, lastFour: "wxyz" },
    status: "ready",
    current: true,
    ...over,
  };
}

/** An account of an app, its values never part of it (the fake keeps them in `accountValues`). */
export function makeAccount(n: number, over: Partial<Account> = {}): Account {
  return {
    id: `apn_acct${n}`,
    app: "postgresql",
    name: `account-${n}`,
    fields: ["host", "password"],
    used_by: 0,
    created_at: 1_700_000_000 + n,
    updated_at: 1_700_000_000 + n,
    ...over,
  };
}

export function makeEvent(emitterId: string, ms: number, seq = 0, channel = ""): EventSummary {
  return {
    id: `${ms}-${seq}`,
    indexed_at_ms: ms,
    event: { n: ms, seq },
    metadata: {
      emit_id: `emit-${ms}-${seq}`,
      name: channel,
      emitter_id: emitterId,
      summary: `event ${ms}-${seq}`,
    },
  };
}

export const TIMER_COMPONENT: Component = {
  id: "sc_timer",
  key: "every-minute",
  code: "export default {}",
  code_hash: "ab".repeat(32),
  name: "Every minute",
  version: "0.0.1",
  configurable_props: [{ name: "timer", type: "$.interface.timer", default: { intervalSeconds: 60 } }],
  created_at: 1_700_000_000,
  updated_at: 1_700_000_000,
};

interface Gate {
  promise: Promise<void>;
  open: () => void;
}
function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((r) => (open = r));
  return { promise, open };
}

export class FakeBridge implements HeadwaterBridge {
  calls: { method: BridgeMethod; args: unknown[] }[] = [];
  failures = new Map<BridgeMethod, BridgeError>();
  gates = new Map<BridgeMethod, Gate>();
  sources: Source[] = [];
  components: Component[] = [TIMER_COMPONENT];
  events = new Map<string, EventSummary[]>();
  subscriptions: Subscription[] = [];
  workflows: Workflow[] = [];
  /** Per emitter: the buckets `getSourceStats` / `getWorkflowStats` answer (any query). */
  stats = new Map<string, Stats["series"]>();
  /** Choices per prop name for `propOptions` (a function sees the body); others answer 400 no_options. */
  propChoices: Record<string, PropOptions | ((body: PropOptionsBody) => PropOptions)> = {};
  user: User = { id: "u_me", username: "ada", email: "ada@example.com" };
  host: HostInfo = { mode: "web", version: "test", keyStorage: "file" };
  theme: ThemePreference = "system";
  profiles: Profile[] = [
    {
      id: "local",
      name: "Local",
      kind: "local",
      baseUrl: "http://127.0.0.1:7433/v1",
      key: { isSet: true, lastFour: "abcd" },
      status: "ready",
      current: true,
    },
  ];
  private batchListeners = new Set<Listener<StreamBatch>>();
  private runBatchListeners = new Set<Listener<RunBatch>>();
  private stateListeners = new Set<Listener<StreamStateUpdate>>();
  private profileListeners = new Set<Listener<Profile[]>>();
  private watchSeq = 0;
  watches = new Map<string, { emitterId: string; channel: string }>();

  /** Makes every later call of `method` fail with this error (until cleared). */
  fail(method: BridgeMethod, error: Partial<BridgeError> = {}): void {
    this.failures.set(method, { status: 500, code: "internal_error", message: "boom", ...error });
  }
  /** Holds every later call of `method` until the returned function is called. */
  hold(method: BridgeMethod): () => void {
    const g = gate();
    this.gates.set(method, g);
    return () => {
      this.gates.delete(method);
      g.open();
    };
  }
  callsOf(method: BridgeMethod): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }
  pushBatch(watchId: string, events: EventSummary[]): void {
    for (const l of this.batchListeners) l({ watchId, events });
  }
  /** Pushes changed runs to a `watchRuns` feed (and keeps them, as the server would). */
  pushRuns(watchId: string, runs: Run[]): void {
    for (const r of runs) {
      const list = (this.runs.get(r.workflow_id) ?? []).filter((x) => x.id !== r.id);
      this.runs.set(
        r.workflow_id,
        [r, ...list].sort((a, b) => (a.id < b.id ? 1 : -1)),
      );
    }
    for (const l of this.runBatchListeners) l({ watchId, runs });
  }
  /** The watch id of the newest runs feed of a workflow. */
  runWatchOf(workflowId: string): string | undefined {
    return [...this.watches].reverse().find(([, w]) => w.emitterId === workflowId && w.channel === RUNS)?.[0];
  }
  pushState(update: StreamStateUpdate): void {
    for (const l of this.stateListeners) l(update);
  }
  /** Sets the profile list and pushes it, as the host does when a profile's state changes. */
  pushProfiles(profiles: Profile[]): void {
    this.profiles = profiles;
    for (const l of this.profileListeners) l(profiles);
  }
  /** The watch id of the newest events watch of an emitter. */
  watchOf(emitterId: string): string | undefined {
    return [...this.watches].reverse().find(([, w]) => w.emitterId === emitterId && w.channel !== RUNS)?.[0];
  }

  private async respond<T>(
    method: BridgeMethod,
    args: unknown[],
    compute: () => T,
  ): Promise<BridgeResult<T>> {
    this.calls.push({ method, args });
    const g = this.gates.get(method);
    if (g) await g.promise;
    const failure = this.failures.get(method);
    if (failure) return { ok: false, error: failure };
    try {
      return { ok: true, value: compute() };
    } catch (err) {
      return { ok: false, error: err as BridgeError };
    }
  }
  private page<T extends { id: string }>(items: T[], limit = 10, after?: string): Page<T> {
    const start = after ? items.findIndex((i) => i.id === after) + 1 : 0;
    const data = items.slice(start, start + limit);
    return {
      page_info: {
        total_count: items.length,
        count: data.length,
        start_cursor: data[0]?.id ?? null,
        end_cursor: data[data.length - 1]?.id ?? null,
      },
      data,
    };
  }
  private notFound(what: string): BridgeError {
    return { status: 404, code: "not_found", message: `no ${what}` };
  }

  hostInfo = () => this.respond("hostInfo", [], () => this.host);
  getTheme = () => this.respond("getTheme", [], () => this.theme);
  setTheme = (theme: ThemePreference) => this.respond("setTheme", [theme], () => (this.theme = theme));
  listProfiles = () => this.respond("listProfiles", [], () => this.profiles);
  currentProfile = () =>
    this.respond("currentProfile", [], () => this.profiles.find((p) => p.current) ?? null);
  addRemoteProfile = (input: Parameters<HeadwaterBridge["addRemoteProfile"]>[0]) =>
    this.respond("addRemoteProfile", [input], () => {
      const p: Profile = {
        id: `remote${this.profiles.length}`,
        name: input.name,
        kind: "remote",
        baseUrl: input.baseUrl,
        key: { isSet: true, lastFour: input.apiKey.slice(-4) },
        status: "ready",
        current: true,
      };
      this.profiles = [...this.profiles.map((x) => ({ ...x, current: false })), p];
      return p;
    });
  selectProfile = (id: string) =>
    this.respond("selectProfile", [id], () => {
      this.profiles = this.profiles.map((p) => ({ ...p, current: p.id === id }));
      const p = this.profiles.find((x) => x.id === id);
      if (!p) throw this.notFound("profile");
      return p;
    });
  removeProfile = (id: string) =>
    this.respond(
      "removeProfile",
      [id],
      () => void (this.profiles = this.profiles.filter((p) => p.id !== id)),
    );
  setProfileKey = (id: string, key: string) =>
    this.respond("setProfileKey", [id, key], () => {
      const p = this.profiles.find((x) => x.id === id);
      if (!p) throw this.notFound("profile");
      p.key = { isSet: true, lastFour: key.slice(-4) };
      return p;
    });
  keyStatus = (id?: string) =>
    this.respond("keyStatus", [id], () => (this.profiles.find((p) => p.current) ?? this.profiles[0])!.key);
  onProfilesChanged = (cb: Listener<Profile[]>) => (
    this.profileListeners.add(cb),
    () => void this.profileListeners.delete(cb)
  );

  getMe = () => this.respond("getMe", [], () => this.user);

  /** The server's users, for the admin's Users panel (`user` is not among them unless added). */
  users: User[] = [];
  listUsers = (q?: { limit?: number; after?: string }) =>
    this.respond("listUsers", [q], () => this.page(this.users, q?.limit, q?.after));
  createUser = (body: Parameters<HeadwaterBridge["createUser"]>[0]) =>
    this.respond("createUser", [body], () => {
      const user: User = {
        id: `u_new${this.users.length}`,
        username: body.username,
        email: body.email ?? "",
        admin: body.admin ?? false,
        disabled: false,
        quota_overrides: { daily_invocations_quota: null, daily_compute_time_quota: null },
      };
      this.users = [user, ...this.users];
      return { user, apiKey: `key_for_${body.username}` };
    });
  updateUser = (id: string, body: Parameters<HeadwaterBridge["updateUser"]>[1]) =>
    this.respond("updateUser", [id, body], () => {
      const u = this.users.find((x) => x.id === id);
      if (!u) throw this.notFound("user");
      const { daily_invocations_quota: inv, daily_compute_time_quota: cpu, ...flags } = body;
      Object.assign(u, flags);
      const own = (u.quota_overrides ??= { daily_invocations_quota: null, daily_compute_time_quota: null });
      if (inv !== undefined) own.daily_invocations_quota = inv;
      if (cpu !== undefined) own.daily_compute_time_quota = cpu;
      return u;
    });
  deleteUser = (id: string) =>
    this.respond("deleteUser", [id], () => {
      if (!this.users.some((u) => u.id === id)) throw this.notFound("user");
      this.users = this.users.filter((u) => u.id !== id);
    });
  rotateApiKey = () =>
    this.respond("rotateApiKey", [], () => ({ user: this.user, key: { isSet: true, lastFour: "wxyz" } }));

  listMyComponents = (q?: { limit?: number; after?: string }) =>
    this.respond("listMyComponents", [q], () => this.page(this.components, q?.limit, q?.after));
  createComponent = (body: { component_code?: string; component_url?: string }) =>
    this.respond("createComponent", [body], () => {
      const c = {
        ...TIMER_COMPONENT,
        id: `sc_new${this.components.length}`,
        code: body.component_code ?? "",
      };
      this.components.unshift(c);
      return c;
    });
  getComponent = (k: string) =>
    this.respond("getComponent", [k], () => {
      // A published component is readable by id too (as the server answers it), not by key.
      const c =
        this.components.find((x) => x.id === k || x.key === k) ??
        this.registry.find((x) => x.published && x.id === k);
      if (!c) throw this.notFound(`component ${k}`);
      return c;
    });
  /** Components only the registry has (looked up by key); the account's are found there too. */
  registry: Component[] = [];
  getRegistryComponent = (k: string) =>
    this.respond("getRegistryComponent", [k], () => {
      const c = [...this.registry, ...this.components].find((x) => x.key === k);
      if (!c) throw this.notFound(`registry component ${k}`);
      return c;
    });
  /** Per app name: the sources its vendor package lists (a search naming the app answers them). */
  appPackages: Record<string, ComponentMatch[]> = {};
  /** The registry's components whose key or name contains the query (the server also matches near spellings). */
  searchComponents = (q: ComponentSearchQuery = {}) =>
    this.respond("searchComponents", [q], (): ComponentSearch => {
      const text = (q.q ?? "").trim().toLowerCase();
      const data: ComponentMatch[] = this.registry
        .filter((c) => c.key && (c.key.includes(text) || c.name.toLowerCase().includes(text)))
        .map((c) => ({
          key: c.key!,
          name: c.name,
          description: c.description ?? null,
          type: "source",
          origin: "registry",
          match: !text ? "all" : c.key === text ? "exact" : c.key!.startsWith(text) ? "prefix" : "contains",
        }));
      const app = this.appPackages[text];
      if (app) data.push(...app.filter((m) => !data.some((d) => d.key === m.key)));
      return text && /^[a-z0-9_.]+$/.test(text)
        ? { data, app: { name: text, package: `@pipedream/${text}`, status: app ? "listed" : "not_found" } }
        : { data };
    });
  publishComponent = (id: string) =>
    this.respond("publishComponent", [id], () => ({
      ...this.components.find((c) => c.id === id)!,
      published: true,
    }));

  propOptions = (keyOrId: string, prop: string, body: PropOptionsBody = {}) =>
    this.respond("propOptions", [keyOrId, prop, body], () => {
      const answer = this.propChoices[prop];
      if (!answer)
        throw { status: 400, code: "no_options", message: `prop "${prop}" has no options` } as BridgeError;
      return typeof answer === "function" ? answer(body) : answer;
    });

  listMySources = (q?: { limit?: number; after?: string }) =>
    this.respond("listMySources", [q], () => this.page(this.sources, q?.limit, q?.after));
  createSource = (body: Parameters<HeadwaterBridge["createSource"]>[0]) =>
    this.respond("createSource", [body], () => {
      const s = makeSource(this.sources.length + 100, {
        name: body.name ?? "new-source",
        configured_props: body.configured_props ?? {},
      });
      this.sources.unshift(s);
      return s;
    });
  getSource = (id: string) =>
    this.respond("getSource", [id], () => {
      const s = this.sources.find((x) => x.id === id);
      if (!s) throw this.notFound(`source ${id}`);
      return s;
    });
  updateSource = (id: string, body: Parameters<HeadwaterBridge["updateSource"]>[1]) =>
    this.respond("updateSource", [id, body], () => {
      const i = this.sources.findIndex((x) => x.id === id);
      if (i < 0) throw this.notFound(`source ${id}`);
      const s = {
        ...this.sources[i]!,
        active: body.active ?? true,
        ...(body.name ? { name: body.name } : {}),
      };
      this.sources[i] = s;
      return s;
    });
  deleteSource = (id: string) =>
    this.respond("deleteSource", [id], () => void (this.sources = this.sources.filter((s) => s.id !== id)));

  /** Newest first; `q` matches the summary or the data's JSON (case-insensitive), as the server. */
  listSourceEvents = (id: string, q?: { limit?: number; event_name?: string; q?: string; after?: string }) =>
    this.respond("listSourceEvents", [id, q], () => {
      const needle = q?.q?.toLowerCase();
      const all = (this.events.get(id) ?? [])
        .filter((e) => e.metadata.name === (q?.event_name ?? ""))
        .filter((e) => !needle || `${e.metadata.summary ?? ""}${JSON.stringify(e.event)}`.toLowerCase().includes(needle))
        .sort((a, b) => compareEventIds(b.id, a.id));
      return this.page(all, q?.limit ?? 10, q?.after);
    });
  getSourceEvent = (sourceId: string, eventId: string, channel?: string) =>
    this.respond("getSourceEvent", [sourceId, eventId, channel], () => {
      const e = (this.events.get(sourceId) ?? []).find((x) => x.id === eventId);
      if (!e) throw this.notFound(`event ${eventId}`);
      return e;
    });
  deleteSourceEvents = (id: string, q?: { start_id?: string; end_id?: string; event_name?: string }) =>
    this.respond("deleteSourceEvents", [id, q], () => {
      const keep = (e: EventSummary) =>
        (q?.start_id !== undefined && compareEventIds(e.id, q.start_id) < 0) ||
        (q?.end_id !== undefined && compareEventIds(e.id, q.end_id) > 0);
      this.events.set(id, (this.events.get(id) ?? []).filter(keep));
      return { accepted: true };
    });
  listWorkflowEvents = (id: string, q?: { limit?: number; q?: string; after?: string }) =>
    this.respond("listWorkflowEvents", [id, q], () => {
      const needle = q?.q?.toLowerCase();
      const all = (this.events.get(id) ?? []).filter(
        (e) => !needle || `${e.metadata.summary ?? ""}${JSON.stringify(e.event)}`.toLowerCase().includes(needle),
      );
      return this.page(all, q?.limit ?? 10, q?.after);
    });
  listWorkflowErrors = (id: string, q?: object) =>
    this.respond("listWorkflowErrors", [id, q], () => this.page<EventSummary>([]));

  replaySourceEvents = (id: string, body?: ReplayEventsBody) =>
    this.respond("replaySourceEvents", [id, body], () => this.replayCount(id, body));
  replayWorkflowEvents = (id: string, body?: ReplayEventsBody) =>
    this.respond("replayWorkflowEvents", [id, body], () => this.replayCount(id, body));
  private replayCount(id: string, body: ReplayEventsBody = {}): ReplayResult {
    const channel = body.event_name ?? "";
    const events = (this.events.get(id) ?? []).filter(
      (e) =>
        e.metadata.name === channel &&
        (body.start_id === undefined || compareEventIds(e.id, body.start_id) >= 0) &&
        (body.end_id === undefined || compareEventIds(e.id, body.end_id) <= 0),
    ).length;
    const listeners = this.subscriptions.filter(
      (s) => s.emitter_id === id && s.event_name === channel && (!body.listener_id || s.listener_id === body.listener_id),
    ).length;
    if (body.listener_id && listeners === 0) throw this.notFound(`listener ${body.listener_id}`);
    return { events, deliveries: events * listeners };
  }
  getSourceStats = (id: string, q?: StatsQuery) =>
    this.respond("getSourceStats", [id, q], () => ({ bucket: q?.bucket ?? "minute", series: this.stats.get(id) ?? [] }));
  getWorkflowStats = (id: string, q?: StatsQuery) =>
    this.respond("getWorkflowStats", [id, q], () => ({ bucket: q?.bucket ?? "minute", series: this.stats.get(id) ?? [] }));

  listMySubscriptions = () => this.respond("listMySubscriptions", [], () => this.subscriptions);
  createSubscription = (p: { emitter_id: string; listener_id: string; event_name?: string }) =>
    this.respond("createSubscription", [p], () => {
      const s: Subscription = {
        id: `sub_${this.subscriptions.length + 1}`,
        emitter_id: p.emitter_id,
        listener_id: p.listener_id,
        event_name: p.event_name ?? "",
        created_at: 1_700_000_000,
      };
      this.subscriptions.push(s);
      return s;
    });
  deleteSubscription = (p: { emitter_id: string; listener_id: string; event_name?: string }) =>
    this.respond("deleteSubscription", [p], () => {
      this.subscriptions = this.subscriptions.filter(
        (s) => !(s.emitter_id === p.emitter_id && s.listener_id === p.listener_id),
      );
    });
  createAutoSubscription = (p: { event_name: string; listener_id: string }) =>
    this.respond("createAutoSubscription", [p], () => ({ id: "asub_1", ...p, created_at: 1_700_000_000 }));

  listMyWorkflows = (q?: { limit?: number; after?: string }) =>
    this.respond("listMyWorkflows", [q], () => this.page(this.workflows, q?.limit, q?.after));
  createWorkflow = (body: Parameters<HeadwaterBridge["createWorkflow"]>[0]) =>
    this.respond("createWorkflow", [body], () => {
      throw { status: 501, code: "not_implemented", message: "not in the fake" } satisfies BridgeError;
    }) as ReturnType<HeadwaterBridge["createWorkflow"]>;
  getWorkflow = (id: string) =>
    this.respond("getWorkflow", [id], () => {
      const w = this.workflows.find((x) => x.id === id);
      if (!w) throw this.notFound(`workflow ${id}`);
      return w;
    });
  updateWorkflow = (id: string, body: Parameters<HeadwaterBridge["updateWorkflow"]>[1]) =>
    this.respond("updateWorkflow", [id, body], () => {
      const i = this.workflows.findIndex((w) => w.id === id);
      const { steps, retry, schedules, http_auth, ...rest } = body;
      const prev = this.workflows[i]!;
      const w: Workflow = { ...prev, ...rest };
      // As the server answers them: a cron's zone UTC unless named; never a token.
      if (schedules)
        w.schedules = schedules.map((s) => ("cron" in s ? { cron: s.cron, timezone: s.timezone ?? "UTC" } : s));
      if (http_auth)
        w.http_auth = http_auth.type === "none" ? { type: "none" } : { type: "bearer", token_set: true };
      // A retry policy names only the fields it changes, as the server merges it.
      if (retry) w.retry = { max_attempts: 1, initial_delay_seconds: 5, max_delay_seconds: 3600, ...prev.retry, ...retry };
      if (steps) {
        w.steps = steps.map((st, n) => ({
          id: `s_${n}`,
          name: st.name ?? `step_${n + 1}`,
          code: st.action ? `// action ${st.action}` : (st.code ?? ""),
          ...(st.action ? { action: st.action, props: st.props ?? {} } : {}),
        }));
      }
      if (i >= 0) this.workflows[i] = w;
      return w;
    });
  /** Versions and drafts (`history.record(w, "create")` gives a workflow its first version). */
  history = new FakeVersions();
  private workflowOf(id: string): Workflow {
    const w = this.workflows.find((x) => x.id === id);
    if (!w) throw this.notFound(`workflow ${id}`);
    return w;
  }
  private store(w: Workflow): Workflow {
    this.workflows = this.workflows.map((x) => (x.id === w.id ? w : x));
    return w;
  }
  listWorkflowVersions = (id: string, q?: { limit?: number; after?: string }) =>
    this.respond("listWorkflowVersions", [id, q], () => {
      this.workflowOf(id);
      const all = this.history.list(id);
      return { page_info: { total_count: all.length, count: all.length, start_cursor: null, end_cursor: null }, data: all };
    });
  getWorkflowVersion = (id: string, n: number) =>
    this.respond("getWorkflowVersion", [id, n], () => this.history.get(id, n));
  restoreWorkflowVersion = (id: string, n: number, body: { message?: string; base_version?: number } = {}) =>
    this.respond("restoreWorkflowVersion", [id, n, body], () =>
      this.store(this.history.restore(this.workflowOf(id), n, body)),
    );
  getWorkflowDraft = (id: string) => this.respond("getWorkflowDraft", [id], () => this.history.draft(id));
  updateWorkflowDraft = (id: string, body: Parameters<HeadwaterBridge["updateWorkflowDraft"]>[1]) =>
    this.respond("updateWorkflowDraft", [id, body], () => this.history.update(this.workflowOf(id), body));
  discardWorkflowDraft = (id: string) =>
    this.respond("discardWorkflowDraft", [id], () => void this.history.drafts.delete(id));
  deployWorkflowDraft = (id: string, body: { message?: string; base_version?: number } = {}) =>
    this.respond("deployWorkflowDraft", [id, body], () => this.store(this.history.deploy(this.workflowOf(id), body)));

  deleteWorkflow = (id: string) =>
    this.respond(
      "deleteWorkflow",
      [id],
      () => void (this.workflows = this.workflows.filter((w) => w.id !== id)),
    );

  /** Runs per workflow, newest first (ids sort by age, as the server's). */
  runs = new Map<string, Run[]>();
  private rerunSeq = 0;
  listWorkflowRuns = (id: string, q?: RunListQuery) =>
    this.respond("listWorkflowRuns", [id, q], () => {
      const list = q?.test === true || q?.test === "true" ? (this.tests.runs.get(id) ?? []) : (this.runs.get(id) ?? []);
      const all = list.filter((r) => !q?.status || r.status === q.status);
      const page = this.page(all, Number(q?.limit ?? 10), q?.after);
      // Lists cut an event over 1 KB, as the server does, unless expand=event.
      return q?.expand === "event" ? page : { ...page, data: page.data.map(cutEvent) };
    });
  getWorkflowRun = (id: string, runId: string) =>
    this.respond("getWorkflowRun", [id, runId], () => {
      const r = [...(this.runs.get(id) ?? []), ...(this.tests.runs.get(id) ?? [])].find((x) => x.id === runId);
      if (!r) throw this.notFound(`run ${runId}`);
      return r;
    });
  /** Test runs (fakeTests.ts): of the draft's steps, else the workflow's. */
  tests = new FakeTests();
  testWorkflow = (id: string, body: TestRunBody = {}) =>
    this.respond("testWorkflow", [id, body], () => {
      const w = this.workflowOf(id);
      const steps = this.history.drafts.get(id)?.workflow.steps ?? w.steps;
      return this.tests.run(w, steps, body, this.runs.get(id) ?? []);
    });
  /** A new run (`r_run901`, `r_run902`...: newer than the runs tests make), kept first in the list. */
  rerunWorkflowRun = (id: string, runId: string, body: RerunBody = {}) =>
    this.respond("rerunWorkflowRun", [id, runId, body], () => {
      const r = (this.runs.get(id) ?? []).find((x) => x.id === runId);
      if (!r) throw this.notFound(`run ${runId}`);
      const next = rerunOf(r, body, `r_run${900 + ++this.rerunSeq}`);
      this.runs.set(id, [next, ...(this.runs.get(id) ?? [])]);
      return next;
    });

  /** Run now: a MANUAL run of the event (default {}), newest first; an inactive workflow is a 409. */
  runWorkflow = (id: string, body: { event?: unknown } = {}) =>
    this.respond("runWorkflow", [id, body], () => {
      const wf = this.workflows.find((w) => w.id === id);
      if (!wf) throw this.notFound(`workflow ${id}`);
      if (!wf.active)
        throw { status: 409, code: "workflow_inactive", message: `workflow ${id} is inactive` } satisfies BridgeError;
      const run = makeRun(900 + ++this.rerunSeq, {
        workflow_id: id,
        status: "queued",
        trigger: { type: "MANUAL" },
        event: body.event ?? {},
      });
      this.runs.set(id, [run, ...(this.runs.get(id) ?? [])]);
      return run;
    });

  /** Each schedule's next ticks from a fixed time (every interval, or hourly for a cron), merged. */
  nextScheduleTicks = (id: string, count = 5) =>
    this.respond("nextScheduleTicks", [id, count], () => {
      const wf = this.workflows.find((w) => w.id === id);
      if (!wf) throw this.notFound(`workflow ${id}`);
      const ticks = (wf.schedules ?? []).flatMap((s, i) =>
        Array.from({ length: count }, (_, n) => {
          const step = "interval_seconds" in s ? s.interval_seconds * 1000 : 3_600_000;
          const at = RUN_T0 + (n + 1) * step;
          const zone = "cron" in s ? s.timezone : "UTC";
          const iso = new Date(at).toISOString();
          return {
            schedule: i,
            at_ms: at,
            at: iso,
            timezone: zone,
            local: { date: iso.slice(0, 10), time: iso.slice(11, 19), weekday: "Tuesday", offset: "+00:00" },
          };
        }),
      );
      return ticks.sort((a, b) => a.at_ms - b.at_ms).slice(0, count);
    });

  /** The server's rule: a queued, retrying or delayed run is cancelled; any other is a 409. */
  cancelWorkflowRun = (id: string, runId: string) =>
    this.respond("cancelWorkflowRun", [id, runId], () => {
      const list = this.runs.get(id) ?? [];
      const i = list.findIndex((x) => x.id === runId);
      if (i < 0) throw this.notFound(`run ${runId}`);
      const r = list[i]!;
      if (r.status !== "queued" && r.status !== "retrying" && r.status !== "delayed")
        throw {
          status: 409,
          code: "run_not_cancellable",
          message: `run ${runId} is ${r.status}: only a queued, retrying or delayed run can be cancelled`,
        } satisfies BridgeError;
      const cancelled: Run = { ...r, status: "cancelled", next_attempt_at_ms: null, resume_at_ms: null };
      list[i] = cancelled;
      return cancelled;
    });

  /** What comparing a run answers, by the run's id (none: 404, as a server with no good run to compare with). */
  comparisons = new Map<string, RunComparison>();
  compareWorkflowRuns = (id: string, runId: string, withRun?: string) =>
    this.respond("compareWorkflowRuns", [id, runId, withRun], () => {
      const c = this.comparisons.get(runId);
      if (!c)
        throw {
          status: 404,
          code: "not_found",
          message: `no successful run of workflow ${id} other than ${runId} to compare it with`,
        } satisfies BridgeError;
      return c;
    });

  /** Connected accounts, newest first; the values each was given (the server's secret side). */
  accounts: Account[] = [];
  accountValues = new Map<string, Record<string, unknown>>();
  /** What uses an account: `deleteAccount` then answers 409 account_in_use with these details. */
  accountUsers = new Map<string, { path: string; message: string }[]>();
  private accountSeq = 0;
  createAccount = (body: Parameters<HeadwaterBridge["createAccount"]>[0]) =>
    this.respond("createAccount", [body], () => {
      const n = ++this.accountSeq;
      const a: Account = {
        ...makeAccount(1000 + n, { app: body.app, name: body.name ?? `${body.app} account ${n}` }),
        fields: Object.keys(body.auth),
      };
      this.accounts.unshift(a);
      this.accountValues.set(a.id, { ...body.auth });
      return a;
    });
  listMyAccounts = (q?: { limit?: number; after?: string; app?: string }) =>
    this.respond("listMyAccounts", [q], () =>
      this.page(
        this.accounts.filter((a) => !q?.app || a.app === q.app),
        q?.limit,
        q?.after,
      ),
    );
  getAccount = (id: string) =>
    this.respond("getAccount", [id], () => {
      const a = this.accounts.find((x) => x.id === id);
      if (!a) throw this.notFound(`account ${id}`);
      return a;
    });
  updateAccount = (id: string, body: Parameters<HeadwaterBridge["updateAccount"]>[1]) =>
    this.respond("updateAccount", [id, body], () => {
      const i = this.accounts.findIndex((x) => x.id === id);
      if (i < 0) throw this.notFound(`account ${id}`);
      const a: Account = {
        ...this.accounts[i]!,
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.auth !== undefined ? { fields: Object.keys(body.auth) } : {}),
        updated_at: this.accounts[i]!.updated_at + 1,
      };
      if (body.auth !== undefined) this.accountValues.set(id, { ...body.auth });
      this.accounts[i] = a;
      return a;
    });
  deleteAccount = (id: string) =>
    this.respond("deleteAccount", [id], () => {
      if (!this.accounts.some((a) => a.id === id)) throw this.notFound(`account ${id}`);
      const users = this.accountUsers.get(id);
      if (users?.length) {
        throw {
          status: 409,
          code: "account_in_use",
          message: `account ${id} is used by ${users.length} source(s) or step(s)`,
          details: users,
        } satisfies BridgeError;
      }
      this.accounts = this.accounts.filter((a) => a.id !== id);
      this.accountValues.delete(id);
    });

  /** Environment variables by name; a secret's value is kept here only (the server's secret side). */
  envVars: EnvVar[] = [];
  envSecretValues = new Map<string, string>();
  listMyEnvVars = () => this.respond("listMyEnvVars", [], () => [...this.envVars].sort((a, b) => a.name.localeCompare(b.name)));
  setEnvVar = (name: string, body: SetEnvBody) =>
    this.respond("setEnvVar", [name, body], () => {
      const secret = body.secret ?? true;
      const before = this.envVars.find((v) => v.name === name);
      const now = 1_700_000_000 + this.envVars.length;
      const v: EnvVar = { name, secret, ...(secret ? {} : { value: body.value }), created_at: before?.created_at ?? now, updated_at: now + 1 };
      this.envVars = [...this.envVars.filter((x) => x.name !== name), v];
      if (secret) this.envSecretValues.set(name, body.value);
      else this.envSecretValues.delete(name);
      return v;
    });
  deleteEnvVar = (name: string) =>
    this.respond("deleteEnvVar", [name], () => {
      if (!this.envVars.some((v) => v.name === name)) throw this.notFound(`environment variable ${name}`);
      this.envVars = this.envVars.filter((v) => v.name !== name);
      this.envSecretValues.delete(name);
    });

  /** Data stores, newest first, and their records by store id (key order kept on read). */
  dataStores: DataStore[] = [];
  storeRecords = new Map<string, DataStoreRecord[]>();
  /** Store ids that a source or step names: deleting one is refused (409). */
  storesInUse = new Map<string, Array<{ path: string; message: string }>>();
  listMyDataStores = (q?: PageQuery) =>
    this.respond("listMyDataStores", [q], () => this.page(this.dataStores.map((d) => this.sized(d)), q?.limit === undefined ? undefined : Number(q.limit), q?.after));
  createDataStore = (name: string) =>
    this.respond("createDataStore", [name], () => {
      const now = 1_700_000_000 + this.dataStores.length;
      const d: DataStore = { id: `ds_fake${this.dataStores.length + 1}`, name, keys: 0, bytes: 0, created_at: now, updated_at: now };
      this.dataStores = [d, ...this.dataStores];
      return d;
    });
  renameDataStore = (id: string, name: string) =>
    this.respond("renameDataStore", [id, name], () => {
      const d = this.dataStores.find((x) => x.id === id);
      if (!d) throw this.notFound(`data store ${id}`);
      d.name = name;
      return this.sized(d);
    });
  deleteDataStore = (id: string) =>
    this.respond("deleteDataStore", [id], () => {
      if (!this.dataStores.some((d) => d.id === id)) throw this.notFound(`data store ${id}`);
      const users = this.storesInUse.get(id);
      if (users?.length)
        throw { status: 409, code: "data_store_in_use", message: `data store ${id} is in use by ${users.map((u) => u.message).join("; ")}`, details: users } satisfies BridgeError;
      this.dataStores = this.dataStores.filter((d) => d.id !== id);
      this.storeRecords.delete(id);
    });
  listDataStoreRecords = (id: string, q?: RecordListQuery) =>
    this.respond("listDataStoreRecords", [id, q], () => {
      const all = this.recordsOf(id).filter((r) => !q?.prefix || r.key.startsWith(q.prefix));
      const limit = Number(q?.limit ?? 10);
      const start = q?.after ? all.findIndex((r) => r.key === q.after) + 1 : 0;
      const data = all.slice(start, start + limit);
      return {
        page_info: { total_count: all.length, count: data.length, start_cursor: data[0]?.key ?? null, end_cursor: data[data.length - 1]?.key ?? null },
        data,
      };
    });
  putDataStoreRecord = (id: string, key: string, body: PutRecordBody) =>
    this.respond("putDataStoreRecord", [id, key, body], () => {
      const rec: DataStoreRecord = { key, value: body.value, expires_at_ms: body.ttl_seconds ? Date.now() + body.ttl_seconds * 1000 : null };
      this.storeRecords.set(id, [...this.recordsOf(id).filter((r) => r.key !== key), rec]);
      return rec;
    });
  deleteDataStoreRecord = (id: string, key: string) =>
    this.respond("deleteDataStoreRecord", [id, key], () => {
      if (!this.recordsOf(id).some((r) => r.key === key)) throw this.notFound(`record ${key}`);
      this.storeRecords.set(id, this.recordsOf(id).filter((r) => r.key !== key));
    });
  private recordsOf(id: string): DataStoreRecord[] {
    if (!this.dataStores.some((d) => d.id === id)) throw this.notFound(`data store ${id}`);
    return [...(this.storeRecords.get(id) ?? [])].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  }
  private sized(d: DataStore): DataStore {
    const recs = this.storeRecords.get(d.id) ?? [];
    return { ...d, keys: recs.length, bytes: recs.reduce((n, r) => n + r.key.length + JSON.stringify(r.value).length, 0) };
  }

  /** Actions by app (`""`: the account's own, listed first for every app). */
  actions: Record<string, Action[]> = {};
  listActions = (q: ActionsQuery = {}) =>
    this.respond("listActions", [q], () => {
      const own = this.actions[""] ?? [];
      const all = q.app ? [...own, ...(this.actions[q.app] ?? [])] : own;
      const needle = q.q?.toLowerCase();
      return needle
        ? all.filter((a) => `${a.key} ${a.name} ${a.description ?? ""}`.toLowerCase().includes(needle))
        : all;
    });
  getAction = (key: string) =>
    this.respond("getAction", [key], () => {
      const a = Object.values(this.actions).flat().find((x) => x.key === key);
      if (!a) throw this.notFound(`action ${key}`);
      return a;
    });
  /** What `runAction` answers (a function sees the body). */
  actionResult: ActionResult | ((body: RunActionBody) => ActionResult) = {
    ret: { ok: true },
    exports: {},
    summary: "Done",
    logs: [],
    error: null,
    duration_ms: 5,
  };
  runAction = (body: RunActionBody) =>
    this.respond("runAction", [body], () =>
      typeof this.actionResult === "function" ? this.actionResult(body) : this.actionResult,
    );
  /** Choices per prop name for `actionOptions`; others answer 400 no_options. */
  actionChoices: Record<string, ActionOptions> = {};
  actionOptions = (body: ActionOptionsBody) =>
    this.respond("actionOptions", [body], () => {
      const answer = this.actionChoices[body.prop_name];
      if (!answer)
        throw { status: 400, code: "no_options", message: `prop "${body.prop_name}" has no options` } as BridgeError;
      return answer;
    });

  /** What `sendTestRequest` answers; each request is also kept in `testRequests` (newest first). */
  testResponse: TestResponse = {
    url: "http://127.0.0.1:7433/e/dc_src1",
    status: 200,
    statusText: "OK",
    headers: [["content-type", "application/json"]],
    body: '{"ok":true}',
    truncated: false,
    durationMs: 12,
  };
  testRequests = new Map<string, SavedTestRequest[]>();
  sendTestRequest = (emitterId: string, request: TestRequestInput) =>
    this.respond("sendTestRequest", [emitterId, request], () => {
      const kept = {
        ...request,
        headers: request.headers.filter((h) => !/auth|key|token|secret/i.test(h.name)),
        sentAt: Date.now(),
      };
      this.testRequests.set(emitterId, [kept, ...(this.testRequests.get(emitterId) ?? [])].slice(0, 5));
      return this.testResponse;
    });
  listTestRequests = (emitterId: string) =>
    this.respond("listTestRequests", [emitterId], () => this.testRequests.get(emitterId) ?? []);

  /** What `testAgentConnection` answers (`fail("testAgentConnection", ...)` for a refusal). */
  agentTest: AgentConnectionTest = {
    url: "http://127.0.0.1:7433/mcp",
    protocolVersion: "2026-07-28",
    server: { name: "headwater", version: "1.0.0" },
    tools: [
      { name: "whoami", description: "The Headwater user this connection acts as." },
      { name: "list_sources", description: "The user's sources, newest first." },
      { name: "wait_for_events", description: "Waits for new events of a source or workflow." },
    ],
  };
  testAgentConnection = () => this.respond("testAgentConnection", [], () => this.agentTest);

  watch = (emitterId: string, channel: string) =>
    this.respond("watch", [emitterId, channel], () => {
      const id = `w${++this.watchSeq}`;
      this.watches.set(id, { emitterId, channel });
      return id;
    });
  watchRuns = (workflowId: string) =>
    this.respond("watchRuns", [workflowId], () => {
      const id = `w${++this.watchSeq}`;
      this.watches.set(id, { emitterId: workflowId, channel: RUNS });
      return id;
    });
  unwatch = (watchId: string) => this.respond("unwatch", [watchId], () => void this.watches.delete(watchId));
  onStreamBatch = (cb: Listener<StreamBatch>) => (
    this.batchListeners.add(cb),
    () => void this.batchListeners.delete(cb)
  );
  onRunBatch = (cb: Listener<RunBatch>) => (
    this.runBatchListeners.add(cb),
    () => void this.runBatchListeners.delete(cb)
  );
  onStreamState = (cb: Listener<StreamStateUpdate>) => (
    this.stateListeners.add(cb),
    () => void this.stateListeners.delete(cb)
  );
}
