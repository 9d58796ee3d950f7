/**
 * A workflow's triggers as its content holds them (decisions.md "Workflow triggers"): schedules,
 * and endpoint auth whose token is kept only as its SHA-256 digest (a token has at least 16
 * printable characters, chosen or generated: a digest without salt is enough to make the stored
 * value useless to a reader, and lets a request be checked with one hash and a constant-time
 * compare). How inputs become that form, checked; and how it is answered (never the token).
 */
import { createHash } from "node:crypto";
import type { HttpAuth, HttpAuthInput, Schedule, ScheduleInput } from "../../../shared/resources/index.js";
import { checkCron, nextCronTick } from "./zone-time.js";

/** Endpoint auth as stored: the token's digest (hex). */
export type StoredHttpAuth = { type: "none" } | { type: "bearer"; token_sha256: string };

export interface WorkflowTriggers {
  schedules: Schedule[];
  http_auth: StoredHttpAuth;
}

/** A trigger input the server refuses: 400 with `details` naming the field. */
export class TriggerInputError extends Error {
  constructor(
    message: string,
    readonly details: Array<{ path: string; message: string }>,
  ) {
    super(message);
  }
}

export const NO_AUTH: StoredHttpAuth = { type: "none" };

export const tokenDigest = (token: string): Buffer => createHash("sha256").update(token, "utf8").digest();

/** A row's `triggers_json` (or a version's fields), defaults filled in. */
export function triggersOf(
  stored: { schedules?: unknown; http_auth?: unknown } | null | undefined,
): WorkflowTriggers {
  const auth = stored?.http_auth as StoredHttpAuth | undefined;
  return {
    schedules: Array.isArray(stored?.schedules) ? (stored.schedules as Schedule[]) : [],
    http_auth: auth?.type === "bearer" && typeof auth.token_sha256 === "string" ? auth : NO_AUTH,
  };
}

export const parseTriggersJson = (json: string | null | undefined): WorkflowTriggers =>
  triggersOf(json ? (JSON.parse(json) as object) : null);

/** Each schedule checked and in its answered form (a cron's zone UTC unless it names one). */
export function schedulesOf(inputs: ScheduleInput[]): Schedule[] {
  return inputs.map((s, i) => {
    if ("interval_seconds" in s) return { interval_seconds: s.interval_seconds };
    const cron = s.cron.trim().split(/\s+/).join(" ");
    try {
      checkCron(cron);
      // One that never comes (none left in cron-parser's range) is refused here, not when it is stored.
      nextCronTick(cron, s.timezone ?? "UTC", Date.now());
    } catch (err) {
      const why = (err as Error).message;
      throw new TriggerInputError(`schedules[${i}].cron: invalid cron expression "${cron}": ${why}`, [
        { path: `schedules.${i}.cron`, message: `invalid cron expression: ${why}` },
      ]);
    }
    return { cron, timezone: s.timezone ?? "UTC" };
  });
}

/**
 * Endpoint auth after an input: a new token replaces the old (its digest is kept), `{type:
 * "bearer"}` alone keeps the current one, and is refused when there is none.
 */
export function httpAuthOf(input: HttpAuthInput, current: StoredHttpAuth): StoredHttpAuth {
  if (input.type === "none") return NO_AUTH;
  if (input.token !== undefined)
    return { type: "bearer", token_sha256: tokenDigest(input.token).toString("hex") };
  if (current.type === "bearer") return current;
  throw new TriggerInputError(
    "http_auth.token: the endpoint has no token yet: give one (16 to 256 printable characters)",
    [{ path: "http_auth.token", message: "required: the endpoint has no token yet" }],
  );
}

/** The fields of a change after its trigger inputs, against the current triggers. */
export function triggerFieldsOf(
  body: { schedules?: ScheduleInput[] | undefined; http_auth?: HttpAuthInput | undefined },
  current: WorkflowTriggers,
): Partial<WorkflowTriggers> {
  return {
    ...(body.schedules !== undefined ? { schedules: schedulesOf(body.schedules) } : {}),
    ...(body.http_auth !== undefined ? { http_auth: httpAuthOf(body.http_auth, current.http_auth) } : {}),
  };
}

/** Endpoint auth as answered. */
export const httpAuthAnswer = (a: StoredHttpAuth): HttpAuth =>
  a.type === "bearer" ? { type: "bearer", token_set: true } : { type: "none" };

/**
 * The triggers' part of a content's text, keys in one order: absent while they are the defaults
 * (so versions from before them keep their texts).
 */
export function triggersText(c: WorkflowTriggers): Partial<WorkflowTriggers> {
  return {
    ...(c.schedules.length > 0
      ? {
          schedules: c.schedules.map((s) =>
            "cron" in s ? { cron: s.cron, timezone: s.timezone } : { interval_seconds: s.interval_seconds },
          ),
        }
      : {}),
    ...(c.http_auth.type === "bearer"
      ? { http_auth: { type: "bearer" as const, token_sha256: c.http_auth.token_sha256 } }
      : {}),
  };
}

/** A workflow row's `triggers_json`: NULL for the defaults. */
export function triggersJson(c: WorkflowTriggers): string | null {
  const t = triggersText(c);
  return Object.keys(t).length > 0 ? JSON.stringify(t) : null;
}

/** What the endpoint checks of a workflow's row: its token's digest, when it has one. */
export function bearerOf(json: string | null | undefined): { bearerSha256?: Buffer } {
  const auth = parseTriggersJson(json).http_auth;
  return auth.type === "bearer" ? { bearerSha256: Buffer.from(auth.token_sha256, "hex") } : {};
}
