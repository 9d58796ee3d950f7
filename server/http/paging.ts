/**
 * Pagination at the HTTP boundary (decisions.md, Lists and cursors): parse `limit` / `after` /
 * `before`, decode cursors (400 `bad_cursor` when they are not ours), and shape `page_info`.
 * Resource lists use `pageParams` + `pageBody`; lists with their own cursors (events) reuse
 * `PageQuery` and shape `page_info` with `pageInfo`.
 */
import { decodeCursor, encodeCursor } from "../../shared/ids.js";
import { ERROR_CODES, PAGE_LIMIT, type Page, type PageInfo } from "../../shared/resources/index.js";
import type { PageRequest, PageRows } from "../store/repos/paging.js";
import { badRequest } from "./errors.js";

export interface PageParams {
  limit?: number | undefined;
  after?: string | undefined;
  before?: string | undefined;
}

/** Validated page parameters (from `PageQuery`) to a repository request with decoded ids. */
export function pageRequest(q: PageParams): PageRequest {
  const decode = (name: string, cursor: string | undefined) => {
    if (cursor === undefined) return undefined;
    const id = decodeCursor(cursor);
    if (!id) throw badRequest(`${name} is not a valid cursor`, ERROR_CODES.badCursor);
    return id;
  };
  return {
    limit: q.limit ?? PAGE_LIMIT.default,
    after: decode("after", q.after),
    before: decode("before", q.before),
  };
}

export function pageInfo(
  count: number,
  totalCount: number,
  start: string | null,
  end: string | null,
): PageInfo {
  return { total_count: totalCount, count, start_cursor: start, end_cursor: end };
}

/** `{page_info, data}` for a resource list whose items have ids (cursor = base64url(id)). */
export function pageBody<T extends { id: string }>(page: PageRows<T>): Page<T> {
  const first = page.rows[0];
  const last = page.rows[page.rows.length - 1];
  return {
    page_info: pageInfo(
      page.rows.length,
      page.totalCount,
      first ? encodeCursor(first.id) : null,
      last ? encodeCursor(last.id) : null,
    ),
    data: page.rows,
  };
}
