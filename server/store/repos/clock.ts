/**
 * Creation stamps for list ordering. Lists are newest first by (created_ms, id); two rows made
 * in the same millisecond would tie, so stamps are strictly increasing within this process.
 */
let last = 0;

export function nextCreatedMs(now = Date.now()): number {
  last = now > last ? now : last + 1;
  return last;
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
