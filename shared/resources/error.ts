import * as z from "../zod.js";

/** Body of every error response (decisions.md, Errors). */
export const ErrorBody = z.object({
  error: z.string(),
  code: z.string(),
  details: z.optional(z.array(z.object({ path: z.string(), message: z.string() }))),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The error codes the server uses; clients may meet others from the hosted service. */
export const ERROR_CODES = {
  badRequest: "bad_request",
  invalidJson: "invalid_json",
  validation: "validation_failed",
  badCursor: "bad_cursor",
  unauthorized: "unauthorized",
  forbidden: "forbidden",
  userDisabled: "user_disabled",
  lastAdmin: "last_admin",
  notFound: "not_found",
  conflict: "conflict",
  payloadTooLarge: "payload_too_large",
  quotaExceeded: "quota_exceeded",
  rateLimited: "rate_limited",
  unavailable: "unavailable",
  invalidComponent: "invalid_component",
  componentTimeout: "component_timeout",
  componentFetchFailed: "component_fetch_failed",
  hookFailed: "hook_failed",
  propOptionsFailed: "prop_options_failed",
  accountInUse: "account_in_use",
  dataStoreInUse: "data_store_in_use",
  runNotCancellable: "run_not_cancellable",
  workflowInactive: "workflow_inactive",
  versionConflict: "version_conflict",
  noDraft: "no_draft",
  invalidStep: "invalid_step",
  internal: "internal_error",
} as const;
export type ErrorCode = (typeof ERROR_CODES)[keyof typeof ERROR_CODES];
