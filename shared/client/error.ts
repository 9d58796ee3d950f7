import { ErrorBody } from "../resources/error.js";

/** A failed API call: the HTTP status, the server's `code` and its human-readable message. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorBody["details"];

  constructor(status: number, code: string, message: string, details?: ErrorBody["details"]) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.details = details;
  }

  /** Builds the error from a response body, whatever shape the server gave it. */
  static fromBody(status: number, body: unknown): ApiError {
    const parsed = ErrorBody.safeParse(body);
    if (parsed.success) {
      return new ApiError(status, parsed.data.code, parsed.data.error, parsed.data.details);
    }
    const text =
      typeof body === "string" && body.length > 0
        ? body.slice(0, 300)
        : typeof body === "object" && body !== null && "error" in body
          ? String((body as { error: unknown }).error)
          : `HTTP ${status}`;
    return new ApiError(status, status === 0 ? "network_error" : `http_${status}`, text);
  }
}
