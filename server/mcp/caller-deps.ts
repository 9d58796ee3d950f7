/**
 * The tool set's deps for each caller, kept between requests: an agent calls tool after tool
 * with one key, and a typed client is a closure per endpoint, too many to build for every call.
 * Each entry holds a vouch (auth.ts's Vouches) renewed at every admission, so that the calls'
 * REST requests are not authenticated twice.
 */
import type { FastifyInstance } from "fastify";
import type { McpDeps } from "../../shared/mcp/index.js";
import type { AuthUser } from "../users/service.js";
import { injectedDeps } from "./inject.js";

/** Callers kept: past this, the least recently seen goes (and its vouch with it). */
const MAX_CALLERS = 256;

export interface Caller {
  user: AuthUser;
  key: string;
}

interface Entry {
  deps: McpDeps;
  vouch: string;
}

export class CallerDeps {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly app: FastifyInstance,
    private readonly publicUrl: () => string,
    private readonly lifetime: AbortSignal,
  ) {}

  /** The deps of a caller admitted just now. */
  for(caller: Caller): McpDeps {
    const { vouches } = this.app;
    const found = this.entries.get(caller.key);
    if (found) {
      vouches.renew(found.vouch, caller.user);
      // Most recently seen last: the Map's order is the eviction order.
      this.entries.delete(caller.key);
      this.entries.set(caller.key, found);
      return found.deps;
    }
    const vouch = vouches.issue(caller.key, caller.user);
    const deps = injectedDeps(this.app, caller.key, this.publicUrl, this.lifetime, vouch);
    this.entries.set(caller.key, { deps, vouch });
    if (this.entries.size > MAX_CALLERS) {
      const [oldest, entry] = this.entries.entries().next().value!;
      this.entries.delete(oldest);
      vouches.revoke(entry.vouch);
    }
    return deps;
  }

  clear(): void {
    for (const { vouch } of this.entries.values()) this.app.vouches.revoke(vouch);
    this.entries.clear();
  }
}
