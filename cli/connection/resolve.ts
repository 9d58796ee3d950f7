/**
 * Which server and key a command uses, first match wins:
 *   1. `--api-url` and `--api-key` (both, or neither);
 *   2. `--profile NAME`, a profile saved by `headwater login` (a flag too, so it beats the env);
 *   3. `HEADWATER_API_URL` and `HEADWATER_API_KEY` (both, or neither);
 *   4. the `default` profile, when `headwater login` saved one;
 *   5. the dashboard's Local profile: its embedded server, started when it is not running.
 */
import { normalizeBaseUrl } from "../../electron/core/profiles.js";
import { createClient, type Client } from "../../shared/client/index.js";
import { UsageError } from "../errors.js";
import { httpFetch } from "./http-fetch.js";
import { DEFAULT_PROFILE, profilesPath, readProfiles } from "./profiles-file.js";

export interface ConnectionFlags {
  apiUrl?: string | undefined;
  apiKey?: string | undefined;
  profile?: string | undefined;
}

export interface Connection {
  client: Client;
  baseUrl: string;
  apiKey: string;
  /** Where it came from, for messages. */
  via: "flags" | "env" | "profile" | "local";
  close(): Promise<void>;
}

export interface ConnectOptions {
  appRoot: string;
  env: NodeJS.ProcessEnv;
  /** Shown while the local server starts (it can take a few seconds). */
  starting?: <T>(work: () => Promise<T>) => Promise<T>;
  log: (line: string) => void;
}

/** A client for the CLI: its requests go over node:http (see http-fetch.ts). */
export const cliClient = (baseUrl: string, apiKey: string): Client => createClient({ baseUrl, apiKey, fetch: httpFetch });

const remote = (via: Connection["via"], url: string, apiKey: string, what: string): Connection => {
  const baseUrl = parseApiUrl(url, what);
  return { client: cliClient(baseUrl, apiKey), baseUrl, apiKey, via, close: async () => undefined };
};

export async function connect(flags: ConnectionFlags, opts: ConnectOptions): Promise<Connection> {
  if (flags.apiUrl !== undefined || flags.apiKey !== undefined) {
    if (!flags.apiUrl || !flags.apiKey) throw new UsageError("--api-url and --api-key go together: give both");
    return remote("flags", flags.apiUrl, flags.apiKey, "--api-url");
  }
  const file = profilesPath(opts.env);
  if (flags.profile !== undefined) {
    const saved = readProfiles(file).profiles[flags.profile];
    if (!saved) throw new UsageError(`no profile named ${flags.profile}: run headwater login --profile ${flags.profile}`);
    return remote("profile", saved.apiUrl, saved.apiKey, `profile ${flags.profile}`);
  }
  const envUrl = opts.env.HEADWATER_API_URL || undefined;
  const envKey = opts.env.HEADWATER_API_KEY || undefined;
  if (envUrl !== undefined || envKey !== undefined) {
    if (!envUrl || !envKey) throw new UsageError("set both HEADWATER_API_URL and HEADWATER_API_KEY, or neither");
    return remote("env", envUrl, envKey, "HEADWATER_API_URL");
  }
  const saved = readProfiles(file).profiles[DEFAULT_PROFILE];
  if (saved) return remote("profile", saved.apiUrl, saved.apiKey, `profile ${DEFAULT_PROFILE}`);

  const starting = opts.starting ?? ((work) => work());
  // The local server's code (electron/core) is loaded only when it is the connection.
  const { connectLocal } = await import("./local.js");
  const local = await starting(() => connectLocal({ appRoot: opts.appRoot, env: opts.env, log: opts.log }));
  return {
    client: cliClient(local.baseUrl, local.apiKey),
    baseUrl: local.baseUrl,
    apiKey: local.apiKey,
    via: "local",
    close: () => local.close(),
  };
}

/** An http(s) API base; a bare host gets `/v1`. */
export function parseApiUrl(url: string, what: string): string {
  let base: string;
  try {
    base = normalizeBaseUrl(url);
  } catch {
    throw new UsageError(`${what} is not a URL: ${url}`);
  }
  if (!/^https?:$/.test(new URL(base).protocol)) throw new UsageError(`${what} must be an http(s) URL: ${url}`);
  return base;
}

