/**
 * The typed HTTP client of the v1 API: one method per endpoint, responses parsed with the shared
 * schemas. Works in Node and in the browser; pass `fetch` to use another implementation.
 */
import * as z from "../zod.js";
import type { ComponentSearchQuery } from "../resources/index.js";
import {
  Account,
  Action,
  ActionOptions,
  ActionResult,
  AutoSubscription,
  Component,
  ComponentSearch,
  EventSummary,
  Page,
  PropOptions,
  ReplayResult,
  Run,
  Source,
  Stats,
  Subscription,
  User,
  Workflow,
  type AccountListQuery,
  type ActionOptionsBody,
  type ActionsQuery,
  type RunActionBody,
  type AutoSubscriptionParams,
  type CreateAccountBody,
  type CreateSourceBody,
  type CreateUserBody,
  type CreateWorkflowBody,
  type DeleteEventsQuery,
  type EventListQuery,
  type PageQuery,
  type PropOptionsBody,
  type ReplayEventsBody,
  type RerunBody,
  type RunListQuery,
  type StatsQuery,
  type SubscriptionParams,
  type UpdateAccountBody,
  type UpdateSourceBody,
  type UpdateUserBody,
  type UpdateWorkflowBody,
  type TestRunBody,
} from "../resources/index.js";
import { Data, enc, makeRequester, pageQuery, type RequestOptions } from "./request.js";
import { workflowBuildingMethods } from "./workflow-building.js";
import { envMethods } from "./env.js";
import { workflowTriggerMethods } from "./workflow-triggers.js";
import { dataStoreMethods } from "./data-stores.js";

export { ApiError } from "./error.js";

export interface ClientOptions {
  /** The API base, ending in `/v1` (e.g. `http://127.0.0.1:7433/v1`). */
  baseUrl: string;
  apiKey: string;
  fetch?: FetchLike;
  /** Per-request time limit in milliseconds (default 30 s; 0: none, for an in-process client). */
  timeoutMs?: number;
  /**
   * Whether answers are checked against the shared schemas (default true). An in-process client
   * of this server's own routes (server/mcp/inject.ts) takes them as they come: they were just
   * written by the handlers the API suite checks with a validating client.
   */
  validate?: boolean;
}

/**
 * What the client needs of `fetch` (Node's own, the browser's, or a smaller one over node:http).
 * An answer may also hand over its body already parsed (`parsed`), sparing the text.
 */
export type FetchLike = (
  url: URL,
  init: { method: string; headers: Record<string, string>; body: string | undefined; signal?: AbortSignal },
) => Promise<Pick<Response, "ok" | "status" | "text"> & { parsed?: () => unknown }>;

/** A test run is answered within 60 s (202 with the run as it is then): the client waits a little longer. */
const TEST_RUN_TIMEOUT_MS = 75_000;

const Accepted = z.object({ data: z.object({ accepted: z.boolean() }) });

export type Client = ReturnType<typeof createClient>;

