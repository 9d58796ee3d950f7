/**
 * Range selection in the events table: an anchor row (plain click) and a head row (shift-click or
 * shift+arrow). The range is by event id, inclusive, exactly what `DELETE .../events` takes.
 */
import type { EventSummary } from "../../../shared/resources/index.js";
import { compareEventIds } from "../../../shared/ids.js";

export interface Selection {
  anchor: string;
  head: string;
}

/** `start_id` is the older end, `end_id` the newer one. */
export function selectionBounds(sel: Selection): { start_id: string; end_id: string } {
  return compareEventIds(sel.anchor, sel.head) <= 0
    ? { start_id: sel.anchor, end_id: sel.head }
    : { start_id: sel.head, end_id: sel.anchor };
}

export function inBounds(id: string, b: { start_id: string; end_id: string }): boolean {
  return compareEventIds(id, b.start_id) >= 0 && compareEventIds(id, b.end_id) <= 0;
}

/** The first index whose id passes `test`, in rows sorted newest first (`test` is monotone). */
function firstIndex(rows: readonly EventSummary[], test: (id: string) => boolean): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (test(rows[mid]!.id)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * How many of `rows` (newest first, as the live feed keeps them) the deletion of the selection
 * would remove: two binary searches, so it stays cheap at 50,000 rows and 20 batches a second.
 */
export function countSelected(rows: readonly EventSummary[], sel: Selection | null): number {
  if (!sel) return 0;
  const b = selectionBounds(sel);
  const first = firstIndex(rows, (id) => compareEventIds(id, b.end_id) <= 0);
  const end = firstIndex(rows, (id) => compareEventIds(id, b.start_id) < 0);
  return Math.max(0, end - first);
}

/** A click: plain selects one row; shift extends from the anchor. */
export function clickSelect(prev: Selection | null, id: string, shift: boolean): Selection {
  if (shift && prev) return { anchor: prev.anchor, head: id };
  return { anchor: id, head: id };
}
