/**
 * The command line that starts a sandbox worker, in either isolation mode (isolation.ts):
 *
 *   setpriv --pdeathsig KILL --             dies with the server, even by kill -9
 *   prlimit --data --cpu --core --          kernel limits: memory and CPU time (limits below)
 *   nice -n SANDBOX_NICE --                 a lower CPU priority than the server
 *   bwrap <namespaces, mounts> --           namespaces mode only
 *   node <permission model flags> worker.cjs <guard config>
 *
 * Each wrapper execs the next, so in process mode the forked pid is the worker's own. In
 * namespaces mode it is the outer bwrap; the worker is its descendant (see workerPid).
 */
import fs from "node:fs";
import { execFileSync } from "node:child_process";
import path from "node:path";
import { resolved, type ReadOnlyPath } from "./mounts.js";
import { startupDataBytes } from "./node-runtime.js";

/** How much nicer than the server the workers run (niceness goes up to 19, the lowest priority). */
export const SANDBOX_NICE = 10;

const tool = (name: string): string | undefined => {
  if (process.platform !== "linux") return undefined;
  for (const dir of ["/usr/bin", "/bin", "/usr/sbin", "/sbin"]) {
    const p = path.join(dir, name);
    if (fs.existsSync(p)) return p;
  }
  return undefined;
};
export const TOOLS = {
  setpriv: tool("setpriv"),
  prlimit: tool("prlimit"),
  nice: tool("nice"),
  bwrap: tool("bwrap"),
};

export interface KernelLimits {
  /** RLIMIT_DATA in bytes: the heap, Buffers and every other private writable mapping. */
  dataBytes: number;
  /** RLIMIT_CPU in seconds, over the worker's life (SIGXCPU, then SIGKILL a second later). */
  cpuSeconds: number;
  /** CPU seconds after which the pool replaces the worker (not a kernel limit). */
  retireAfterCpuSeconds: number;
}

/**
 * Kernel limits for a worker with a heap of `memoryMb` and requests of at most `timeoutMs`, on a
 * Node whose bare worker reserves `startupBytes` of data to start (node-runtime.ts measures it:
 * about 50 MiB on Node 20 and 22, about 560 MiB on Node 24, whose V8 reserves its code range as
 * data; a fixed figure would either stop Node 24 from starting or leave Node 20 far too much).
 * Data: that reservation + the heap + as much again for Buffers + STARTUP_HEADROOM_MB for the
 * worker's own code and native allocations: above the RSS watchdog (which stops a run first, as
 * OUT_OF_MEMORY), it refuses what the watchdog would see too late (one huge allocation) or not
 * at all (a host too busy to poll).
 * CPU: a worker lives across many requests, so the budget is per life: RETIRE_CPU_SECONDS,
 * after which the pool replaces the worker (pool.ts), plus two of the longest requests.
 */
export const RETIRE_CPU_SECONDS = 600;
export const STARTUP_HEADROOM_MB = 192;
export function kernelLimitsFor(memoryMb: number, timeoutMs: number, startupBytes: number): KernelLimits {
  const mib = 1024 * 1024;
  return {
    dataBytes: Math.ceil(startupBytes / mib) * mib + (memoryMb * 2 + STARTUP_HEADROOM_MB) * mib,
    cpuSeconds: RETIRE_CPU_SECONDS + 2 * Math.ceil(timeoutMs / 1000),
    retireAfterCpuSeconds: RETIRE_CPU_SECONDS,
  };
}

/** kernelLimitsFor on the Node running this process (measured once). */
export async function kernelLimitsHere(memoryMb: number, timeoutMs: number): Promise<KernelLimits> {
  return kernelLimitsFor(memoryMb, timeoutMs, await startupDataBytes());
}

export interface LaunchSpec {
  nodeFlags: string[];
  readOnly: ReadOnlyPath[];
  /** Writable, the worker's cwd. */
  tmpDir: string;
  /** The egress proxy's directory (its unix sockets). */
  egressDir: string;
  limits: KernelLimits | undefined;
  namespaces: boolean;
  nice: boolean;
}

/** execPath and execArgv for child_process.fork (the script and its args come after them). */
export function launchCommand(spec: LaunchSpec): { execPath: string; execArgv: string[] } {
  const chain: string[] = [];
  if (TOOLS.setpriv) chain.push(TOOLS.setpriv, "--pdeathsig", "KILL", "--");
  if (spec.limits && TOOLS.prlimit) {
    const { dataBytes, cpuSeconds } = spec.limits;
    chain.push(
      TOOLS.prlimit,
      `--data=${dataBytes}`,
      `--cpu=${cpuSeconds}:${cpuSeconds + 1}`,
      "--core=0",
      "--",
    );
  }
  if (spec.nice && TOOLS.nice) chain.push(TOOLS.nice, "-n", String(SANDBOX_NICE), "--");
  if (spec.namespaces) chain.push(...bwrapArgs(spec), "--");
  chain.push(process.execPath, ...spec.nodeFlags);
  const [execPath, ...execArgv] = chain;
  return { execPath: execPath!, execArgv };
}

/**
 * bubblewrap: new user, mount, network, PID, IPC, UTS and cgroup namespaces. The network
 * namespace has only its own loopback (nothing listens there); the file system holds the
 * read-only list, the node binary and the libraries it loads, the temp dir, the egress
 * directory, a minimal /dev and the namespace's own /proc. No /etc, no data dir, no server code.
 */
export function bwrapArgs(spec: Pick<LaunchSpec, "readOnly" | "tmpDir" | "egressDir">): string[] {
  if (!TOOLS.bwrap) throw new Error("bwrap is not installed");
  const args = [
    TOOLS.bwrap,
    "--unshare-user",
    "--unshare-ipc",
    "--unshare-pid",
    "--unshare-net",
    "--unshare-uts",
    "--unshare-cgroup-try",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--hostname",
    "sandbox",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
  ];
  const links = new Map<string, string>();
  const readOnly = [...nodeRuntimePaths(), ...spec.readOnly];
  for (const entry of readOnly) for (const { link, target } of entry.links) links.set(link, target);
  for (const entry of readOnly) {
    if (fs.existsSync(entry.path)) args.push("--ro-bind", entry.path, entry.path);
  }
  for (const [link, target] of links) args.push("--symlink", target, link);
  args.push(
    "--bind",
    spec.tmpDir,
    spec.tmpDir,
    "--ro-bind",
    spec.egressDir,
    spec.egressDir,
    "--chdir",
    spec.tmpDir,
  );
  return args;
}

let runtimePaths: ReadOnlyPath[] | undefined;
/** The node binary and the shared libraries it loads (from ldd), with the links on the way. */
function nodeRuntimePaths(): ReadOnlyPath[] {
  if (runtimePaths) return runtimePaths;
  const node = fs.realpathSync(process.execPath);
  const files = new Set<string>([node]);
  try {
    const out = execFileSync("ldd", [node], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    for (const m of out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)) files.add(m[1]!);
  } catch {
    // No ldd, or a static binary: the system's library folders instead (no secrets there).
    for (const dir of ["/lib", "/lib64", "/usr/lib", "/usr/lib64"]) if (fs.existsSync(dir)) files.add(dir);
  }
  runtimePaths = [...files].map((f) => resolved(f));
  return runtimePaths;
}
