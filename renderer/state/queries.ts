/**
 * Server state over the bridge, with react-query: one hook per read, mutations that update or
 * invalidate exactly the lists they change. Query keys start with the resource kind.
 */
import { useMutation, useQuery, useQueryClient, type Query, type QueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import type { Account, PageQuery, RecordListQuery, Source, Workflow } from "../../shared/resources/index.js";
import type { Page } from "../../shared/resources/index.js";
import { call } from "./bridge.js";

export const keys = {
  profiles: ["profiles"] as const,
  host: ["host"] as const,
  me: ["me"] as const,
  sources: (q?: PageQuery) => ["sources", "page", q ?? {}] as const,
  allSources: ["sources", "all"] as const,
  allWorkflows: ["workflows", "all"] as const,
  source: (id: string) => ["source", id] as const,
  components: (q?: PageQuery) => ["components", "page", q ?? {}] as const,
  component: (keyOrId: string) => ["component", keyOrId] as const,
  subscriptions: ["subscriptions"] as const,
  workflows: (q?: PageQuery) => ["workflows", "page", q ?? {}] as const,
  workflow: (id: string) => ["workflow", id] as const,
  users: (q?: PageQuery) => ["users", "page", q ?? {}] as const,
  allUsers: ["users"] as const,
  /** Every connected account of the user (the panel and the source form's pickers share it). */
  accounts: ["accounts"] as const,
  /** The user's environment variables (a secret's value is never among them). */
  env: ["env"] as const,
  /** The user's data stores (a page), and one store's records (a page, by prefix). */
  dataStores: (q?: PageQuery) => ["data_stores", "page", q ?? {}] as const,
  storeRecords: (id: string, q?: RecordListQuery) => ["data_stores", "records", id, q ?? {}] as const,
};

const isServerData = (q: Query) => q.queryKey[0] !== "profiles" && q.queryKey[0] !== "host";

/**
 * Server data of one connection must never show under another. On a switch, answers still in
 * flight from the old connection are cancelled (they must not land), and every query goes back to
 * "no data"; the views on screen refetch from the new connection. Queries are reset, not removed:
 * a mounted view keeps observing its query, so it sees the new answer (or error) when it comes.
 */
export async function resetForProfileSwitch(qc: QueryClient): Promise<void> {
  await qc.cancelQueries({ predicate: isServerData });
  await qc.resetQueries({ predicate: isServerData });
}

// -- host and profiles --------------------------------------------------------------------------

export const useHostInfo = () =>
  useQuery({ queryKey: keys.host, queryFn: () => call("hostInfo"), staleTime: Infinity });
export const useProfiles = () => useQuery({ queryKey: keys.profiles, queryFn: () => call("listProfiles") });
export const useMe = (enabled = true) =>
  useQuery({ queryKey: keys.me, queryFn: () => call("getMe"), enabled });

/** Admins: a page of the server's users. */
export const useUsersPage = (q: PageQuery, enabled = true) =>
  useQuery({
    queryKey: keys.users(q),
    queryFn: () => call("listUsers", q),
    enabled,
    placeholderData: (prev) => prev,
  });

// -- sources ----------------------------------------------------------------------------------

export const useSourcesPage = (q: PageQuery) =>
  useQuery({
    queryKey: keys.sources(q),
    queryFn: () => call("listMySources", q),
    placeholderData: (prev) => prev,
  });

/** Every item of a paginated list, following cursors; bounded to 2,000. */
async function readAll<T>(read: (q: PageQuery) => Promise<Page<T>>): Promise<T[]> {
  const all: T[] = [];
  let after: string | undefined;
  for (let i = 0; i < 20; i++) {
    const page = await read({ limit: 100, after });
    all.push(...page.data);
    if (page.data.length < 100 || !page.page_info.end_cursor) break;
    after = page.page_info.end_cursor;
  }
  return all;
}

/** Every source (for search and pickers). */
export const useAllSources = (enabled: boolean) =>
  useQuery({
    queryKey: keys.allSources,
    enabled,
    queryFn: () => readAll<Source>((q) => call("listMySources", q)),
  });

/** Every workflow (for pickers and the flow view). */
export const useAllWorkflows = (enabled = true) =>
  useQuery({
    queryKey: keys.allWorkflows,
    enabled,
    queryFn: () => readAll<Workflow>((q) => call("listMyWorkflows", q)),
  });

/** Sources' and workflows' names by id (and the globs in words), to say names rather than ids. */
export function useEmitterNames(): Map<string, string> {
  const sources = useAllSources(true);
  const workflows = useAllWorkflows();
  return useMemo(() => {
    const m = new Map<string, string>([
      ["p_*", "all workflows"],
      ["dc_*", "all sources"],
    ]);
    for (const s of sources.data ?? []) m.set(s.id, s.name);
    for (const w of workflows.data ?? []) m.set(w.id, w.name);
    return m;
  }, [sources.data, workflows.data]);
}

export const useSource = (id: string | null) =>
  useQuery({ queryKey: keys.source(id ?? ""), queryFn: () => call("getSource", id ?? ""), enabled: !!id });

/** Writes a changed source into every cached list and its own entry. */
export function patchSourceInCache(qc: QueryClient, source: Source): void {
  qc.setQueryData(keys.source(source.id), source);
  qc.setQueriesData<Page<Source>>({ queryKey: ["sources", "page"] }, (page) =>
    page ? { ...page, data: page.data.map((s) => (s.id === source.id ? source : s)) } : page,
  );
  qc.setQueryData<Source[]>(keys.allSources, (all) => all?.map((s) => (s.id === source.id ? source : s)));
}

/**
 * The active switch: the change shows at once, is sent as `PUT /sources/{id}` with the
 * component reference the API requires, and is rolled back if the host reports an error.
 */
export function useSetSourceActive() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { source: Source; active: boolean }) =>
      call("updateSource", v.source.id, { component_id: v.source.component_id, active: v.active }),
    onMutate: async (v) => {
      await qc.cancelQueries({ queryKey: ["sources"] });
      await qc.cancelQueries({ queryKey: keys.source(v.source.id) });
      const previous = v.source;
      patchSourceInCache(qc, { ...v.source, active: v.active });
      return { previous };
    },
    onError: (_err, _v, ctx) => {
      if (ctx) patchSourceInCache(qc, ctx.previous);
    },
    onSuccess: (saved) => patchSourceInCache(qc, saved),
  });
}

