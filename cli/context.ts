/**
 * What every command receives: its output, the connection (made on first use, closed at exit),
 * and the signal that a SIGINT, SIGTERM or SIGHUP arrived.
 */
import type { Connection } from "./connection/resolve.js";
import type { Output } from "./output/output.js";

export interface Context {
  out: Output;
  env: NodeJS.ProcessEnv;
  /** The project root (holds server/ and node_modules). */
  appRoot: string;
  /** Aborted on SIGINT, SIGTERM or SIGHUP. */
  signal: AbortSignal;
  /**
   * Called by commands that run until stopped (`-f`, `dev`): a signal then ends them normally
   * (they clean up and exit 0). Any other command is interrupted with exit code 130.
   */
  endsOnSignal(): void;
  /** The API connection; the first call connects (and may start the local server). */
  connect(): Promise<Connection>;
}

/** Resolves when the signal is aborted (at once if it already is). */
export function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
