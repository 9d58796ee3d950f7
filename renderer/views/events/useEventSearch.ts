/**
 * The filter box searches the server: after a pause in typing (300 ms), `q=<text>` on the
 * channel's `event_summaries`, so it finds any retained event, not only the rows the table has
 * loaded; more pages on demand. Live events that arrive while the search is active and match it
 * are added on top, so a search is also a live filter. An empty box is no search: the table
 * shows the live feed again.
 */
import { useInfiniteQuery } from "@tanstack/react-query";
import { useEffect, useMemo, useState } from "react";
import type { EventSummary, Page } from "../../../shared/resources/index.js";
import { compareEventIds } from "../../../shared/ids.js";
import { call } from "../../state/bridge.js";
import { mergeNewestFirst } from "../../state/liveFeed.js";
import type { Channel } from "../../state/useLiveWatch.js";
import type { EmitterKind } from "./EventDetail.js";
import { eventSearchText } from "./eventText.js";

export const SEARCH_DEBOUNCE_MS = 300;
const PAGE = 100;

function searchPage(kind: EmitterKind, id: string, channel: Channel, q: string, after: string | undefined): Promise<Page<EventSummary>> {
  const query = { q, limit: PAGE, after, event_name: channel || undefined };
  if (kind === "source") return call("listSourceEvents", id, query);
  if (channel === "$errors") return call("listWorkflowErrors", id, { q, limit: PAGE, after });
  return call("listWorkflowEvents", id, query);
}

/** `value`, once it has stopped changing for `ms`. */
function useDebounced(value: string, ms: number): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), value === "" ? 0 : ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  // Clearing the box is immediate: the live table comes back at once.
  return value === "" ? "" : settled;
}

export interface EventSearch {
  /** The text being searched (debounced, trimmed); "" when no search is active. */
  q: string;
  /** Matches, newest first: the server's pages plus live matches that came after. */
  rows: EventSummary[];
  /** Matches the server counted, plus the live ones it has not seen. */
  total: number;
  loading: boolean;
  /** The text typed differs from the one searched (a search is on its way). */
  typing: boolean;
  error: unknown;
  hasMore: boolean;
  loadMore: () => void;
  retry: () => void;
}

export function useEventSearch(
  kind: EmitterKind,
  emitterId: string,
  channel: Channel,
  text: string,
  liveRows: readonly EventSummary[],
): EventSearch {
  const typed = text.trim();
  const q = useDebounced(typed, SEARCH_DEBOUNCE_MS);
  const query = useInfiniteQuery({
    queryKey: ["event-search", kind, emitterId, channel, q],
    enabled: q !== "",
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => searchPage(kind, emitterId, channel, q, pageParam),
    getNextPageParam: (last) => (last.data.length === PAGE && last.page_info.end_cursor ? last.page_info.end_cursor : undefined),
    staleTime: Infinity,
    gcTime: 30_000,
    retry: false,
  });

  // Live rows newer than the newest row (server's or live) when the search's answer came are
  // the search's to add; older live rows are already in what the server searched.
  const firstPage = query.data?.pages[0];
  const mark = useMemo(() => {
    if (!firstPage || q === "") return null;
    const ids = [firstPage.data[0]?.id, liveRows[0]?.id].filter((x): x is string => !!x);
    return { after: ids.sort(compareEventIds).at(-1) };
    // Fixed when the answer comes, not moved by each live row.
  }, [firstPage, q]); // eslint-disable-line react-hooks/exhaustive-deps

  const serverRows = useMemo(() => query.data?.pages.flatMap((p) => p.data) ?? [], [query.data]);
  const liveMatches = useMemo(() => {
    if (!mark) return [];
    const needle = q.toLowerCase();
    const out: EventSummary[] = [];
    for (const e of liveRows) {
      if (mark.after !== undefined && compareEventIds(e.id, mark.after) <= 0) break;
      if (eventSearchText(e).includes(needle)) out.push(e);
    }
    return out;
  }, [liveRows, q, mark]);

  const rows = useMemo(() => (liveMatches.length ? mergeNewestFirst(serverRows, liveMatches, Number.MAX_SAFE_INTEGER) : serverRows), [serverRows, liveMatches]);
  return {
    q,
    rows,
    total: (firstPage?.page_info.total_count ?? 0) + liveMatches.length,
    loading: q !== "" && query.isLoading,
    typing: typed !== q,
    error: query.error,
    hasMore: query.hasNextPage,
    loadMore: () => void query.fetchNextPage(),
    retry: () => void query.refetch(),
  };
}
