import { z } from "zod";
import { QueryInt } from "./common.js";

export const PageInfo = z.object({
  total_count: z.number().int().nonnegative(),
  count: z.number().int().nonnegative(),
  start_cursor: z.string().nullable(),
  end_cursor: z.string().nullable(),
});
export type PageInfo = z.infer<typeof PageInfo>;

/** `{ page_info, data }`: the shape of every paginated response. */
export function Page<T extends z.ZodType>(item: T) {
  return z.object({ page_info: PageInfo, data: z.array(item) });
}
export interface Page<T> {
  page_info: PageInfo;
  data: T[];
}

export const PAGE_LIMIT = { default: 10, min: 1, max: 100 } as const;

/** Pagination parameters: query string for GET, body for POST. */
export const PageQuery = z.object({
  limit: QueryInt.pipe(z.number().int().min(PAGE_LIMIT.min).max(PAGE_LIMIT.max)).optional(),
  after: z.string().min(1).optional(),
  before: z.string().min(1).optional(),
});
export type PageQuery = z.input<typeof PageQuery>;
