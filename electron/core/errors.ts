/**
 * Turning anything that went wrong into a `BridgeError` a user can read: API errors keep the
 * server's status and code with a clearer message where the server's own is terse (a refused
 * key, an unreachable server); argument errors name the argument.
 */
import type { z } from "zod";
import type { BridgeError } from "../../shared/bridge.js";
import { ApiError } from "../../shared/client/index.js";

export class HostError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = "HostError";
  }
}

export function toBridgeError(err: unknown, context?: { origin?: string }): BridgeError {
  if (err instanceof ApiError) {
    const where = context?.origin ? ` by ${context.origin}` : "";
    let message = err.message;
    // What to do about it is the renderer's to say (it knows where the settings are).
    if (err.status === 401) {
      message = `The API key was refused${where}: ${err.message}.`;
    } else if (err.status === 429) {
      message = `Limit reached: ${err.message}`;
    } else if (err.status >= 500) {
      message = `The server failed (${err.status}): ${err.message}`;
    }
    return { status: err.status, code: err.code, message, ...(err.details ? { details: err.details } : {}) };
  }
  if (err instanceof HostError) return { status: err.status, code: err.code, message: err.message };
  const text = err instanceof Error ? err.message : String(err);
  return { status: 500, code: "host_error", message: `Something went wrong in the app: ${text}` };
}

export function argumentError(method: string, error: z.core.$ZodError): BridgeError {
  const details = error.issues.map((i) => ({ path: formatPath(i.path), message: i.message }));
  const first = details[0];
  return {
    status: 400,
    code: "invalid_argument",
    message: first ? `Invalid ${first.path || "arguments"} for ${method}: ${first.message}` : `Invalid arguments for ${method}`,
    details,
  };
}

/** `[1, "configured_props", "url"]` → `argument 2: configured_props.url`. */
function formatPath(path: PropertyKey[]): string {
  if (path.length === 0) return "";
  const [index, ...rest] = path;
  const arg = typeof index === "number" ? `argument ${index + 1}` : String(index);
  return rest.length ? `${arg}: ${rest.map(String).join(".")}` : arg;
}
