/**
 * `headwater secrets rotate` (the server's entry with `secrets rotate`): every account and every
 * secret environment variable sealed under the current key, safely while servers run
 * (docs/operations.md "Rotating the key").
 *
 * - With `HEADWATER_SECRETS_KEY`: values under any other key this process holds (the previous
 *   one) are opened and sealed again under the current key. The operator has already given every
 *   instance the new key, and the old one as `HEADWATER_SECRETS_KEY_PREVIOUS`.
 * - With the data dir's key file: a new key is made. First everything is sealed under the current
 *   key (so the old previous key can go), then the current key becomes `secrets.key.previous`
 *   and the new one `secrets.key`, then everything is sealed under the new key. A server running
 *   on that data dir reads the files again when it meets the new key's id, so it needs no restart.
 *
 * Each row is re-sealed by compare-and-swap on its sealed text: a PATCH that lands meanwhile wins
 * and the row is read again. Values no held key opens are counted, never changed.
 */
import { sealContext } from "../accounts/service.js";
import type { Config } from "../config.js";
import { resealEnvVars } from "../env/reseal.js";
import { openDb } from "../store/db.js";
import { AccountsRepo } from "../store/repos/accounts.js";
import { EnvVarsRepo } from "../store/repos/env-vars.js";
import { keySourceOf, loadKeyring, readKeyFiles, writeKeyFileAtomically } from "./key-source.js";
import { newKey, SecretsKeyMismatchError, type Keyring } from "./keyring.js";

/** What one pass re-sealed, and what no held key opens (by the key id that sealed it). */
export interface Resealed {
  resealed: number;
  unopenable: Map<string, number>;
}

export interface RotationReport {
  /** The key everything is now sealed under. */
  keyId: string;
  accounts: Resealed;
  /** Secret environment variables. */
  env: Resealed;
  /** The key file was replaced (key-file mode). */
  newKeyFile: boolean;
}

const PAGE = 200;

export async function rotateSecrets(config: Config): Promise<RotationReport> {
  const settings = { ...config.secrets, dataDir: config.dataDir, databaseUrl: config.databaseUrl };
  const source = keySourceOf(settings);
  const store = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 });
  try {
    const repo = new AccountsRepo(store.db);
    const envRepo = new EnvVarsRepo(store.db, store.dialect);
    const everything = async (ring: Keyring) => ({ accounts: await resealAll(repo, ring), env: await resealEnvVars(envRepo, ring) });
    let ring = loadKeyring(settings);
    const first = await everything(ring);
    if (source.kind === "env") return { keyId: ring.currentId, ...first, newKeyFile: false };
    // Key file: the current key becomes the previous one only once nothing needs the old previous.
    if (first.accounts.unopenable.size > 0 || first.env.unopenable.size > 0) {
      return { keyId: ring.currentId, ...first, newKeyFile: false };
    }
    const current = readKeyFiles(source).current;
    writeKeyFileAtomically(source.previousFile, current.key, { replace: true });
    writeKeyFileAtomically(source.file, newKey(), { replace: true });
    ring = loadKeyring(settings);
    const second = await everything(ring);
    const sum = (a: Resealed, b: Resealed): Resealed => ({ resealed: a.resealed + b.resealed, unopenable: b.unopenable });
    return { keyId: ring.currentId, accounts: sum(first.accounts, second.accounts), env: sum(first.env, second.env), newKeyFile: true };
  } finally {
    await store.close();
  }
}

async function resealAll(repo: AccountsRepo, ring: Keyring): Promise<Resealed> {
  let resealed = 0;
  const unopenable = new Map<string, number>();
  let after = "";
  for (;;) {
    const rows = await repo.sealedNotWith(ring.currentId, after, PAGE);
    if (rows.length === 0) break;
    for (const row of rows) {
      after = row.id;
      let sealed = row.sealed;
      // A concurrent update seals the row anew: read it again and retry (it may now be current).
      for (let attempt = 0; attempt < 5; attempt++) {
        let plain: string;
        try {
          plain = ring.open(sealed, sealContext(row));
        } catch (err) {
          if (!(err instanceof SecretsKeyMismatchError)) throw err;
          unopenable.set(row.key_id, (unopenable.get(row.key_id) ?? 0) + 1);
          break;
        }
        if (await repo.reseal(row.id, sealed, ring.seal(plain, sealContext(row)), ring.currentId)) {
          resealed += 1;
          break;
        }
        const now = (await repo.sealedFor(row.user_id, [row.id]))[0];
        if (!now) break; // deleted meanwhile
        sealed = now.sealed;
      }
    }
  }
  return { resealed, unopenable };
}

/** The report as the command prints it; the exit code is 1 when something could not be opened. */
export function describeRotation(r: RotationReport): { text: string; ok: boolean } {
  const lines = [
    r.newKeyFile ? `a new key was made in the data dir (key ${r.keyId}); the old one is kept as secrets.key.previous` : `current key: ${r.keyId}`,
    `${r.accounts.resealed} account(s) sealed again under key ${r.keyId}`,
    `${r.env.resealed} secret environment variable(s) sealed again under key ${r.keyId}`,
  ];
  for (const [what, part] of [["account(s)", r.accounts], ["secret environment variable(s)", r.env]] as const) {
    for (const [keyId, n] of part.unopenable) {
      lines.push(`${n} ${what} were sealed with key ${keyId}, which is not configured: left as they are (set HEADWATER_SECRETS_KEY_PREVIOUS to that key and run this again)`);
    }
  }
  return { text: lines.join("\n"), ok: r.accounts.unopenable.size === 0 && r.env.unopenable.size === 0 };
}
