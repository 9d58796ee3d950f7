/**
 * The pool of sandbox worker processes.
 * - A process serves one owner only (users never share a process) and one request at a time.
 * - The total is bounded (`maxProcesses`); when it is reached, a request waits its turn in FIFO
 *   order. An idle process of another owner is recycled for the first waiter, so no owner is
 *   starved by another's warm processes. (Fairness between sources comes from the queue: it
 *   runs at most one job per target at a time, so a busy source holds at most one process.)
 * - Dead processes (killed on timeout or out of memory, crashed) are dropped and replaced on
 *   demand; idle ones are stopped after `idleMs`.
 */
import {
  SandboxProcess,
  sandboxKills,
  sandboxSpawns,
  type CallServer,
  type SandboxOptions,
} from "./process.js";

export interface PoolOptions extends SandboxOptions {
  maxProcesses: number;
  /** Stop processes idle this long. */
  idleMs?: number;
  /** Who answers a process's data store calls, as its owner's; absent: code has no data stores. */
  calls?: (owner: string) => CallServer;
}

export interface Lease {
  proc: SandboxProcess;
  /** Returns the process to the pool (or discards it when it died). Call exactly once. */
  release(): void;
}

interface Waiter {
  owner: string;
  resolve: (lease: Lease) => void;
  reject: (err: Error) => void;
}

export class SandboxPool {
  private readonly idle = new Map<string, Array<{ proc: SandboxProcess; since: number }>>();
  private readonly waiters: Waiter[] = [];
  /** Processes alive or starting, busy or idle. */
  private total = 0;
  private closed = false;
  private readonly reaper: NodeJS.Timeout;

  constructor(private readonly options: PoolOptions) {
    const idleMs = options.idleMs ?? 60_000;
    this.reaper = setInterval(() => this.reap(idleMs), Math.min(idleMs, 10_000));
    this.reaper.unref();
  }

  get size(): number {
    return this.total;
  }

  acquire(owner: string): Promise<Lease> {
    if (this.closed) return Promise.reject(new Error("the sandbox pool is closed"));
    const warm = this.takeIdle(owner);
    if (warm) return Promise.resolve(this.lease(owner, warm));
    if (this.total < this.options.maxProcesses) return this.spawnFor(owner);
    if (this.recycleIdleOfOther(owner)) return this.spawnFor(owner);
    return new Promise<Lease>((resolve, reject) => this.waiters.push({ owner, resolve, reject }));
  }

  /** Stops every process; pending waiters are refused. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.reaper);
    for (const w of this.waiters.splice(0)) w.reject(new Error("the sandbox pool is closed"));
    for (const list of this.idle.values())
      for (const { proc } of list) {
        sandboxKills.inc({ reason: "shutdown" });
        proc.kill();
      }
    this.idle.clear();
  }

  private lease(owner: string, proc: SandboxProcess): Lease {
    let released = false;
    return {
      proc,
      release: () => {
        if (released) return;
        released = true;
        this.giveBack(owner, proc);
      },
    };
  }

  private async spawnFor(owner: string): Promise<Lease> {
    this.total += 1;
    try {
      const proc = await SandboxProcess.spawn(this.options);
      proc.serveCalls(this.options.calls?.(owner));
      sandboxSpawns.inc();
      return this.lease(owner, proc);
    } catch (err) {
      this.total -= 1;
      this.serveWaiters();
      throw err;
    }
  }

  private giveBack(owner: string, proc: SandboxProcess): void {
    // A worker that used its CPU time is replaced before the kernel's limit could stop it mid-run.
    if (!proc.alive || this.closed || proc.spent) {
      // A run's timeout or OOM was counted by the process itself.
      if (!proc.alive && !proc.killedReason) sandboxKills.inc({ reason: "crashed" });
      else if (proc.alive) sandboxKills.inc({ reason: this.closed ? "shutdown" : "cpu_spent" });
      proc.kill();
      this.total -= 1;
      this.serveWaiters();
      return;
    }
    const first = this.waiters[0];
    if (first && first.owner === owner) {
      this.waiters.shift();
      first.resolve(this.lease(owner, proc));
      return;
    }
    if (first) {
      // The next request belongs to someone else: this process cannot serve them.
      sandboxKills.inc({ reason: "recycled" });
      proc.kill();
      this.total -= 1;
      this.serveWaiters();
      return;
    }
    const list = this.idle.get(owner) ?? [];
    list.push({ proc, since: Date.now() });
    this.idle.set(owner, list);
  }

  private serveWaiters(): void {
    while (this.waiters.length > 0 && !this.closed) {
      const w = this.waiters[0]!;
      const warm = this.takeIdle(w.owner);
      if (warm) {
        this.waiters.shift();
        w.resolve(this.lease(w.owner, warm));
        continue;
      }
      if (this.total < this.options.maxProcesses || this.recycleIdleOfOther(w.owner)) {
        this.waiters.shift();
        this.spawnFor(w.owner).then(w.resolve, w.reject);
        continue;
      }
      return;
    }
  }

  private takeIdle(owner: string): SandboxProcess | undefined {
    const list = this.idle.get(owner);
    while (list && list.length > 0) {
      const { proc } = list.pop()!;
      if (list.length === 0) this.idle.delete(owner);
      if (proc.alive) return proc;
      this.total -= 1;
    }
    return undefined;
  }

  /** Stops the longest-idle process of another owner, freeing a slot. */
  private recycleIdleOfOther(owner: string): boolean {
    let oldest: { owner: string; index: number; since: number } | undefined;
    for (const [o, list] of this.idle) {
      if (o === owner) continue;
      list.forEach((e, index) => {
        if (!oldest || e.since < oldest.since) oldest = { owner: o, index, since: e.since };
      });
    }
    if (!oldest) return false;
    const list = this.idle.get(oldest.owner)!;
    const [entry] = list.splice(oldest.index, 1);
    if (list.length === 0) this.idle.delete(oldest.owner);
    sandboxKills.inc({ reason: "recycled" });
    entry!.proc.kill();
    this.total -= 1;
    return true;
  }

  private reap(idleMs: number): void {
    const cutoff = Date.now() - idleMs;
    for (const [owner, list] of this.idle) {
      const keep = list.filter((e) => {
        if (e.since >= cutoff && e.proc.alive) return true;
        sandboxKills.inc({ reason: e.proc.alive ? "idle" : "crashed" });
        e.proc.kill();
        this.total -= 1;
        return false;
      });
      if (keep.length) this.idle.set(owner, keep);
      else this.idle.delete(owner);
    }
    this.serveWaiters();
  }
}
