/**
 * Tables of connected accounts (decisions.md "Connected accounts"); created by 0010_accounts.
 * The credential's values are only ever stored sealed (server/secrets/keyring.ts).
 */

export interface AccountsTable {
  id: string;
  user_id: string;
  app: string;
  name: string;
  /** JSON string[]: the credential's field names, answered as `fields`. */
  fields: string;
  /** The values, sealed with AES-256-GCM: `hw1.<key id>.<iv>.<ciphertext+tag>`. */
  sealed: string;
  /** Which key sealed them (also inside `sealed`): what `headwater secrets rotate` looks for. */
  key_id: string;
  /**
   * `<source id>.<prop>` when the server made the account from an inline `$auth` of that source:
   * such an account follows its source (its values replaced when the source's inline values
   * are, removed with the source when nothing else uses it). NULL for accounts made by the user.
   */
  origin: string | null;
  created_ms: number;
  created_at: number;
  updated_at: number;
}

/** Who references an account: one row per (holder, prop). A holder is a source or a workflow. */
export interface AccountUsesTable {
  account_id: string;
  /** The holder's owner (always the account's owner: references never cross users). */
  user_id: string;
  holder_id: string;
  /** The app prop (`pg`), or `<step>.<prop>` in a workflow. */
  prop: string;
}

export interface AccountTables {
  accounts: AccountsTable;
  account_uses: AccountUsesTable;
}
