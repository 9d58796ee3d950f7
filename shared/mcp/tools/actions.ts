/**
 * The vendor's actions for an agent (decisions.md "Actions"): find an app's actions and run one
 * by key with its props, as `GET /actions` and `POST /actions/run` do. An action acts on the
 * outside world (a row inserted, a message sent), so run_action says so in its hints.
 */
import { z } from "zod";
import { CREATE, READ, tool } from "./define.js";

/** What an agent needs to choose an action and fill its props. */
const ActionOut = z.object({
  key: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  version: z.string(),
  app: z.string().nullable(),
  props: z.array(z.record(z.string(), z.unknown())),
});

export const listActions = tool({
  name: "list_actions",
  title: "List an app's actions",
  description:
    "Finds the actions of an app's package (e.g. app `postgresql`: insert-row, find-row, execute-custom-query; app `helper_functions`: base64, dates, JSON), and the user's own actions, with each one's props (name, type, optional, app for credentials). Use it before run_action to learn the key and the props. The first listing of an app installs its package and can take a while.",
  input: {
    app: z.string().min(1).max(100).regex(/^[a-z0-9_.-]+$/, "an app name, e.g. postgresql").optional().describe("the app, e.g. `postgresql`; without it only the user's own actions"),
    q: z.string().max(200).optional().describe("text to look for in the key, name and description"),
    limit: z.number().int().min(1).max(100).default(20).describe("most actions to answer (default 20)"),
  },
  output: { actions: z.array(ActionOut), total_count: z.number() },
  annotations: READ,
  run: async ({ app, q, limit }, { deps }) => {
    const all = await deps.client.listActions({ ...(app !== undefined ? { app } : {}), ...(q !== undefined ? { q } : {}) });
    return { actions: all.slice(0, limit) as Array<z.infer<typeof ActionOut>>, total_count: all.length };
  },
});

export const runAction = tool({
  name: "run_action",
  title: "Run an action",
  description:
    "Runs an action by key (from list_actions) with its props, in the sandbox, as the user (it counts against their daily quota), and answers its return value, exports, summary and logs. An app prop takes a connected account: `{\"authProvisionId\": \"apn_...\"}`. A thrown error is the answer's `error`, not a refusal. Actions act on outside services: inserting, sending and deleting there cannot be undone from here.",
  input: {
    key: z.string().min(1).max(200).describe("the action's key, e.g. `postgresql-insert-row`"),
    configured_props: z.record(z.string(), z.unknown()).default({}).describe("the props by name; an app prop as {authProvisionId}"),
  },
  output: {
    ret: z.unknown(),
    exports: z.record(z.string(), z.unknown()),
    summary: z.string().nullable(),
    logs: z.array(z.object({ level: z.string(), message: z.string() })),
    error: z.object({ name: z.string(), message: z.string() }).nullable(),
    duration_ms: z.number(),
  },
  annotations: { ...CREATE, openWorldHint: true },
  run: async ({ key, configured_props }, { deps }) => {
    const r = await deps.client.runAction({ key, configured_props });
    return { ret: r.ret, exports: r.exports, summary: r.summary, logs: r.logs, error: r.error, duration_ms: r.duration_ms };
  },
});
