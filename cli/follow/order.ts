/** Event order by id (`<ms>-<seq>`), tolerant of ids from another server: unparsable ids compare as text. */
import { compareEventIds, parseEventId } from "../../shared/ids.js";

export function newer(a: string, b: string): boolean {
  if (parseEventId(a) && parseEventId(b)) return compareEventIds(a, b) > 0;
  return a > b;
}
