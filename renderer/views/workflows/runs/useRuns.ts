/**
 * A workflow's runs, live: the newest page over the bridge (`listWorkflowRuns`, with the status
 * filter), and every change the host's runs feed (`watchRuns`) reports, merged by run id. The
 * stream has no backlog, so the feed is started with the list, not after it: a run that starts
 * while the list is on its way is in one or the other (or both: one row either way).
 *
 * Listed runs are kept per query (workflow, status, reload): another filter starts a fresh list,
 * whose rows would otherwise sit beside gaps. Runs the feed reported are kept for as long as the
 * feed runs, whatever the filter, so none is lost while a list loads.
 *
 * A server without runs (the hosted service, an older server) answers the list with 404:
 * `unsupported` is then true.
 */
import { useCallback, useEffect, useMemo, useState } from "react";
import type { RunBatch, StreamStateUpdate } from "../../../../shared/bridge.js";
import type { Run, RunStatus } from "../../../../shared/resources/index.js";
import { BridgeCallError, call, getBridge } from "../../../state/bridge.js";
import { newerCopy, newestFirst } from "./runText.js";

/** Runs per page of the list (and of "Load older runs"). */
export const RUNS_PAGE = 50;
/** Runs kept on screen: the server keeps 1,000 per workflow by default. */
const MAX_ROWS = 1000;

export interface RunsFeed {
  /** Newest first, of the filter's status (all when none). */
  runs: Run[];
  loading: boolean;
  error: unknown;
  /** The server has no runs endpoint. */
  unsupported: boolean;
  /** The live feed's latest state (null before the first). */
  state: StreamStateUpdate | null;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore: () => void;
  /** Re-reads the list and restarts the feed. */
  restart: () => void;
  /** Puts a run the page learnt of itself (a re-run's answer) among the others. */
  add: (run: Run) => void;
  /** A run known to the page, whatever the filter (an open run the filter no longer shows). */
  get: (id: string) => Run | undefined;
}

interface ListState {
  /** The query these rows answer: `workflowId|status|generation`. */
  key: string;
  byId: Map<string, Run>;
  loading: boolean;
  error: unknown;
  cursor: string | null;
  loadingMore: boolean;
}
const emptyList = (key: string): ListState => ({
  key,
  byId: new Map(),
  loading: true,
  error: null,
  cursor: null,
  loadingMore: false,
});

function merge(byId: ReadonlyMap<string, Run>, runs: readonly Run[]): Map<string, Run> {
  const next = new Map(byId);
  for (const r of runs) next.set(r.id, newerCopy(next.get(r.id), r));
  if (next.size <= MAX_ROWS) return next;
  return new Map(
    [...next.values()]
      .sort(newestFirst)
      .slice(0, MAX_ROWS)
      .map((r) => [r.id, r]),
  );
}

