/**
 * Where the secrets key comes from (docs/operations.md "The secrets key"):
 * - `HEADWATER_SECRETS_KEY` (32 bytes, base64), with `HEADWATER_SECRETS_KEY_PREVIOUS` also tried
 *   for opening: what several instances on one PostgreSQL must share, and what an operator sets.
 * - Without it, on the embedded database: `<data dir>/secrets.key`, made on first start (32
 *   random bytes, base64, mode 0600), and `secrets.key.previous` after a rotation. Read again
 *   when a value names a key the server does not hold, so a rotation needs no restart.
 * - Without it, on PostgreSQL: no start. A key made on one instance's disk would seal values the
 *   others cannot open.
 */
import fs from "node:fs";
import path from "node:path";
import { ConfigError } from "../config.js";
import { decodeKey, Keyring, newKey, secretsKey, type SecretsKey } from "./keyring.js";

export const KEY_FILE = "secrets.key";
export const PREVIOUS_KEY_FILE = "secrets.key.previous";

export interface KeySettings {
  /** `HEADWATER_SECRETS_KEY`, decoded. */
  key: Buffer | undefined;
  /** `HEADWATER_SECRETS_KEY_PREVIOUS`, decoded. */
  previousKey: Buffer | undefined;
  dataDir: string;
  databaseUrl: string | undefined;
}

export type KeySource = { kind: "env" } | { kind: "file"; file: string; previousFile: string };

/** Where this configuration's key lives. Throws a ConfigError on PostgreSQL without a key. */
export function keySourceOf(s: KeySettings): KeySource {
  if (s.key) return { kind: "env" };
  if (s.databaseUrl) {
    throw new ConfigError(
      "HEADWATER_SECRETS_KEY is required with HEADWATER_DATABASE_URL: every instance must seal and open " +
        "credentials with the same key. Make one with `openssl rand -base64 32`, give it to every instance, and keep a copy " +
        "beside your database backups (docs/operations.md, \"The secrets key\").",
    );
  }
  return { kind: "file", file: path.join(s.dataDir, KEY_FILE), previousFile: path.join(s.dataDir, PREVIOUS_KEY_FILE) };
}

/** The keyring of a configuration: the key file is made on first use. */
export function loadKeyring(s: KeySettings): Keyring {
  const source = keySourceOf(s);
  const envPrevious = s.previousKey ? [secretsKey(s.previousKey)] : [];
  if (source.kind === "env") return new Keyring(secretsKey(s.key!), envPrevious);
  const read = () => {
    const files = readKeyFiles(source);
    return { current: files.current, previous: [...files.previous, ...envPrevious] };
  };
  const first = read();
  return new Keyring(first.current, first.previous, read);
}

/** The key file's key (made when there is none) and the previous one, if any. */
export function readKeyFiles(source: Extract<KeySource, { kind: "file" }>): { current: SecretsKey; previous: SecretsKey[] } {
  const current = secretsKey(readOrCreateKeyFile(source.file));
  const previousText = readIfThere(source.previousFile);
  const previous = previousText === undefined ? undefined : decodeKey(previousText);
  return { current, previous: previous ? [secretsKey(previous)] : [] };
}

function readOrCreateKeyFile(file: string): Buffer {
  let text = readIfThere(file);
  if (text === undefined) {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    // Written whole to a temporary file, then linked into place: two servers starting on one
    // data dir at once end up with the same key (the second link fails, and it reads the first).
    writeKeyFileAtomically(file, newKey(), { replace: false });
    text = readIfThere(file)!;
  }
  const key = decodeKey(text);
  if (!key) throw new ConfigError(`${file} does not hold a secrets key (32 bytes, base64): restore it from your backup`);
  tightenMode(file);
  return key;
}

/**
 * Writes a key file with mode 0600 through a temporary file: `replace` renames over an existing
 * file, otherwise an existing file wins.
 */
export function writeKeyFileAtomically(file: string, key: Buffer, opts: { replace: boolean }): void {
  const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
  fs.writeFileSync(tmp, `${key.toString("base64")}\n`, { mode: 0o600, flag: "wx" });
  try {
    if (opts.replace) fs.renameSync(tmp, file);
    else fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function readIfThere(file: string): string | undefined {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

/** A key file readable by others (copied in by hand, say) is made owner-only again. */
function tightenMode(file: string): void {
  try {
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600);
  } catch {
    // Not ours to change (a read-only mount): it still works.
  }
}
