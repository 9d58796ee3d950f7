/**
 * The failures that are the platform's, not the job's (a worker that died of something else than
 * its run, a database step that failed): the queue retries them, while any other error ends
 * (deletes) the job. A module of its own so the queue, the invoker and the job handlers can all
 * use it without importing each other.
 */

/** The worker died for a reason that is not the job's own, or a platform step failed. */
export class PlatformFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PlatformFailure";
  }
}

/**
 * Runs a database step of a job's handling; its failure is the platform's, not the job's: the
 * queue retries a PlatformFailure, while any other error ends (deletes) the job.
 */
export async function platformStep<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new PlatformFailure(`${what} failed: ${err instanceof Error ? err.message : String(err)}`);
  }
}

