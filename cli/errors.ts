/**
 * What can go wrong in a command, and the exit code each kind gets:
 * 0 success, 1 an API, network or component error, 2 a usage error (the command line itself is
 * wrong: an unknown flag, a missing argument, a bad value, a file that is not there).
 */
import { ApiError } from "../shared/client/error.js";

export const EXIT = { ok: 0, api: 1, usage: 2, interrupted: 130 } as const;

/** An error with the one line the user sees and the exit code it ends with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.api,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** The command line is wrong: exit 2. */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT.usage);
    this.name = "UsageError";
  }
}

/** One line for any error: the server's message and code for API errors, no stack trace. */
export function describeError(err: unknown): { line: string; exitCode: number } {
  if (err instanceof CliError) return { line: err.message, exitCode: err.exitCode };
  if (err instanceof ApiError) return { line: apiErrorLine(err), exitCode: EXIT.api };
  const message = err instanceof Error ? err.message : String(err);
  return { line: message.split("\n")[0] ?? "unexpected error", exitCode: EXIT.api };
}

export function apiErrorLine(err: ApiError): string {
  if (err.status === 0) return `${err.message} (${err.code}): is the server running, and is the URL right?`;
  if (err.status === 401) return `the server refused the API key: ${err.message} (${err.code})`;
  const detail = err.details?.[0];
  const where = detail && !err.message.includes(detail.path) ? ` [${detail.path}: ${detail.message}]` : "";
  return `${err.message}${where} (${err.code}, HTTP ${err.status})`;
}
