/**
 * How every tool answers: `structuredContent` with the same JSON as text, never over 64 KB of
 * text (a model's context is the scarce thing, and one huge event must not crowd out the rest),
 * and refusals as `isError` results carrying the REST answer's `{error, code}`, so the model can
 * read why and try something else, instead of a protocol error it never sees.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import { ApiError } from "../client/index.js";

/** Largest text a tool answers with, in UTF-8 bytes. */
export const RESULT_TEXT_LIMIT = 64 * 1024;

/** A refusal: the REST error body, and its status when it came from REST. */
export interface Refusal {
  error: string;
  code: string;
  status?: number;
  details?: Array<{ path: string; message: string }>;
}

/** Thrown by tools for a refusal of their own (bad input the REST call would not see). */
export class McpRefusal extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
    this.name = "McpRefusal";
  }
}

const utf8 = new TextEncoder();
/** UTF-8 bytes of `s` (Buffer's count where there is one: it does not copy the string). */
const byteLength: (s: string) => number =
  typeof Buffer === "undefined" ? (s) => utf8.encode(s).length : (s) => Buffer.byteLength(s, "utf8");

export function refusalOf(err: unknown): Refusal {
  if (err instanceof ApiError) {
    return { error: err.message, code: err.code, status: err.status, ...(err.details ? { details: err.details } : {}) };
  }
  if (err instanceof McpRefusal) return { error: err.message, code: err.code, status: err.status };
  // Anything else is a fault of ours: say so without its message (it may hold a path or a stack).
  return { error: "the tool failed unexpectedly", code: "internal_error" };
}

/** The JSON text of each structured answer made here, so that an encoder need not write it again. */
const jsonOf = new WeakMap<object, string>();

/** `JSON.stringify(value)`, for a structured answer of a tool already serialized as its text. */
export function structuredJson(value: object): string | undefined {
  return jsonOf.get(value);
}

/** The isError result of a refusal. */
export function refusal(err: unknown): CallToolResult {
  const body = refusalOf(err);
  const structured = { ...body };
  const text = JSON.stringify(structured);
  jsonOf.set(structured, text);
  return { isError: true, content: [{ type: "text", text }], structuredContent: structured };
}

/** What a list answer holds: its items under `listKey`, a cursor to the next page. */
export interface ListCut<T> {
  listKey: string;
  /** The field that says where to continue (default `next_cursor`). */
  cursorKey?: string;
  /** The cursor that continues right after `item` (an event id, or the item's page cursor). */
  cursorAfter: (item: T) => string;
}

/**
 * The result of a tool: `value` as structuredContent and as text. Over RESULT_TEXT_LIMIT, a
 * list loses items from its end (and its `next_cursor` points right after the last one kept),
 * then the longest strings and biggest values are cut, each replaced by a preview; the answer
 * then says `truncated: true` and, in `note`, what was cut.
 */
export function answer<T extends Record<string, unknown>>(value: T, list?: ListCut<never>): CallToolResult {
  const fitted = fitToLimit(value, list as ListCut<unknown> | undefined);
  jsonOf.set(fitted.value, fitted.text);
  return { content: [{ type: "text", text: fitted.text }], structuredContent: fitted.value };
}


export function fitToLimit(
  value: Record<string, unknown>,
  list?: ListCut<unknown>,
  limit = RESULT_TEXT_LIMIT,
): { value: Record<string, unknown>; text: string } {
  let text = JSON.stringify(value);
  // (A string is at most 3 bytes a character: most answers need no count at all.)
  if (text.length * 3 <= limit || byteLength(text) <= limit) return { value, text };
  // Room for the note and flags added below.
  const budget = limit - 400;
  let out: Record<string, unknown> = { ...value };
  const notes: string[] = [];

  const items = list ? out[list.listKey] : undefined;
  if (list && Array.isArray(items) && items.length > 1) {
    // The most items that fit (at least one), by bisection on the count.
    let lo = 1;
    let hi = items.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (byteLength(JSON.stringify({ ...out, [list.listKey]: items.slice(0, mid) })) <= budget) lo = mid;
      else hi = mid - 1;
    }
    if (lo < items.length) {
      const kept = items.slice(0, lo);
      const cursorKey = list.cursorKey ?? "next_cursor";
      const cursor = list.cursorAfter(kept[kept.length - 1]);
      out = { ...out, [list.listKey]: kept, [cursorKey]: cursor };
      notes.push(`${lo} of ${items.length} items kept to stay under ${limit / 1024} KB: ask again from ${cursorKey} ${cursor} for the rest`);
    }
  }

  for (let round = 0; round < 8 && byteLength(JSON.stringify(out)) > budget; round++) {
    const excess = byteLength(JSON.stringify(out)) - budget;
    const cut = cutLargest(out, excess);
    if (!cut) break;
    out = cut.value as Record<string, unknown>;
    notes.push(cut.note);
  }
  out = { ...out, truncated: true, note: notes.join("; ") || `cut to stay under ${limit / 1024} KB` };
  text = JSON.stringify(out);
  return { value: out, text };
}