export function useRuns(workflowId: string, status: RunStatus | null): RunsFeed {
  const [generation, setGeneration] = useState(0);
  const key = `${workflowId}|${status ?? ""}|${generation}`;
  const [stored, setList] = useState<ListState>(() => emptyList(key));
  // A list of another query is not shown (it is replaced when this query's answer comes).
  const blank = useMemo(() => emptyList(key), [key]);
  const list = stored.key === key ? stored : blank;
  const [live, setLive] = useState<{ feed: string; byId: Map<string, Run> }>({ feed: "", byId: new Map() });
  const [state, setState] = useState<StreamStateUpdate | null>(null);

  const feedKey = `${workflowId}|${generation}`;
  /** Updates this query's list, starting it afresh if the stored one is another query's. */
  const updateList = useCallback(
    (k: string, fn: (l: ListState) => ListState) => setList((l) => fn(l.key === k ? l : emptyList(k))),
    [],
  );
  const addLive = useCallback(
    (feed: string, runs: readonly Run[]) =>
      setLive((l) => ({ feed, byId: merge(l.feed === feed ? l.byId : new Map(), runs) })),
    [],
  );

  // The feed: one per workflow (and restart), whatever the filter.
  useEffect(() => {
    let cancelled = false;
    let watchId: string | null = null;
    let bridge;
    try {
      bridge = getBridge();
    } catch {
      return; // the list's read reports the missing host
    }
    const apply = (b: RunBatch) =>
      addLive(
        feedKey,
        b.runs.filter((r) => r.workflow_id === workflowId),
      );
    // Batches and states can race the `watchRuns` answer: keep them until its id is known.
    const early: RunBatch[] = [];
    const earlyStates = new Map<string, StreamStateUpdate>();
    const offBatch = bridge.onRunBatch((b) => {
      if (cancelled) return;
      if (watchId === null) early.push(b);
      else if (b.watchId === watchId) apply(b);
    });
    const offState = bridge.onStreamState((u) => {
      if (cancelled) return;
      if (watchId === null) earlyStates.set(u.watchId, u);
      else if (u.watchId === watchId) setState(u);
    });
    call("watchRuns", workflowId).then(
      (id) => {
        if (cancelled) {
          void call("unwatch", id).catch(() => undefined);
          return;
        }
        watchId = id;
        for (const b of early.splice(0)) if (b.watchId === id) apply(b);
        const s = earlyStates.get(id);
        if (s) setState(s);
        earlyStates.clear();
      },
      (err: unknown) => {
        if (!cancelled)
          setState({
            watchId: "",
            state: "closed",
            message: err instanceof Error ? err.message : String(err),
          });
      },
    );
    return () => {
      cancelled = true;
      offBatch();
      offState();
      setState(null);
      if (watchId !== null) void call("unwatch", watchId).catch(() => undefined);
    };
  }, [workflowId, feedKey, addLive]);

  // The list: again for each query.
  useEffect(() => {
    let cancelled = false;
    call("listWorkflowRuns", workflowId, { limit: RUNS_PAGE, ...(status ? { status } : {}) }).then(
      (page) => {
        if (cancelled) return;
        updateList(key, (l) => ({
          ...l,
          byId: merge(l.byId, page.data),
          loading: false,
          cursor: page.data.length >= RUNS_PAGE ? page.page_info.end_cursor : null,
        }));
      },
      (err: unknown) => {
        if (!cancelled) updateList(key, (l) => ({ ...l, loading: false, error: err }));
      },
    );
    return () => void (cancelled = true);
  }, [workflowId, status, key, updateList]);

  const cursor = list.cursor;
  const loadMore = useCallback(() => {
    if (!cursor) return;
    updateList(key, (l) => ({ ...l, loadingMore: true }));
    const q = { limit: RUNS_PAGE, after: cursor, ...(status ? { status } : {}) };
    call("listWorkflowRuns", workflowId, q).then(
      (page) =>
        updateList(key, (l) => ({
          ...l,
          byId: merge(l.byId, page.data),
          loadingMore: false,
          cursor: page.data.length >= RUNS_PAGE ? page.page_info.end_cursor : null,
        })),
      (err: unknown) => updateList(key, (l) => ({ ...l, loadingMore: false, error: err })),
    );
  }, [workflowId, status, key, cursor, updateList]);

  const restart = useCallback(() => setGeneration((g) => g + 1), []);
  const add = useCallback((run: Run) => addLive(feedKey, [run]), [addLive, feedKey]);

  const liveById = live.feed === feedKey ? live.byId : EMPTY_MAP;
  // The feed's copy is the newer one unless it is older than an ended listed copy (newerCopy).
  const all = useMemo(() => merge(list.byId, [...liveById.values()]), [list.byId, liveById]);
  const runs = useMemo(
    () => [...all.values()].filter((r) => !status || r.status === status).sort(newestFirst),
    [all, status],
  );
  const unsupported = list.error instanceof BridgeCallError && list.error.status === 404;
  return {
    runs,
    loading: list.loading,
    error: unsupported ? null : list.error,
    unsupported,
    state,
    hasMore: list.cursor !== null,
    loadingMore: list.loadingMore,
    loadMore,
    restart,
    add,
    get: (id) => all.get(id),
  };
}

const EMPTY_MAP: ReadonlyMap<string, Run> = new Map();
