/**
 * Event ids a watch has already delivered, to drop the duplicates a resume or a back-fill can
 * produce. Bounded: only the newest `capacity` ids are kept, and anything not newer than the
 * oldest remembered one counts as seen (events of one emitter only move forward).
 */
export class RecentIds {
  private readonly ids = new Set<string>();
  private readonly order: string[] = [];
  private floor: string | undefined;

  constructor(private readonly capacity = 10_000) {}

  has(id: string): boolean {
    if (this.ids.has(id)) return true;
    return this.floor !== undefined && compareIds(id, this.floor) <= 0;
  }

  add(id: string): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    this.order.push(id);
    if (this.order.length > this.capacity) {
      const dropped = this.order.splice(0, this.order.length - this.capacity);
      for (const d of dropped) {
        this.ids.delete(d);
        if (this.floor === undefined || compareIds(d, this.floor) > 0) this.floor = d;
      }
    }
  }
}

/**
 * Orders two event ids (`<ms>-<seq>`). Ids of another shape (a server we do not know) fall back
 * to string order rather than throwing: the feed must not stop over an odd id.
 */
export function compareIds(a: string, b: string): number {
  const pa = /^(\d+)-(\d+)$/.exec(a);
  const pb = /^(\d+)-(\d+)$/.exec(b);
  if (pa && pb) return Number(pa[1]) - Number(pb[1]) || Number(pa[2]) - Number(pb[2]);
  return a < b ? -1 : a > b ? 1 : 0;
}
