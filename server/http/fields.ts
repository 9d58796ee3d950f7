/**
 * `include` / `exclude` (spec §4, decisions.md): comma-separated top-level field names applied
 * to each resource in `data`. Unknown names are ignored; `page_info` is never filtered.
 */

export interface FieldSelection {
  include: string[] | undefined;
  exclude: string[] | undefined;
}

const split = (v: unknown): string[] | undefined =>
  typeof v === "string"
    ? v
        .split(",")
        .map((s) => s.trim())
        .filter((s) => s.length > 0)
    : undefined;

/**
 * Takes `include` / `exclude` out of a query or body object, returning the selection and the
 * rest (so a route's own schema never sees them).
 */
export function takeFieldSelection(input: unknown): { selection: FieldSelection; rest: unknown } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) {
    return { selection: { include: undefined, exclude: undefined }, rest: input };
  }
  const { include, exclude, ...rest } = input as Record<string, unknown>;
  return { selection: { include: split(include), exclude: split(exclude) }, rest };
}

function selectFields(item: unknown, s: FieldSelection): unknown {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return item;
  let entries = Object.entries(item);
  if (s.include) entries = entries.filter(([k]) => s.include!.includes(k));
  if (s.exclude) entries = entries.filter(([k]) => !s.exclude!.includes(k));
  return Object.fromEntries(entries);
}

/** Applies the selection to `{data: item}` or `{data: [items], page_info}`. */
export function applyFieldSelection(body: unknown, s: FieldSelection): unknown {
  if (!s.include && !s.exclude) return body;
  if (typeof body !== "object" || body === null || !("data" in body)) return body;
  const data = (body as { data: unknown }).data;
  return {
    ...body,
    data: Array.isArray(data) ? data.map((d) => selectFields(d, s)) : selectFields(data, s),
  };
}
