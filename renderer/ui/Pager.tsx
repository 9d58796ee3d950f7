import { useState } from "react";
import type { PageInfo, PageQuery } from "../../shared/resources/index.js";
import { formatNumber } from "../state/format.js";

/** Previous / next page controls over cursor pagination, with "Page 2 · 57 sources". */
export function Pager(props: {
  page: number;
  total: number;
  /** Singular and plural noun: ["source", "sources"]. */
  noun: [string, string];
  hasPrev: boolean;
  hasNext: boolean;
  onPrev: () => void;
  onNext: () => void;
  busy?: boolean;
  /** The buttons' words, for lists not ordered by time (default: newer / older). */
  labels?: [string, string];
}) {
  const { page, total, noun, hasPrev, hasNext } = props;
  const count = `${formatNumber(total)} ${total === 1 ? noun[0] : noun[1]}`;
  return (
    <nav className="pager" aria-label="Pages">
      <span className="muted">{hasPrev || hasNext ? `Page ${page} · ${count}` : count}</span>
      <button type="button" className="btn small" onClick={props.onPrev} disabled={!hasPrev || props.busy}>
        {props.labels?.[0] ?? "← Newer"}
      </button>
      <button type="button" className="btn small" onClick={props.onNext} disabled={!hasNext || props.busy}>
        {props.labels?.[1] ?? "Older →"}
      </button>
    </nav>
  );
}

/**
 * The cursor trail behind a paged list: the query for the page on screen, and the <Pager> props
 * that step through it (newer pages are remembered, older ones follow `end_cursor`).
 */
export function useCursorPages(pageSize: number) {
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const query: PageQuery = { limit: pageSize, after: cursors[cursors.length - 1] };
  const pageNo = cursors.length;
  return {
    query,
    pageNo,
    /** Back to the first page (e.g. after creating an item, which lists first). */
    reset: () => setCursors([undefined]),
    /** Total count and <Pager> props for the page on screen. */
    controls(page: { page_info: PageInfo } | undefined, busy: boolean) {
      const total = page?.page_info.total_count ?? 0;
      const next = page?.page_info.end_cursor ?? undefined;
      return {
        page: pageNo,
        total,
        hasPrev: pageNo > 1,
        hasNext: next !== undefined && pageNo * pageSize < total,
        busy,
        onPrev: () => setCursors((c) => c.slice(0, -1)),
        onNext: () => setCursors((c) => [...c, next]),
      };
    },
  };
}