/**
 * Replaces the node that holds most of the size (descending into the largest child while it
 * holds most of its parent) by a shorter form: a string by its start, anything else by
 * `{truncated, size, preview}`. Returns undefined when nothing can be cut.
 */
function cutLargest(root: unknown, excess: number): { value: unknown; note: string } | undefined {
  const path: Array<string | number> = [];
  let node = root;
  for (;;) {
    const children = childrenOf(node);
    if (children.length === 0) break;
    const total = byteLength(JSON.stringify(node));
    let largest = { key: children[0]![0], child: children[0]![1], size: -1 };
    for (const [key, child] of children) {
      const size = byteLength(JSON.stringify(child) ?? "");
      if (size > largest.size) largest = { key, child, size };
    }
    // The root cannot be replaced; below it, stop where the size is spread over many children
    // (a long list of small items, an object of many small fields): that node is cut whole.
    if (path.length > 0 && (largest.size < total / 2 || largest.size <= excess)) break;
    path.push(largest.key);
    node = largest.child;
  }
  if (path.length === 0) return undefined;
  const json = JSON.stringify(node) ?? "";
  const size = byteLength(json);
  if (size <= 64) return undefined;
  const keep = Math.max(32, size - excess - 128);
  const where = path.join(".");
  // A string keeps its start, an array its first items (both keep their type for the output
  // schema); anything else becomes a preview of its JSON.
  const replacement =
    typeof node === "string"
      ? `${sliceBytes(node, keep)}… [cut: ${size} bytes in all]`
      : Array.isArray(node)
        ? headOf(node, keep)
        : { truncated: true, size, preview: sliceBytes(json, keep) };
  return { value: setAt(root, path, replacement), note: `${where} cut from ${size} bytes` };
}

/** The first items of `list` whose JSON fits in `bytes`. */
function headOf(list: unknown[], bytes: number): unknown[] {
  let used = 2;
  const out: unknown[] = [];
  for (const item of list) {
    used += byteLength(JSON.stringify(item) ?? "null") + 1;
    if (used > bytes) break;
    out.push(item);
  }
  return out;
}

function childrenOf(node: unknown): Array<[string | number, unknown]> {
  if (Array.isArray(node)) return node.map((v, i) => [i, v]);
  if (node && typeof node === "object") return Object.entries(node);
  return [];
}

function setAt(root: unknown, path: Array<string | number>, value: unknown): unknown {
  if (path.length === 0) return value;
  const [head, ...rest] = path;
  if (Array.isArray(root)) {
    const copy = [...root];
    copy[head as number] = setAt(root[head as number], rest, value);
    return copy;
  }
  const obj = root as Record<string, unknown>;
  return { ...obj, [head as string]: setAt(obj[head as string], rest, value) };
}

/** The longest prefix of `s` of at most `bytes` UTF-8 bytes (never half a character). */
export function sliceBytes(s: string, bytes: number): string {
  if (byteLength(s) <= bytes) return s;
  let lo = 0;
  let hi = Math.min(s.length, bytes);
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (byteLength(s.slice(0, mid)) <= bytes) lo = mid;
    else hi = mid - 1;
  }
  // Do not end inside a surrogate pair.
  const code = s.charCodeAt(lo - 1);
  return code >= 0xd800 && code <= 0xdbff ? s.slice(0, lo - 1) : s.slice(0, lo);
}

/** Runs a tool's body: its value as the answer, any refusal as an isError result. */
export async function run<T extends Record<string, unknown>>(
  body: () => Promise<T>,
  list?: ListCut<never>,
): Promise<CallToolResult> {
  try {
    return answer(await body(), list);
  } catch (err) {
    return refusal(err);
  }
}

export { byteLength };