export function useUpdateSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (v: { source: Source; name?: string; configured_props?: Record<string, unknown> }) =>
      call("updateSource", v.source.id, {
        component_id: v.source.component_id,
        active: v.source.active,
        ...(v.name !== undefined ? { name: v.name } : {}),
        ...(v.configured_props !== undefined ? { configured_props: v.configured_props } : {}),
      }),
    onSuccess: (saved, v) => {
      patchSourceInCache(qc, saved);
      // Props may now use another account, or a new one the server made from inline `$auth`.
      if (v.configured_props !== undefined) void qc.invalidateQueries({ queryKey: keys.accounts });
    },
  });
}

export function useCreateSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: Parameters<typeof call<"createSource">>[1]) => call("createSource", body),
    onSuccess: (s) => {
      qc.setQueryData(keys.source(s.id), s);
      void qc.invalidateQueries({ queryKey: ["sources"] });
      // Its accounts are used once more (and inline `$auth` became a new account).
      void qc.invalidateQueries({ queryKey: keys.accounts });
    },
  });
}

export function useDeleteSource() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => call("deleteSource", id),
    onSuccess: (_v, id) => {
      qc.removeQueries({ queryKey: keys.source(id) });
      void qc.invalidateQueries({ queryKey: ["sources"] });
      void qc.invalidateQueries({ queryKey: keys.subscriptions });
      void qc.invalidateQueries({ queryKey: keys.accounts });
    },
  });
}

// -- components -------------------------------------------------------------------------------

export const useComponentsPage = (q: PageQuery) =>
  useQuery({
    queryKey: keys.components(q),
    queryFn: () => call("listMyComponents", q),
    placeholderData: (p) => p,
  });

export const useComponent = (keyOrId: string | null) =>
  useQuery({
    queryKey: keys.component(keyOrId ?? ""),
    queryFn: () => call("getComponent", keyOrId ?? ""),
    enabled: !!keyOrId,
    retry: false,
  });

// -- subscriptions ----------------------------------------------------------------------------

export const useSubscriptions = () =>
  useQuery({ queryKey: keys.subscriptions, queryFn: () => call("listMySubscriptions") });

// -- workflows --------------------------------------------------------------------------------

export const useWorkflowsPage = (q: PageQuery) =>
  useQuery({
    queryKey: keys.workflows(q),
    queryFn: () => call("listMyWorkflows", q),
    placeholderData: (p) => p,
  });

export const useWorkflow = (id: string | null) =>
  useQuery({
    queryKey: keys.workflow(id ?? ""),
    queryFn: () => call("getWorkflow", id ?? ""),
    enabled: !!id,
  });

// -- environment variables --------------------------------------------------------------------

/** Every environment variable of the user, by name. */
export const useEnvVars = () => useQuery({ queryKey: keys.env, queryFn: () => call("listMyEnvVars") });

// -- data stores ------------------------------------------------------------------------------

/** A page of the user's data stores, newest first. */
export const useDataStores = (q: PageQuery) =>
  useQuery({
    queryKey: keys.dataStores(q),
    queryFn: () => call("listMyDataStores", q),
    placeholderData: (prev) => prev,
  });

/** A page of a store's records in key order (by prefix); none while no store is chosen. */
export const useStoreRecords = (id: string | null, q: RecordListQuery) =>
  useQuery({
    queryKey: keys.storeRecords(id ?? "", q),
    queryFn: () => call("listDataStoreRecords", id ?? "", q),
    enabled: !!id,
  });

// -- connected accounts -----------------------------------------------------------------------

/**
 * Every account of the user, newest first (the panel groups them by app, the source form keeps
 * one app's). One list for both: a few dozen accounts at most, where a per-app query would
 * refetch for every app prop on screen.
 */
export const useAllAccounts = (enabled = true) =>
  useQuery({
    queryKey: keys.accounts,
    enabled,
    queryFn: () => readAll<Account>((q) => call("listMyAccounts", q)),
  });
