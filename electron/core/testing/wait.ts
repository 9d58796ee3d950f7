/** Polls `check` until it is true; fails with `message` after `timeoutMs`. For tests. */
export async function waitFor(check: () => boolean, timeoutMs = 10_000, message = "condition not met"): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${message}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
