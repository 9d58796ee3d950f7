/**
 * A workflow file's triggers on a push (decisions.md "Workflow triggers": `schedules` and
 * `http_auth`): what create and update are sent, and how both sides read for the step-by-step
 * comparison. Both are optional everywhere: a file without them sends neither (the workflow
 * keeps its own), and a server that does not have them answers neither.
 *
 * The endpoint's token is never in a file. `token_env` names the environment variable of the
 * CLI's shell that holds it: set, its value is sent (a new token replaces the server's); unset,
 * the server keeps the token it has, and a workflow without one yet is refused.
 */
import type { Workflow, WorkflowFile } from "../../shared/resources/index.js";
import { UsageError } from "../errors.js";

/** What create and update take of the triggers (fields a server without them does not know). */
export interface TriggerFields {
  schedules?: WorkflowFile["schedules"];
  http_auth?: { type: "none" } | { type: "bearer"; token: string };
}

/** A schedule as compared: its own fields, a cron's zone UTC when it names none. */
function comparableSchedule(s: unknown): Record<string, unknown> {
  const o = (s ?? {}) as Record<string, unknown>;
  return o.interval_seconds !== undefined
    ? { interval_seconds: o.interval_seconds }
    : { cron: o.cron, timezone: o.timezone ?? "UTC" };
}

/** A workflow's triggers as they are compared with a file's: schedules' own fields, the auth's type alone. */
export function comparableTriggers(w: object): Record<string, unknown> {
  const { schedules, http_auth } = w as { schedules?: unknown; http_auth?: unknown };
  const out: Record<string, unknown> = {};
  if (Array.isArray(schedules)) out.schedules = schedules.map(comparableSchedule);
  const type = (http_auth as { type?: unknown } | undefined)?.type;
  if (type !== undefined) out.http_auth = { type };
  return out;
}

/**
 * The triggers the file sends (`current`: the workflow as the server has it; undefined for a
 * new one). A bearer takes the token in `token_env`'s variable when it is set; unset, the
 * server's token is left as it is, and a workflow that has none stops the push, saying so.
 */
export function triggerFields(
  file: WorkflowFile,
  current: Workflow | undefined,
  env: NodeJS.ProcessEnv,
  yamlPath: string,
): TriggerFields {
  const out: TriggerFields = {};
  if (file.schedules !== undefined) out.schedules = file.schedules;
  const auth = file.http_auth;
  if (auth?.type === "none") out.http_auth = { type: "none" };
  if (auth?.type !== "bearer") return out;
  const hasToken = (current?.http_auth as { type?: unknown } | undefined)?.type === "bearer";
  // A token in the named variable is sent (set, or rotated); unset, the server's is kept.
  const given = auth.token_env !== undefined ? env[auth.token_env] : undefined;
  if (given) {
    out.http_auth = { type: "bearer", token: given };
    return out;
  }
  if (hasToken) return out;
  if (auth.token_env === undefined)
    throw new UsageError(
      `${yamlPath}: http_auth: the endpoint has no token yet: set token_env to the name of an environment variable that holds one (the token is never written in the file)`,
    );
  const token = env[auth.token_env];
  if (!token)
    throw new UsageError(
      `${yamlPath}: http_auth.token_env: the environment variable ${auth.token_env} is not set`,
    );
  out.http_auth = { type: "bearer", token };
  return out;
}
