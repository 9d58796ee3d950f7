/**
 * Tables owned by the core concern (users, keys, components, sources); created by 0001_core
 * (registry_keys by 0004; the users' admin fields by 0005).
 * Conventions (see db.ts): times are integers, booleans 0/1, JSON is TEXT.
 * `created_ms` orders lists newest first; it is strictly increasing within one server process.
 */

export interface UsersTable {
  id: string;
  username: string;
  email: string;
  admin: number;
  created_ms: number;
  created_at: number;
  updated_at: number;
  /** 1: the key is refused and nothing of the user's runs (0005). */
  disabled: number;
  /** The user's own daily quotas; NULL: the server's default (0005). */
  daily_invocations_quota: number | null;
  daily_compute_ms_quota: number | null;
}

/** API keys, stored only as SHA-256 hex digests. A user holds exactly one live key. */
export interface ApiKeysTable {
  key_hash: string;
  user_id: string;
  created_at: number;
}

/**
 * Who published each key to the registry (a namespace of its own; within an account, keys are
 * free: see migration 0004). Built-in components hold theirs, under the system user.
 */
export interface RegistryKeysTable {
  key: string;
  user_id: string;
  created_at: number;
}

export interface ComponentsTable {
  id: string;
  user_id: string;
  key: string | null;
  code: string;
  code_hash: string;
  name: string;
  version: string;
  description: string | null;
  component_url: string | null;
  /** JSON ComponentFiles: modules fetched beside a component_url, by relative path. */
  files: string | null;
  /** JSON PropDescriptor[]: `configurable_props`. */
  props: string;
  /** JSON of the rest of the description the runtime needs: {dedupe, hooks, hasRun}. */
  meta: string;
  published: number;
  created_ms: number;
  created_at: number;
  updated_at: number;
}

export interface SourcesTable {
  id: string;
  user_id: string;
  component_id: string;
  name: string;
  name_slug: string;
  /** JSON: validated, normalised configured_props. */
  configured_props: string;
  active: number;
  created_ms: number;
  created_at: number;
  updated_at: number;
}

export interface CoreTables {
  users: UsersTable;
  api_keys: ApiKeysTable;
  registry_keys: RegistryKeysTable;
  components: ComponentsTable;
  sources: SourcesTable;
}
