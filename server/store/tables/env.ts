/**
 * Users' environment variables (decisions.md "Workflow triggers, environment variables and data
 * stores"); created by 0016_env_vars. A secret's value is only ever stored sealed, under the key
 * that seals connected accounts (server/secrets/keyring.ts); a plain one's as it is.
 */

export interface EnvVarsTable {
  user_id: string;
  name: string;
  /** 1: secret (`sealed`), 0: plain (`value`). */
  secret: number;
  /** A plain variable's value; NULL for a secret. */
  value: string | null;
  /** A secret's value sealed: `hw1.<key id>.<iv>.<ciphertext+tag>`; NULL for a plain one. */
  sealed: string | null;
  /** Which key sealed it: what `headwater secrets rotate` looks for; NULL for a plain one. */
  key_id: string | null;
  created_at: number;
  updated_at: number;
}

export interface EnvTables {
  env_vars: EnvVarsTable;
}
