/**
 * Where API keys live. The host is the only holder of keys: the renderer only ever sees a
 * `KeyStatus` (is one set, its last four characters).
 *
 * Implementations:
 * - `EncryptedKeyVault`: ciphertext (base64) in a small record store, encrypted by a `Cipher`.
 *   Electron main uses it with `safeStorage` (OS keychain / libsecret / DPAPI) over electron-store.
 * - `FileKeyVault`: web mode. A JSON file with mode 0600 in the user's data dir, readable by the
 *   user only. There is no OS keychain reachable from a plain Node process without native
 *   modules, so this is the same protection as `~/.npmrc` or `~/.ssh` keys: file permissions.
 * - `MemoryKeyVault`: keys that must not be written anywhere (HEADWATER_API_KEY given to the
 *   web host, which is read from the environment on every launch), and tests.
 */
import fs from "node:fs";
import path from "node:path";
import type { KeyStatus, KeyStorage } from "../../shared/bridge.js";

export interface KeyVault {
  /** How keys are kept, for the renderer's wording (`hostInfo`); never the keys. */
  readonly storage: KeyStorage;
  get(profileId: string): string | undefined;
  set(profileId: string, key: string): void;
  delete(profileId: string): void;
}

export function keyStatus(key: string | undefined): KeyStatus {
  return key ? { isSet: true, lastFour: key.slice(-4) } : { isSet: false, lastFour: null };
}

export class MemoryKeyVault implements KeyVault {
  readonly storage = "memory" as const;
  private readonly keys = new Map<string, string>();
  get(id: string) {
    return this.keys.get(id);
  }
  set(id: string, key: string) {
    this.keys.set(id, key);
  }
  delete(id: string) {
    this.keys.delete(id);
  }
}

/** Encrypts and decrypts strings (Electron's safeStorage has this shape). */
export interface Cipher {
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/** A string-to-string record store (electron-store, or anything with get/set/delete). */
export interface RecordStore {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  delete(key: string): void;
}

export class EncryptedKeyVault implements KeyVault {
  readonly storage = "os-encrypted" as const;
  constructor(
    private readonly cipher: Cipher,
    private readonly records: RecordStore,
  ) {}

  get(id: string): string | undefined {
    const stored = this.records.get(id);
    if (!stored) return undefined;
    try {
      return this.cipher.decryptString(Buffer.from(stored, "base64"));
    } catch {
      // Encrypted under another OS account or keychain: as good as no key; the user re-enters it.
      return undefined;
    }
  }

  set(id: string, key: string): void {
    this.records.set(id, this.cipher.encryptString(key).toString("base64"));
  }

  delete(id: string): void {
    this.records.delete(id);
  }
}

export class FileKeyVault implements KeyVault {
  readonly storage = "file" as const;
  constructor(private readonly file: string) {}

  private read(): Record<string, string> {
    try {
      const data: unknown = JSON.parse(fs.readFileSync(this.file, "utf8"));
      return typeof data === "object" && data !== null ? (data as Record<string, string>) : {};
    } catch {
      return {};
    }
  }

  private write(keys: Record<string, string>): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    const tmp = `${this.file}.${process.pid}.tmp`;
    fs.writeFileSync(tmp, JSON.stringify(keys), { mode: 0o600 });
    fs.chmodSync(tmp, 0o600);
    fs.renameSync(tmp, this.file);
  }

  get(id: string) {
    const v = this.read()[id];
    return typeof v === "string" ? v : undefined;
  }

  set(id: string, key: string) {
    this.write({ ...this.read(), [id]: key });
  }

  delete(id: string) {
    const keys = this.read();
    delete keys[id];
    this.write(keys);
  }
}