export function createClient(options: ClientOptions) {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const request = makeRequester(baseUrl, options);

  const page = pageQuery;

  const client = {
    baseUrl,

    // -- users ---------------------------------------------------------------------------------
    getMe: async () => (await request("GET", "/users/me", Data(User))).data,
    rotateApiKey: async () => (await request("POST", "/users/me/api_key", Data(User))).data,
    listMySources: (q?: PageQuery) => request("GET", "/users/me/sources/", Page(Source), { query: page(q) }),
    listMySubscriptions: async () =>
      (await request("GET", "/users/me/subscriptions", Data(z.array(Subscription)))).data,
    listMyComponents: (q?: PageQuery) =>
      request("GET", "/users/me/components", Page(Component), { query: page(q) }),
    listMyWorkflows: (q?: PageQuery) =>
      request("GET", "/users/me/workflows", Page(Workflow), { query: page(q) }),
    createUser: async (body: CreateUserBody) => (await request("POST", "/users", Data(User), { body })).data,
    listUsers: (q?: PageQuery) => request("GET", "/users", Page(User), { query: page(q) }),
    /** Admin: one user, with `disabled` and `quota_overrides`. */
    getUser: async (id: string) => (await request("GET", `/users/${enc(id)}`, Data(User))).data,
    /** Admin: change only the fields given; a quota of `null` goes back to the server default. */
    updateUser: async (id: string, body: UpdateUserBody) =>
      (await request("PATCH", `/users/${enc(id)}`, Data(User), { body })).data,
    /** Admin: delete the user and everything they own (their endpoints answer 404 at once). */
    deleteUser: (id: string) => request("DELETE", `/users/${enc(id)}`, null),

    // -- components ------------------------------------------------------------------------------
    createComponent: async (body: { component_code?: string; component_url?: string }) =>
      (await request("POST", "/components", Data(Component), { body })).data,
    getComponent: async (keyOrId: string) =>
      (await request("GET", `/components/${enc(keyOrId)}`, Data(Component))).data,
    getRegistryComponent: async (key: string) =>
      (await request("GET", `/components/registry/${enc(key)}`, Data(Component))).data,
    /** Components the server knows whose key or name matches `q`; an app's name fetches its vendor package. */
    searchComponents: (q: ComponentSearchQuery = {}) =>
      request("GET", "/components/search", ComponentSearch, { query: { ...q } }),
    publishComponent: async (id: string) =>
      (await request("POST", `/components/${enc(id)}/publish`, Data(Component))).data,
    /** A prop's choices from its `options()`, given the props configured so far: `{data, context}`. */
    propOptions: (keyOrId: string, prop: string, body: PropOptionsBody = {}) =>
      request("POST", `/components/${enc(keyOrId)}/props/${enc(prop)}/options`, PropOptions, { body }),

    // -- sources ---------------------------------------------------------------------------------
    createSource: async (body: CreateSourceBody) =>
      (await request("POST", "/sources/", Data(Source), { body })).data,
    getSource: async (id: string) => (await request("GET", `/sources/${enc(id)}`, Data(Source))).data,
    updateSource: async (id: string, body: UpdateSourceBody) =>
      (await request("PUT", `/sources/${enc(id)}`, Data(Source), { body })).data,
    deleteSource: (id: string) => request("DELETE", `/sources/${enc(id)}`, null),

    // -- events ----------------------------------------------------------------------------------
    // Lists take `q` too: only events whose data or summary contains it (case-insensitive).
    listSourceEvents: (id: string, q?: EventListQuery) =>
      request("GET", `/sources/${enc(id)}/event_summaries`, Page(EventSummary), {
        query: { ...q },
      }),
    deleteSourceEvents: async (id: string, q?: DeleteEventsQuery) =>
      (await request("DELETE", `/sources/${enc(id)}/events`, Accepted, { query: { ...q } })).data,
    listWorkflowEvents: (id: string, q?: EventListQuery) =>
      request("GET", `/workflows/${enc(id)}/event_summaries`, Page(EventSummary), {
        query: { ...q },
      }),
    listWorkflowErrors: (id: string, q?: EventListQuery) =>
      request("GET", `/workflows/${enc(id)}/$errors/event_summaries`, Page(EventSummary), {
        query: { ...q },
      }),

    /**
     * Delivers a source's retained events (a channel's range, as for deletes; all by default)
     * again to the channel's listeners, or to `listener_id` only. Resolves once they are queued.
     */
    replaySourceEvents: async (id: string, body: ReplayEventsBody = {}) =>
      (await request("POST", `/sources/${enc(id)}/events/replay`, Data(ReplayResult), { body })).data,
    replayWorkflowEvents: async (id: string, body: ReplayEventsBody = {}) =>
      (await request("POST", `/workflows/${enc(id)}/events/replay`, Data(ReplayResult), { body })).data,
    /** Events, errors, logs, invocations and compute ms per bucket (default: the last hour by minute). */
    getSourceStats: async (id: string, q?: StatsQuery) =>
      (await request("GET", `/sources/${enc(id)}/stats`, Data(Stats), { query: { ...q } })).data,
    getWorkflowStats: async (id: string, q?: StatsQuery) =>
      (await request("GET", `/workflows/${enc(id)}/stats`, Data(Stats), { query: { ...q } })).data,

    // -- subscriptions ---------------------------------------------------------------------------
    createSubscription: async (params: SubscriptionParams) =>
      (await request("POST", "/subscriptions", Data(Subscription), { query: { ...params } })).data,
    deleteSubscription: (params: SubscriptionParams) =>
      request("DELETE", "/subscriptions", null, { query: { ...params } }),
    createAutoSubscription: async (params: AutoSubscriptionParams) =>
      (await request("POST", "/auto_subscriptions", Data(AutoSubscription), { query: { ...params } })).data,

    // -- connected accounts (extension): values go in, only field names come back ----------------
    createAccount: async (body: CreateAccountBody) =>
      (await request("POST", "/accounts", Data(Account), { body })).data,
    listMyAccounts: (q?: AccountListQuery) =>
      request("GET", "/users/me/accounts", Page(Account), { query: { ...page(q), app: q?.app } }),
    getAccount: async (id: string) => (await request("GET", `/accounts/${enc(id)}`, Data(Account))).data,
    updateAccount: async (id: string, body: UpdateAccountBody) =>
      (await request("PATCH", `/accounts/${enc(id)}`, Data(Account), { body })).data,
    deleteAccount: (id: string) => request("DELETE", `/accounts/${enc(id)}`, null),

    // -- environment variables (extension): a secret's value is never answered (env.ts) ----------
    ...envMethods(request),
    ...workflowTriggerMethods(request),

    // -- data stores (extension): stores and their records by key (data-stores.ts) --------------
    ...dataStoreMethods(request),

    // -- workflows (extension) -------------------------------------------------------------------
    createWorkflow: async (body: CreateWorkflowBody) =>
      (await request("POST", "/workflows", Data(Workflow), { body })).data,
    getWorkflow: async (id: string) => (await request("GET", `/workflows/${enc(id)}`, Data(Workflow))).data,
    updateWorkflow: async (id: string, body: UpdateWorkflowBody) =>
      (await request("PUT", `/workflows/${enc(id)}`, Data(Workflow), { body })).data,
    deleteWorkflow: (id: string) => request("DELETE", `/workflows/${enc(id)}`, null),

    // -- building workflows (extension): versions, the draft and test runs (workflow-building.ts)
    ...workflowBuildingMethods(request),

    // -- workflow runs (extension): newest first, `status=` filters ------------------------------
    listWorkflowRuns: (id: string, q?: RunListQuery) =>
      request("GET", `/workflows/${enc(id)}/runs`, Page(Run), { query: { ...q } }),
    getWorkflowRun: async (id: string, runId: string) =>
      (await request("GET", `/workflows/${enc(id)}/runs/${enc(runId)}`, Data(Run))).data,
    /** Cancels a queued, retrying or delayed run (409 `run_not_cancellable` otherwise). */
    cancelWorkflowRun: async (id: string, runId: string) =>
      (await request("POST", `/workflows/${enc(id)}/runs/${enc(runId)}/cancel`, Data(Run))).data,
    /**
     * A test run of the draft (or current version, or `steps`): nothing it produces is sent.
     * Ended, or (after 60 s) as it is then.
     */
    testWorkflow: async (id: string, body: TestRunBody = {}) =>
      (
        await request("POST", `/workflows/${enc(id)}/test`, Data(Run), {
          body,
          timeoutMs: TEST_RUN_TIMEOUT_MS,
        })
      ).data,
    /** A new run of the same event; with `from_step`, the steps before it are reused. */
    rerunWorkflowRun: async (id: string, runId: string, body: RerunBody = {}) =>
      (await request("POST", `/workflows/${enc(id)}/runs/${enc(runId)}/rerun`, Data(Run), { body })).data,

    // -- actions (extension) ---------------------------------------------------------------------
    /** An app's actions (its package is installed on first use: allow for a slow first answer). */
    listActions: async (q: ActionsQuery = {}) =>
      (
        await request("GET", "/actions", z.object({ data: z.array(Action) }), {
          query: { app: q.app, q: q.q },
        })
      ).data,
    getAction: async (key: string) => (await request("GET", `/actions/${enc(key)}`, Data(Action))).data,
    /** A thrown error is the result's `error` (the request succeeds). */
    runAction: async (body: RunActionBody) =>
      (await request("POST", "/actions/run", Data(ActionResult), { body })).data,
    actionOptions: async (body: ActionOptionsBody) =>
      (await request("POST", "/actions/options", Data(ActionOptions), { body })).data,

    /** The SSE URL of a source's emits: at the host, without the `/v1` segment (spec §4). */
    sourceStreamUrl: (id: string, kind: "emits" | "observations" = "emits") => {
      const host = new URL(baseUrl).origin;
      return kind === "emits" ? `${host}/sources/${enc(id)}/sse` : `${host}/sse/dc/${enc(id)}/observations`;
    },
    /** The SSE URL of a workflow's emits: at the host, like a source's. */
    workflowStreamUrl: (id: string) => `${new URL(baseUrl).origin}/workflows/${enc(id)}/sse`,
    /** The SSE URL of a workflow's runs: each message's data is a Run (as in lists) when it starts or changes. */
    workflowRunsStreamUrl: (id: string) => `${new URL(baseUrl).origin}/workflows/${enc(id)}/runs/sse`,

    /** Low-level escape hatch for tests and tools: any method and path under the base URL. */
    raw: (method: string, path: string, opts?: RequestOptions) => request(method, path, z.unknown(), opts),
  };
  return client;
}

/**
 * Iterates every item of a paginated list, newest first, following `end_cursor` with `after`.
 * Example: `for await (const s of pages((q) => client.listMySources(q))) ...`
 */
export async function* pages<T>(
  fetchPage: (
    q: PageQuery,
  ) => Promise<{ page_info: { end_cursor: string | null; count: number }; data: T[] }>,
  limit = 100,
): AsyncGenerator<T> {
  let after: string | undefined;
  for (;;) {
    const page = await fetchPage({ limit, after });
    yield* page.data;
    if (page.data.length < limit || !page.page_info.end_cursor) return;
    after = page.page_info.end_cursor;
  }
}
