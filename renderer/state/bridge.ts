/**
 * The renderer's only way out: `window.headwater` (shared/bridge.ts). Every call resolves to a
 * result object; `call` turns a failed result into a thrown `BridgeCallError` so react-query and
 * async handlers see ordinary exceptions, with the host's status, code and message kept.
 */
import type { BridgeError, BridgeMethod, BridgeResult, HeadwaterBridge } from "../../shared/bridge.js";

export class BridgeCallError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: BridgeError["details"];
  constructor(e: BridgeError) {
    super(e.message);
    this.name = "BridgeCallError";
    this.status = e.status;
    this.code = e.code;
    this.details = e.details;
  }
}

let override: HeadwaterBridge | null = null;

/** Tests (and nothing else) install a fake bridge here. */
export function setBridgeForTests(b: HeadwaterBridge | null): void {
  override = b;
}

export function getBridge(): HeadwaterBridge {
  const b = override ?? window.headwater;
  if (!b) {
    throw new BridgeCallError({
      status: 0,
      code: "no_host",
      message: "The dashboard is not connected to its host. Start it with `npm start` or `npm run web`.",
    });
  }
  return b;
}

type Value<M extends BridgeMethod> =
  Awaited<ReturnType<HeadwaterBridge[M]>> extends BridgeResult<infer T> ? T : never;

/** Calls one bridge method and returns its value, or throws a `BridgeCallError`. */
export async function call<M extends BridgeMethod>(
  method: M,
  ...args: Parameters<HeadwaterBridge[M]>
): Promise<Value<M>> {
  const b = getBridge();
  const fn = b[method] as (...a: unknown[]) => Promise<BridgeResult<Value<M>>>;
  let result: BridgeResult<Value<M>>;
  try {
    result = await fn.apply(b, args);
  } catch (err) {
    // The contract says calls never reject; if the host broke it, still show words, not a crash.
    throw new BridgeCallError({
      status: 0,
      code: "host_error",
      message: `The dashboard host failed: ${err instanceof Error ? err.message : String(err)}`,
    });
  }
  if (!result.ok) throw new BridgeCallError(result.error);
  return result.value;
}
