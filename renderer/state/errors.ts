/** Turns any error into words for a person: a short title, the message, and the code. */
import { BridgeCallError } from "./bridge.js";

export interface ErrorDescription {
  title: string;
  message: string;
  code: string | null;
  details: { path: string; message: string }[];
}

const TITLES: Record<string, string> = {
  network_error: "Cannot reach the server",
  unauthorized: "The API key was refused",
  forbidden: "Not allowed",
  not_found: "Not found",
  conflict: "Already taken",
  validation_failed: "Some values are not valid",
  invalid_argument: "Some values are not valid",
  bad_request: "The request was not accepted",
  invalid_json: "The request was not accepted",
  payload_too_large: "Too large",
  quota_exceeded: "Daily quota used up",
  rate_limited: "Too many requests",
  invalid_component: "The component code has a problem",
  component_timeout: "The component took too long",
  component_fetch_failed: "The component could not be fetched",
  hook_failed: "The component's hook failed",
  no_profile: "No connection selected",
  no_host: "Not connected to the host",
  no_mcp: "No MCP endpoint",
  timeout: "No answer in time",
  unexpected_response: "Unexpected answer from the server",
  internal_error: "The server had a problem",
  data_store_in_use: "The store is in use",
};

const HINTS: Record<string, string> = {
  unauthorized: "Check this connection's API key in Account → Connections.",
  network_error: "Check that the server is running and the base URL is right.",
  quota_exceeded: "Quotas reset at 00:00 UTC.",
  no_profile: "Choose or add a connection in Account → Connections.",
};

export function describeError(err: unknown): ErrorDescription {
  if (err instanceof BridgeCallError) {
    const hint = HINTS[err.code];
    const message = err.message || `Request failed (${err.status || "no answer"})`;
    return {
      title: TITLES[err.code] ?? (err.status >= 500 ? "The server had a problem" : "Something went wrong"),
      // The host's own message may already say what to do; add ours only when it does not.
      message: hint && !/\bcheck\b/i.test(message) ? `${message} ${hint}` : message,
      code: err.code,
      details: err.details ?? [],
    };
  }
  const message = err instanceof Error ? err.message : typeof err === "string" ? err : "Unknown error";
  return { title: "Something went wrong", message, code: null, details: [] };
}

/** One line: "Not found: no source dc_x". */
export function errorLine(err: unknown): string {
  const d = describeError(err);
  return `${d.title}: ${d.message}`;
}
