/**
 * Environment variables for an agent (decisions.md "Workflow triggers, environment variables and
 * data stores"): list them, set one, delete one. A secret's value goes in and never comes back:
 * no tool answers it, so an agent can store a key for the user's code without reading it again.
 */
import { z } from "zod";
import { ENV_LIMITS, ENV_NAME_PATTERN, ENV_RESERVED_PREFIX, utf8Bytes } from "../../resources/index.js";
import { CHANGE, DESTROY, READ, tool } from "./define.js";

const EnvVarOut = z.object({
  name: z.string(),
  secret: z.boolean(),
  value: z.string().optional().describe("only for plain (not secret) variables"),
  created_at: z.number(),
  updated_at: z.number(),
});

const Name = z
  .string()
  .regex(ENV_NAME_PATTERN, "a letter or _ followed by letters, digits or _ (at most 64 characters)")
  .refine(
    (n) => !n.startsWith(ENV_RESERVED_PREFIX),
    `names starting with ${ENV_RESERVED_PREFIX} are reserved`,
  )
  .describe("the variable's name, e.g. `OPENAI_API_KEY`: what code reads as process.env.NAME");

/** Only what the answer schema knows: a secret's value is never there to begin with. */
const shown = (v: z.infer<typeof EnvVarOut>) => ({
  name: v.name,
  secret: v.secret,
  ...(v.secret || v.value === undefined ? {} : { value: v.value }),
  created_at: v.created_at,
  updated_at: v.updated_at,
});

export const listEnv = tool({
  name: "list_env",
  title: "List environment variables",
  description:
    "The user's environment variables, by name: what their workflow steps, actions and sources read as process.env.NAME (and action step props as {{process.env.NAME}}). A secret's value is never shown; a plain variable's is.",
  input: {},
  output: { variables: z.array(EnvVarOut), total_count: z.number() },
  annotations: READ,
  run: async (_a, { deps }) => {
    const all = await deps.client.listMyEnvVars();
    return { variables: all.map(shown), total_count: all.length };
  },
});

export const setEnv = tool({
  name: "set_env",
  title: "Set an environment variable",
  description: `Creates or replaces an environment variable of the user. Secret by default (secret: false for a plain one): a secret's value is stored encrypted, shown as **** in run logs and records, and never answered again, by this or any tool. Runs that start after the answer read the new value. At most ${ENV_LIMITS.perUser} variables, ${ENV_LIMITS.valueBytes} bytes per value.`,
  input: {
    name: Name,
    value: z
      .string()
      .refine((v) => utf8Bytes(v) <= ENV_LIMITS.valueBytes, `at most ${ENV_LIMITS.valueBytes} bytes`)
      .describe("the value (text)"),
    secret: z.boolean().default(true).describe("false for a value that may be shown (default true)"),
  },
  output: { variable: EnvVarOut },
  annotations: CHANGE,
  run: async ({ name, value, secret }, { deps }) => ({
    variable: shown(await deps.client.setEnvVar(name, { value, secret })),
  }),
});

export const deleteEnv = tool({
  name: "delete_env",
  title: "Delete an environment variable",
  description:
    "Deletes one of the user's environment variables: runs that start after the answer no longer see it. A secret's value cannot be recovered.",
  input: { name: Name },
  output: { deleted: z.literal(true), name: z.string() },
  annotations: DESTROY,
  run: async ({ name }, { deps }) => {
    await deps.client.deleteEnvVar(name);
    return { deleted: true as const, name };
  },
});
