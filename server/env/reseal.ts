/**
 * Secret environment variables sealed again under the current key (`headwater secrets rotate`,
 * secrets/rotate.ts), the way accounts are: each row by compare-and-swap on its sealed text, so
 * a change that lands meanwhile wins and the row is read again; a value no held key opens is
 * counted, never changed.
 */
import { SecretsKeyMismatchError, type Keyring } from "../secrets/keyring.js";
import type { EnvVarsRepo } from "../store/repos/env-vars.js";
import { envSealContext } from "./service.js";

const PAGE = 200;

export async function resealEnvVars(
  repo: Pick<EnvVarsRepo, "sealedNotWith" | "reseal" | "findOwn">,
  ring: Keyring,
): Promise<{ resealed: number; unopenable: Map<string, number> }> {
  let resealed = 0;
  const unopenable = new Map<string, number>();
  let after = { userId: "", name: "" };
  for (;;) {
    const rows = await repo.sealedNotWith(ring.currentId, after, PAGE);
    if (rows.length === 0) break;
    for (const row of rows) {
      after = { userId: row.user_id, name: row.name };
      let sealed = row.sealed ?? "";
      for (let attempt = 0; attempt < 5; attempt++) {
        let plain: string;
        try {
          plain = ring.open(sealed, envSealContext(row));
        } catch (err) {
          if (!(err instanceof SecretsKeyMismatchError)) throw err;
          const keyId = row.key_id ?? "?";
          unopenable.set(keyId, (unopenable.get(keyId) ?? 0) + 1);
          break;
        }
        if (await repo.reseal(row, sealed, ring.seal(plain, envSealContext(row)), ring.currentId)) {
          resealed += 1;
          break;
        }
        // Changed meanwhile (sealed anew, made plain, or deleted): read it again.
        const now = await repo.findOwn(row.user_id, row.name);
        if (!now || Number(now.secret) !== 1 || !now.sealed) break;
        if (now.key_id === ring.currentId) break;
        sealed = now.sealed;
      }
    }
  }
  return { resealed, unopenable };
}
