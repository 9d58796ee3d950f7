/**
 * Every HEADWATER_* variable, parsed and validated once. Modules receive a `Config`; nothing
 * else reads process.env.
 */
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { DEFAULT_EVENT_RETENTION } from "../shared/resources/index.js";
import { decodeKey } from "./secrets/keyring.js";

/**
 * Two sandbox processes per core, 2 to 8. More processes than that only take turns on the cores:
 * measured on 2 cores at 1,000 events/s, 8 processes doubled each run's round trip against 4.
 * Sources that mostly wait on the network may want more (set the variable).
 */
export function defaultMaxProcesses(): number {
  return Math.min(8, Math.max(2, 2 * os.availableParallelism()));
}

const Int = (min: number, max = Number.MAX_SAFE_INTEGER) =>
  z
    .string()
    .regex(/^\d+$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const Bool = z.enum(["1", "0", "true", "false", "yes", "no"]).transform((v) => ["1", "true", "yes"].includes(v));

/** 32 bytes in base64 (or base64url), as `openssl rand -base64 32` prints. */
const SecretsKey = z
  .string()
  .transform((v, ctx) => {
    const key = decodeKey(v);
    if (!key) ctx.addIssue({ code: "custom", message: "must be 32 bytes in base64 (make one with `openssl rand -base64 32`)" });
    return key ?? Buffer.alloc(0);
  });

const Env = z.object({
  HEADWATER_HOST: z.string().min(1).default("127.0.0.1"),
  HEADWATER_PORT: Int(0, 65535).default(7433),
  HEADWATER_DATA_DIR: z.string().min(1).optional(),
  HEADWATER_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// URL")
    .optional(),
  HEADWATER_API_KEY: z.string().min(16, "must be at least 16 characters").optional(),
  HEADWATER_PUBLIC_URL: z.url().optional(),
  HEADWATER_EVENT_RETENTION: Int(DEFAULT_EVENT_RETENTION).default(DEFAULT_EVENT_RETENTION),
  HEADWATER_STATS_RETENTION_DAYS: Int(1, 3660).default(30),
  HEADWATER_RUN_RETENTION: Int(1).default(1000),
  HEADWATER_DATA_STORE_MAX_KEYS: Int(1).default(100_000),
  HEADWATER_WORKFLOW_RESPONSE_TIMEOUT_MS: Int(100).default(30_000),
  HEADWATER_BODY_LIMIT_BYTES: Int(1024).default(1024 * 1024),
  HEADWATER_DAILY_INVOCATIONS_QUOTA: Int(0).default(100_000),
  HEADWATER_DAILY_COMPUTE_MS_QUOTA: Int(0).default(24 * 60 * 60 * 1000),
  HEADWATER_INVOCATION_TIMEOUT_MS: Int(100).default(300_000),
  HEADWATER_SANDBOX_MEMORY_MB: Int(32).default(256),
  HEADWATER_SANDBOX_MAX_PROCESSES: Int(1).optional(),
  HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK: Bool.default(false),
  HEADWATER_SANDBOX_ISOLATION: z.enum(["auto", "namespaces", "process"]).default("auto"),
  HEADWATER_NPM_INSTALL: Bool.default(true),
  HEADWATER_NPM_REGISTRY: z.url().optional(),
  HEADWATER_NPM_COMPONENTS: Bool.default(true),
  HEADWATER_NPM_COMPONENT_VERSIONS: z
    .string()
    .regex(
      /^\s*(@pipedream\/[a-z0-9_.-]+@[0-9A-Za-z.^~<>=*x+-]+\s*(,\s*|$))*$/,
      "must be a comma-separated list of @pipedream/<app>@<version>",
    )
    .default(""),
  HEADWATER_LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  HEADWATER_NPM_MISS_TTL_SECONDS: Int(0).default(3600),
  HEADWATER_NPM_MAX_INSTALLS: Int(1, 64).default(2),
  HEADWATER_NPM_INSTALLS_PER_USER_HOUR: Int(0).default(20),
  HEADWATER_RATE_LIMIT: Int(0).default(100),
  HEADWATER_ENDPOINT_RATE_LIMIT: Int(0).default(0),
  HEADWATER_METRICS_TOKEN: z.string().min(16, "must be at least 16 characters").optional(),
  HEADWATER_SECRETS_KEY: SecretsKey.optional(),
  HEADWATER_SECRETS_KEY_PREVIOUS: SecretsKey.optional(),
  HEADWATER_MCP_ALLOWED_ORIGINS: z
    .string()
    .regex(/^\s*(https?:\/\/[^\s,/]+\s*(,\s*|$))*$/, "must be a comma-separated list of origins like https://app.example.com")
    .default(""),
});

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** PostgreSQL URL; undefined means the embedded SQLite database under dataDir. */
  databaseUrl: string | undefined;
  /** Bootstrap admin key (`HEADWATER_API_KEY`). */
  bootstrapApiKey: string | undefined;
  /** Base of endpoint URLs; undefined means "http://host:port" once the port is known. */
  publicUrl: string | undefined;
  eventRetention: number;
  /** Runs kept per workflow (the newest; decisions.md "Workflow runs"). */
  runRetention: number;
  /** Most live keys one data store holds (decisions.md "Workflow triggers, environment variables and data stores"). */
  dataStoreMaxKeys: number;
  /** How long a workflow's endpoint waits for `$.respond` (`http_response: "workflow"`) before 504. */
  workflowResponseTimeoutMs: number;
  /** Days of per-minute event stats kept (`GET .../stats`). */
  statsRetentionDays: number;
  bodyLimitBytes: number;
  quotas: { dailyInvocations: number; dailyComputeMs: number };
  sandbox: {
    invocationTimeoutMs: number;
    memoryMb: number;
    maxProcesses: number;
    /** Whether components may connect to loopback and private addresses (never the database's port). */
    allowPrivateNetwork: boolean;
    /** Workers in Linux namespaces (bubblewrap), plain processes, or namespaces where bwrap works. */
    isolation: "auto" | "namespaces" | "process";
  };
  npm: {
    allowInstall: boolean;
    registry: string | undefined;
    /** Look keys up in the vendor's `@pipedream/<app>` packages when no registry component has them. */
    components: boolean;
    /** Versions pinned per vendor package (`@pipedream/rss` → `0.5.2`); the others are `latest`. */
    componentVersions: Record<string, string>;
    /** How long "the registry has no such package" is believed, ms. */
    missTtlMs: number;
    /** `npm install`s running at once, server-wide; more wait (bounded) or get 503. */
    maxInstalls: number;
    /** Installs of packages new to the server one non-admin user may cause per hour (0: no limit). */
    installsPerUserHour: number;
  };
  /** Requests per second per API key on /v1 (burst twice that); 0: off. */
  rateLimit: number;
  /** Requests per second per source endpoint (/e/...) (burst twice that); 0: off. */
  endpointRateLimit: number;
  /** Bearer token that may scrape GET /metrics (besides admin keys). */
  metricsToken: string | undefined;
  logLevel: string;
  /** The key that seals credentials, and the one before it (still opened); see server/secrets. */
  secrets: { key: Buffer | undefined; previousKey: Buffer | undefined };
  /** Origins a browser may call /mcp from (an `Origin` header not listed is refused); none by default. */
  mcpAllowedOrigins: string[];
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new ConfigError(`invalid configuration:\n${lines.join("\n")}`);
  }
  const e = parsed.data;
  return {
    host: e.HEADWATER_HOST,
    port: e.HEADWATER_PORT,
    dataDir: path.resolve(e.HEADWATER_DATA_DIR ?? path.join(os.homedir(), ".headwater")),
    databaseUrl: e.HEADWATER_DATABASE_URL,
    bootstrapApiKey: e.HEADWATER_API_KEY,
    publicUrl: e.HEADWATER_PUBLIC_URL?.replace(/\/+$/, ""),
    eventRetention: e.HEADWATER_EVENT_RETENTION,
    runRetention: e.HEADWATER_RUN_RETENTION,
    dataStoreMaxKeys: e.HEADWATER_DATA_STORE_MAX_KEYS,
    workflowResponseTimeoutMs: e.HEADWATER_WORKFLOW_RESPONSE_TIMEOUT_MS,
    statsRetentionDays: e.HEADWATER_STATS_RETENTION_DAYS,
    bodyLimitBytes: e.HEADWATER_BODY_LIMIT_BYTES,
    quotas: {
      dailyInvocations: e.HEADWATER_DAILY_INVOCATIONS_QUOTA,
      dailyComputeMs: e.HEADWATER_DAILY_COMPUTE_MS_QUOTA,
    },
    sandbox: {
      invocationTimeoutMs: e.HEADWATER_INVOCATION_TIMEOUT_MS,
      memoryMb: e.HEADWATER_SANDBOX_MEMORY_MB,
      maxProcesses: e.HEADWATER_SANDBOX_MAX_PROCESSES ?? defaultMaxProcesses(),
      allowPrivateNetwork: e.HEADWATER_SANDBOX_ALLOW_PRIVATE_NETWORK,
      isolation: e.HEADWATER_SANDBOX_ISOLATION,
    },
    npm: {
      allowInstall: e.HEADWATER_NPM_INSTALL,
      registry: e.HEADWATER_NPM_REGISTRY,
      components: e.HEADWATER_NPM_COMPONENTS,
      componentVersions: Object.fromEntries(
        e.HEADWATER_NPM_COMPONENT_VERSIONS.split(",")
          .map((spec) => spec.trim())
          .filter(Boolean)
          .map((spec) => [spec.slice(0, spec.lastIndexOf("@")), spec.slice(spec.lastIndexOf("@") + 1)]),
      ),
      missTtlMs: e.HEADWATER_NPM_MISS_TTL_SECONDS * 1000,
      maxInstalls: e.HEADWATER_NPM_MAX_INSTALLS,
      installsPerUserHour: e.HEADWATER_NPM_INSTALLS_PER_USER_HOUR,
    },
    rateLimit: e.HEADWATER_RATE_LIMIT,
    endpointRateLimit: e.HEADWATER_ENDPOINT_RATE_LIMIT,
    metricsToken: e.HEADWATER_METRICS_TOKEN,
    logLevel: e.HEADWATER_LOG_LEVEL,
    secrets: { key: e.HEADWATER_SECRETS_KEY, previousKey: e.HEADWATER_SECRETS_KEY_PREVIOUS },
    mcpAllowedOrigins: e.HEADWATER_MCP_ALLOWED_ORIGINS.split(",")
      .map((o) => o.trim())
      .filter(Boolean),
  };
}
