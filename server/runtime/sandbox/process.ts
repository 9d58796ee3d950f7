/**
 * One sandbox worker process and the isolation it runs under (server/runtime/README.md has the
 * whole design):
 * - Started by `child_process.fork` through the launch chain of launch.ts: setpriv (dies with
 *   the server), prlimit (kernel limits on data size and CPU time), nice, and in namespaces
 *   mode bwrap (new namespaces; only mounts.ts's read-only list, the temp dir and the egress
 *   directory exist for it). The environment is `{TMPDIR}` only.
 * - Node's permission model on the same read-only list; the temp dir is the only writable place.
 * - Its network: an egress endpoint of its own (server/net/egress-proxy.ts), which the worker's
 *   net-guard.cjs sends every TCP connection through; the proxy applies the address policy.
 * - `--max-old-space-size` bounds the JS heap; an RSS watchdog (polling /proc) also stops
 *   allocations outside the heap (Buffers). A heap-limit abort or the watchdog is OUT_OF_MEMORY.
 * - The host kills the process (SIGKILL) when a request overruns its time limit: TIMEOUT (as is
 *   the kernel's CPU limit, SIGXCPU). A killed or crashed worker is discarded; the pool starts a
 *   fresh one, and retires one that used its CPU time (`spent`).
 * - Processes are keyed by owner in the pool, so two users never share one.
 * - Workers run at a lower CPU priority than the server (nice SANDBOX_NICE): when components and
 *   the server compete for the cores, the API, the queue and the streams come first.
 * - Each run starts with an empty temp dir: the worker empties it after every run.
 */
