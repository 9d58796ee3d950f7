export { connectSse } from "./client.js";
export type { SseClientOptions, SseConnection, SseMessage, SseState, SseStateInfo } from "./client.js";
export { backoffDelay } from "./backoff.js";
export type { BackoffOptions } from "./backoff.js";
export { toEventSummary, unwrapEmit } from "./unwrap.js";
export type { SummaryContext } from "./unwrap.js";
