/**
 * The owner's environment variables on their way to a worker (services.ts RunEnv; the worker's
 * side is sandbox/env.cjs): every request to a pool worker says which set its run reads, and
 * carries the variables only when that worker does not hold that set yet. A warm worker of a
 * user with 200 variables is sent them once, not with every run.
 */
import type { EnvOpener, RunEnv } from "../services.js";
import { PlatformFailure } from "./platform-failure.js";
import type { SandboxProcess } from "./sandbox/process.js";

export const EMPTY_ENV: RunEnv = Object.freeze({ key: "", vars: Object.freeze({}), redactor: undefined });

/** The set each live worker holds (a worker that died is dropped with its entry). */
const heldBy = new WeakMap<SandboxProcess, string>();

export interface EnvField {
  env: { key: string; vars?: Readonly<Record<string, string>> };
}

/** The `env` field of a request to `proc`. Call right before sending it. */
export function envField(proc: SandboxProcess, env: RunEnv): EnvField {
  if (env.key === "" || heldBy.get(proc) === env.key) return { env: { key: env.key } };
  heldBy.set(proc, env.key);
  return { env: { key: env.key, vars: env.vars } };
}

/** `userId`'s variables for a run; a failed read is the platform's (the queue retries the job). */
export async function envForRun(opener: EnvOpener | undefined, userId: string): Promise<RunEnv> {
  if (!opener) return EMPTY_ENV;
  try {
    return await opener.forRun(userId);
  } catch (e) {
    throw new PlatformFailure(
      `reading the environment variables failed: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
