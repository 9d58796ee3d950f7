/**
 * HTTP endpoint targets, remembered for a moment. Every request to `/e/:id` needs its target
 * (owner, active, custom response); under an endpoint's load that was a source and a component
 * read per request. The runtime forgets a source here as soon as it changes on this instance;
 * a change made through another instance (PostgreSQL) shows here within `ttlMs`, and an owner's
 * change at once (cluster/user-changes.ts). The job handler reads the source again before
 * running, so a request accepted meanwhile never runs an inactive or deleted source.
 */
import { REMEMBERED_AT_MOST_MS } from "../../cluster/remembered.js";

export class TargetCache<T> {
  private readonly entries = new Map<string, { value: T; until: number }>();
  /**
   * Bumped by every forget and clear: a read that began before one may have read the old rows,
   * so its value is returned to its caller but not kept (else a read under way while a change
   * was forgotten would bring the change's "before" back for a whole `ttlMs`).
   */
  private generation = 0;

  constructor(
    private readonly ttlMs = REMEMBERED_AT_MOST_MS,
    private readonly max = 10_000,
  ) {}

  async get(id: string, load: (id: string) => Promise<T>): Promise<T> {
    // Taken before the read: the entry expires `ttlMs` after the read began, not after it ended.
    const now = Date.now();
    const hit = this.entries.get(id);
    if (hit && hit.until > now) return hit.value;
    const generation = this.generation;
    const value = await load(id);
    if (generation !== this.generation) return value;
    this.entries.delete(id);
    this.entries.set(id, { value, until: now + this.ttlMs });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
    return value;
  }

  /** The remembered value, without loading: undefined when not remembered (or stale). */
  peek(id: string): T | undefined {
    const hit = this.entries.get(id);
    return hit && hit.until > Date.now() ? hit.value : undefined;
  }

  forget(id: string): void {
    this.generation += 1;
    this.entries.delete(id);
  }

  /** An owner changed (disabled, deleted): targets are not indexed by owner, so forget them all. */
  clear(): void {
    this.generation += 1;
    this.entries.clear();
  }
}