import { Counter } from "prom-client";
import { fork, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { EgressEndpoint, type Resolver } from "../../net/egress-proxy.js";
import type { IsolationMode } from "./isolation.js";
import { readProgress } from "./progress.js";
import { kernelLimitsFor, launchCommand, SANDBOX_NICE, TOOLS, type KernelLimits } from "./launch.js";
import { readOnlyPaths, SANDBOX_DIR, sandboxPackageEntries } from "./mounts.js";
import { permissionFlag, requireModuleFlags, startupDataBytes } from "./node-runtime.js";
import { callContext, type CallContext, type RequestCalls } from "./calls.js";
import { cpuSecondsOf, leafDescendant } from "./proc-info.js";

export { removeStaleTmpDirs } from "./stale-dirs.js";

export { SANDBOX_NICE };
const WORKER = path.join(SANDBOX_DIR, "worker.cjs");
/** How many CPU seconds a process can use per wall second at most. */
const CORES = Math.max(1, os.availableParallelism());
/** Where the worker requires the platform shim's libraries from (resolved once). */
const PACKAGE_ENTRIES = sandboxPackageEntries();

export interface SandboxOptions {
  /** Heap limit in MiB. */
  memoryMb: number;
  /** npm package cache (read-only for the worker). */
  npmDir: string;
  /** Parent of the per-process temp dirs. */
  tmpRoot: string;
  /** Outbound network policy (see net-guard.cjs). Default: no private addresses. */
  network?: NetworkPolicy;
  /**
   * Required, so that no spawner can forget it and run component code with less isolation than
   * configured (isolation.ts resolves the configured mode).
   */
  isolation: IsolationMode;
  /** The longest request, for the kernel's CPU time limit (launch.ts). Default 300 s. */
  timeoutMs?: number;
  /**
   * Tests only (never from configuration, so never reachable from component code): start the
   * worker without its network guard and without Node's permission model, to show what the
   * namespaces alone hold.
   */
  unguardedForTests?: boolean;
  /** Tests only: other kernel limits than those for `memoryMb` and `timeoutMs` (the rest as computed). */
  kernelLimitsForTests?: Partial<KernelLimits>;
  /** Tests only: the egress proxy's resolver, a test double for DNS. */
  resolveForTests?: Resolver;
}

export interface NetworkPolicy {
  /** Allow loopback and private addresses (a feed on the LAN, tests). */
  allowPrivate: boolean;
  /** Ports refused on private addresses even when they are allowed (the database's). */
  blockedPorts: number[];
}

/**
 * How a request ended. `done` carries the worker's final message; the others, what the worker
 * last wrote to PROGRESS_FILE (which step of a run it was in), if anything.
 */
export type Outcome =
  | { kind: "done"; message: WorkerDone }
  | { kind: "timeout"; progress?: string }
  | { kind: "oom"; progress?: string }
  | { kind: "crash"; detail: string; progress?: string };

export interface WorkerError {
  name: string;
  message: string;
  stack: string;
  code?: string | undefined;
}

export interface WorkerDone {
  t: "done";
  id: string;
  result?: unknown;
  dbChanges?: Record<string, string | null>;
  error?: WorkerError;
}

/**
 * A message streamed by the worker during a request: emit, log, respond; in a batch these carry
 * the run's `item` index, and `itemDone` ends each run (`dbChanges`, `error?`).
 */
export interface WorkerStream {
  t: "emit" | "log" | "respond" | "itemDone" | "call";
  id: string;
  item?: number;
  [k: string]: unknown;
}

/**
 * What the host does with a worker's `call` (a data store operation, data-stores/code-calls.ts)
 * and how a failure is told to the code that made it.
 */
export interface CallServer {
  handle(op: string, args: unknown, ctx?: CallContext): Promise<unknown>;
  error(err: unknown): { message: string; code?: string };
}

const realDir = (p: string) => {
  fs.mkdirSync(p, { recursive: true });
  return fs.realpathSync(p);
};

/** Sandbox processes started and stopped, by reason (`/metrics`; registered by server/metrics). */
export const sandboxSpawns = new Counter({ name: "headwater_sandbox_spawns_total", help: "Sandbox worker processes started", registers: [] });
export const sandboxKills = new Counter({
  name: "headwater_sandbox_kills_total",
  help: "Sandbox worker processes stopped, by reason: timeout, oom (killed mid-run), cpu_spent, crashed, idle, recycled (made room for another owner), shutdown",
  labelNames: ["reason"] as const,
  registers: [],
});

export class SandboxProcess {
  /** Bundle keys this worker has already evaluated (they need not be sent again). */
  readonly loaded = new Set<string>();
  private exited = false;
  private stderrTail = "";
  private pending:
    | {
        id: string;
        resolve: (o: Outcome) => void;
        onStream: (m: WorkerStream) => void;
        timer: NodeJS.Timeout;
        timeoutMs: number;
        /** Its calls' origins (a workflow run's steps, a source's runs), and their writes so far. */
        origins?: RequestCalls | undefined;
      }
    | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private killedFor: "timeout" | "oom" | undefined;

  /** The worker's own pid as the host sees it (in namespaces mode, a descendant of the child's). */
  private workerPid: number | undefined;
  /** Who answers the worker's calls: its owner's data stores (pool.ts sets it). */
  private calls: CallServer | undefined;

  private constructor(
    private readonly child: ChildProcess,
    private readonly tmpDir: string,
    private readonly rssLimitBytes: number,
    private readonly egress: EgressEndpoint,
    readonly isolation: IsolationMode,
    private readonly retireAfterCpuSeconds: number,
  ) {
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-4096);
    });
    child.on("message", (m: WorkerDone | WorkerStream) => this.onMessage(m));
    child.on("exit", (code, signal) => this.onExit(code, signal));
    child.on("error", () => undefined);
  }

  static async spawn(options: SandboxOptions): Promise<SandboxProcess> {
    const npmDir = realDir(options.npmDir);
    const isolation = options.isolation;
    // Named after the server's pid, so a later server can tell leftovers of a dead one.
    const tmpDir = realDir(path.join(options.tmpRoot, `${process.pid}-${randomUUID()}`));
    const network: NetworkPolicy = options.network ?? { allowPrivate: false, blockedPorts: [] };
    // The egress proxy's sockets: a short path (unix socket paths are at most 107 bytes), 0700.
    const egressDir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `hw-eg-${process.pid}-`)));
    const egress = await EgressEndpoint.open(egressDir, {
      policy: network,
      ...(options.resolveForTests ? { resolve: options.resolveForTests } : {}),
    });
    const readOnly = readOnlyPaths(npmDir);
    const guarded = !options.unguardedForTests;
    const permission = permissionFlag();
    if (guarded && !permission)
      throw new Error(
        `sandbox: Node ${process.version} has no permission model (Node 20.19 or later is required)`,
      );
    const nodeFlags = [
      ...(guarded
        ? [
            permission!,
            ...readOnly.map((r) => `--allow-fs-read=${isDir(r.path) ? `${r.path}/*` : r.path}`),
            `--allow-fs-read=${tmpDir}/*`,
            `--allow-fs-write=${tmpDir}/*`,
          ]
        : []),
      ...(isolation === "namespaces" ? [`--require=${path.join(SANDBOX_DIR, "namespaced.cjs")}`] : []),
      `--max-old-space-size=${options.memoryMb}`,
      ...requireModuleFlags(),
      "--disable-warning=ExperimentalWarning",
    ];
    const startupBytes = await startupDataBytes();
    const limits = {
      ...kernelLimitsFor(options.memoryMb, options.timeoutMs ?? 300_000, startupBytes),
      ...options.kernelLimitsForTests,
    };
    const guard = { egressDir, udp: isolation === "process", unguardedForTests: !guarded };
    let child: ChildProcess;
    try {
      const command = launchCommand({
        nodeFlags,
        readOnly,
        tmpDir,
        egressDir,
        limits,
        namespaces: isolation === "namespaces",
        nice: true,
      });
      child = fork(WORKER, [JSON.stringify(guard), JSON.stringify(PACKAGE_ENTRIES)], {
        env: { TMPDIR: tmpDir },
        cwd: tmpDir,
        stdio: ["ignore", "ignore", "pipe", "ipc"],
        ...command,
      });
    } catch (err) {
      egress.close();
      throw err;
    }
    // Without `nice` in the chain (other platforms), the worker is reniced directly.
    if (!TOOLS.nice) lowerPriority(child.pid);
    // Heap limit plus room for Node itself and modest Buffers.
    const rssLimit = (options.memoryMb * 1.5 + 96) * 1024 * 1024;
    const proc = new SandboxProcess(child, tmpDir, rssLimit, egress, isolation, limits.retireAfterCpuSeconds);
    await new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        clearTimeout(timer);
        child.off("message", onReady);
        child.off("exit", onExit);
        if (err) reject(err);
        else resolve();
      };
      const onReady = (m: { t?: string }) => {
        if (m?.t === "ready") settle();
      };
      const onExit = () => settle(startError(proc.stderrTail, limits, startupBytes));
      // A Node starved of data at start may hang instead of aborting (Node 20 does below ~50 MiB).
      const timer = setTimeout(() => {
        proc.kill();
        settle(startError(proc.stderrTail, limits, startupBytes, START_TIMEOUT_MS));
      }, START_TIMEOUT_MS);
      child.on("message", onReady);
      child.on("exit", onExit);
    });
    proc.workerPid = isolation === "namespaces" ? leafDescendant(child.pid) : child.pid;
    return proc;
  }

  /**
   * CPU seconds the worker has used over its life. Past `retireAfterCpuSeconds` the pool replaces it,
   * well before the kernel's limit (which is there for a host that could not).
   */
  cpuSeconds(): number {
    return this.workerPid ? cpuSecondsOf(this.workerPid) : 0;
  }

  /** When `spent` reads the worker's CPU time again (ms). */
  private nextSpentCheck = 0;

  /**
   * Whether the worker has used its CPU time and should be replaced. Asked at every release, so
   * /proc is read only when the budget could be used up by now: a process uses at most one CPU
   * second per wall second per core. (Read at every release, that synchronous read sat between
   * every batch's answer and its commit.)
   */
  get spent(): boolean {
    const now = Date.now();
    if (now < this.nextSpentCheck) return false;
    const used = this.cpuSeconds();
    if (used >= this.retireAfterCpuSeconds) return true;
    this.nextSpentCheck = now + ((this.retireAfterCpuSeconds - used) * 1000) / CORES;
    return false;
  }

  /** Why the host killed it mid-run (counted already), if it did. */
  get killedReason(): "timeout" | "oom" | undefined {
    return this.killedFor;
  }

  get alive(): boolean {
    return !this.exited;
  }

  get busy(): boolean {
    return this.pending !== undefined;
  }

  /**
   * Sends one request and resolves with its outcome. On timeout the process is killed (it may
   * be stuck in a loop); the caller must then discard it. In a batch the time limit is per run:
   * each `itemDone` starts it again.
   */
  request(
    message: { id: string; t: string; [k: string]: unknown },
    timeoutMs: number,
    onStream: (m: WorkerStream) => void,
    origins?: RequestCalls,
  ): Promise<Outcome> {
    if (this.exited) return Promise.resolve({ kind: "crash", detail: "sandbox worker is not running" });
    if (this.pending) throw new Error("sandbox worker is busy");
    return new Promise<Outcome>((resolve) => {
      const timer = setTimeout(() => this.kill("timeout"), timeoutMs);
      this.pending = { id: message.id, resolve, onStream, timer, timeoutMs, origins };
      this.startWatchdog();
      this.child.send(message, (err) => {
        if (err) this.finish({ kind: "crash", detail: `could not reach the sandbox worker: ${err.message}` });
      });
    });
  }

  /** Answers the worker's data store calls as its owner's (set once: a process serves one owner). */
  serveCalls(calls: CallServer | undefined): void {
    this.calls = calls;
  }

  /** Runs one call of the request being served and sends its answer back (never to a dead worker). */
  private answerCall(m: WorkerStream): void {
    const reply = (body: Record<string, unknown>) => {
      if (this.exited) return;
      this.child.send({ t: "reply", call: m.call, ...body }, () => undefined);
    };
    const calls = this.calls;
    if (!calls) return reply({ error: { message: "data stores are not available here" } });
    calls.handle(String(m.op), m.args, this.contextOf(m)).then(
      (value) => reply({ value: value ?? null }),
      (err: unknown) => reply({ error: calls.error(err) }),
    );
  }

  /** A call's run and step (the worker tags it with the step's or the run's index), if it has one. */
  private contextOf(m: WorkerStream): CallContext | undefined {
    return callContext(this.pending?.origins, m.item);
  }

  kill(reason?: "timeout" | "oom"): void {
    if (reason && !this.killedFor) {
      this.killedFor = reason;
      sandboxKills.inc({ reason });
    }
    if (this.exited) return;
    this.child.kill("SIGKILL");
    // In namespaces mode the child is bwrap: the worker goes with it (--die-with-parent), and at once.
    if (this.workerPid && this.workerPid !== this.child.pid) {
      try {
        process.kill(this.workerPid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }

  private onMessage(m: WorkerDone | WorkerStream): void {
    const p = this.pending;
    if (!p || m.id !== p.id) return;
    // A run that ended on the kernel's data limit ran out of memory, as if the watchdog (which
    // may not have polled yet) had stopped it: the worker is replaced, the run is OUT_OF_MEMORY.
    if ((m.t === "done" || m.t === "itemDone") && isAllocationFailure(m.error)) return this.kill("oom");
    if (m.t === "call") return this.answerCall(m as WorkerStream);
    if (m.t === "done") return this.finish({ kind: "done", message: m as WorkerDone });
    if (m.t === "itemDone") {
      clearTimeout(p.timer);
      // The last run's itemDone also ends the request (one message less per batch).
      if (m.last === true) {
        p.onStream(m as WorkerStream);
        return this.finish({ kind: "done", message: { t: "done", id: m.id } });
      }
      p.timer = setTimeout(() => this.kill("timeout"), p.timeoutMs);
    }
    p.onStream(m as WorkerStream);
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    this.exited = true;
    if (this.watchdog) clearInterval(this.watchdog);
    this.egress.close();
    // Read before the directory goes; only a request it did not finish needs it.
    const progress = this.pending ? readProgress(this.tmpDir) : undefined;
    fs.rm(this.tmpDir, { recursive: true, force: true }, () => undefined);
    const heapAbort =
      /heap out of memory|Reached heap limit|Allocation failed|Fatal process out of memory/i.test(
        this.stderrTail,
      );
    // The kernel's CPU time limit (SIGXCPU; bwrap reports its child's signal as 128 + 24).
    const cpuLimit =
      signal === "SIGXCPU" ||
      (this.isolation === "namespaces" && code === 128 + os.constants.signals.SIGXCPU);
    let outcome: Outcome;
    const noted = progress === undefined ? {} : { progress };
    if (this.killedFor === "timeout" || cpuLimit) outcome = { kind: "timeout", ...noted };
    else if (this.killedFor === "oom" || heapAbort) outcome = { kind: "oom", ...noted };
    else
      outcome = {
        kind: "crash",
        detail: `sandbox worker exited (${signal ?? code}): ${this.stderrTail.trim().slice(-500)}`,
        ...noted,
      };
    this.finish(outcome);
  }

  private finish(outcome: Outcome): void {
    const p = this.pending;
    if (!p) return;
    this.pending = undefined;
    clearTimeout(p.timer);
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
    p.resolve(outcome);
  }

  /** Polls the worker's resident size while it serves a request (Linux /proc; skipped elsewhere). */
  private startWatchdog(): void {
    const pid = this.workerPid;
    if (!pid || process.platform !== "linux") return;
    const statm = `/proc/${pid}/statm`;
    this.watchdog = setInterval(() => {
      fs.readFile(statm, "utf8", (err, text) => {
        if (err) return;
        const rssPages = Number(text.split(" ")[1]);
        if (rssPages * 4096 > this.rssLimitBytes) this.kill("oom");
      });
    }, 100);
    this.watchdog.unref();
  }
}

/** How long a worker may take to start (it takes well under a second on an idle machine). */
const START_TIMEOUT_MS = 30_000;

/**
 * Why a worker did not start. A kernel data limit below what this Node reserves at start kills
 * it in V8's start-up ("Fatal process out of memory: Failed to reserve virtual memory for
 * CodeRange") or stalls it: that is said in terms of the limit, not as a crash to retry.
 */
function startError(stderr: string, limits: KernelLimits, startupBytes: number, timedOutMs?: number): Error {
  const mib = (n: number) => Math.round(n / (1024 * 1024));
  const limited = Boolean(TOOLS.prlimit);
  // V8's own words, or (a thread that could not be created, a stall) a limit below the measure.
  const starved = /out of memory|Failed to reserve|Cannot allocate memory/i.test(stderr);
  if (limited && (starved || limits.dataBytes < startupBytes))
    return new Error(
      `sandbox worker cannot start: its kernel data limit (RLIMIT_DATA, ${mib(limits.dataBytes)} MiB) is below what ` +
        `Node ${process.version} reserves to start a worker (${mib(startupBytes)} MiB, measured) plus its heap`,
    );
  if (timedOutMs !== undefined)
    return new Error(`sandbox worker did not start within ${timedOutMs / 1000} s`);
  return new Error(`sandbox worker failed to start: ${stderr.trim().slice(-500)}`);
}

/** V8's error when an ArrayBuffer (a Buffer's memory) cannot be had: here, RLIMIT_DATA. */
function isAllocationFailure(error: unknown): boolean {
  const e = error as WorkerError | undefined;
  return e?.name === "RangeError" && e.message === "Array buffer allocation failed";
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return true;
  }
}

/** Renices a worker SANDBOX_NICE below the server; where the platform refuses, it runs at the server's priority. */
function lowerPriority(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    os.setPriority(pid, Math.min(19, os.getPriority() + SANDBOX_NICE));
  } catch {
    // Not permitted here (some containers): the worker keeps the default priority.
  }
}
