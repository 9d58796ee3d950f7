import * as z from "../zod.js";
import { QueryInt } from "./common.js";

export const PageInfo = z.object({
  total_count: z.number().check(z.int(), z.nonnegative()),
  count: z.number().check(z.int(), z.nonnegative()),
  start_cursor: z.nullable(z.string()),
  end_cursor: z.nullable(z.string()),
});
export type PageInfo = z.infer<typeof PageInfo>;

/** `{ page_info, data }`: the shape of every paginated response. */
export function Page<T extends z.core.$ZodType>(item: T) {
  return z.object({ page_info: PageInfo, data: z.array(item) });
}
export interface Page<T> {
  page_info: PageInfo;
  data: T[];
}

export const PAGE_LIMIT = { default: 10, min: 1, max: 100 } as const;

/** Pagination parameters: query string for GET, body for POST. */
export const PageQuery = z.object({
  limit: z.optional(
    z.pipe(QueryInt, z.number().check(z.int(), z.gte(PAGE_LIMIT.min), z.lte(PAGE_LIMIT.max))),
  ),
  after: z.optional(z.string().check(z.minLength(1))),
  before: z.optional(z.string().check(z.minLength(1))),
});
export type PageQuery = z.input<typeof PageQuery>;
