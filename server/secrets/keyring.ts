/**
 * The keys that seal credentials at rest (decisions.md "Connected accounts"), and sealing itself:
 * AES-256-GCM from node:crypto, a fresh 96-bit IV per seal, and the row's identity (account id
 * and owner) as additional authenticated data, so that a sealed value copied onto another row
 * or another user's account does not open.
 *
 * Sealed form: `hw1.<key id>.<iv>.<ciphertext + 16-byte tag>`, base64url. The key id is a
 * fingerprint of the key (not the key): it says which key sealed a value, so that opening picks
 * the right key, rotation finds what is left to re-seal, and a server started with the wrong key
 * can say so (`secrets_key_mismatch`) instead of failing in the cipher.
 *
 * Where keys come from is key-source.ts; this module only holds them.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";

export const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = "hw1";

export interface SecretsKey {
  id: string;
  key: Buffer;
}

/** A value sealed with a key this server does not hold, or altered. */
export class SecretsKeyMismatchError extends Error {
  readonly code = "secrets_key_mismatch";
  constructor(message: string) {
    super(message);
    this.name = "SecretsKeyMismatchError";
  }
}

/** The fingerprint of a key: 16 hex characters of a SHA-256 over a label and the key. */
export function keyIdOf(key: Buffer): string {
  return createHash("sha256").update("headwater secrets key\0").update(key).digest("hex").slice(0, 16);
}

export function secretsKey(key: Buffer): SecretsKey {
  if (key.length !== KEY_BYTES) throw new Error(`a secrets key is ${KEY_BYTES} bytes, not ${key.length}`);
  return { id: keyIdOf(key), key };
}

/** Decodes a key given as base64 (or base64url) text; undefined when it is not 32 bytes. */
export function decodeKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) return undefined;
  const key = Buffer.from(trimmed.replace(/-/g, "+").replace(/_/g, "/"), "base64");
  return key.length === KEY_BYTES ? key : undefined;
}

export const newKey = (): Buffer => randomBytes(KEY_BYTES);

/** The key id a sealed value names, or undefined when it is not one. */
export function sealedKeyId(sealed: string): string | undefined {
  const parts = sealed.split(".");
  return parts.length === 4 && parts[0] === VERSION ? parts[1] : undefined;
}

export class Keyring {
  private byId: Map<string, SecretsKey>;

  /**
   * `reload`, when given, is asked for the keys again when a value names a key this ring does
   * not hold: a key file rotated by `headwater secrets rotate` while the server runs.
   */
  constructor(
    private current: SecretsKey,
    private previous: SecretsKey[] = [],
    private readonly reload?: () => { current: SecretsKey; previous: SecretsKey[] },
  ) {
    this.byId = index(current, previous);
  }

  /** The key that seals from now on. */
  get currentId(): string {
    return this.current.id;
  }

  /** Every key id this ring can open. */
  get ids(): string[] {
    return [...this.byId.keys()];
  }

  seal(plaintext: string, aad: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.current.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(aad, "utf8"));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
    return [VERSION, this.current.id, iv.toString("base64url"), body.toString("base64url")].join(".");
  }

  /** The plaintext; throws SecretsKeyMismatchError when no key held opens it. */
  open(sealed: string, aad: string): string {
    const parts = sealed.split(".");
    if (parts.length !== 4 || parts[0] !== VERSION) throw new SecretsKeyMismatchError("not a sealed value");
    const [, keyId, ivText, bodyText] = parts as [string, string, string, string];
    let key = this.byId.get(keyId);
    if (!key && this.reload) {
      this.reloadKeys();
      key = this.byId.get(keyId);
    }
    if (!key) {
      throw new SecretsKeyMismatchError(
        `the credentials were sealed with secrets key ${keyId}, which this server does not have (it has ${this.ids.join(", ")})`,
      );
    }
    const body = Buffer.from(bodyText, "base64url");
    if (body.length < TAG_BYTES) throw new SecretsKeyMismatchError("a sealed value is cut short");
    try {
      const decipher = createDecipheriv("aes-256-gcm", key.key, Buffer.from(ivText, "base64url"), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(aad, "utf8"));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString("utf8");
    } catch {
      throw new SecretsKeyMismatchError(`the credentials do not open with secrets key ${keyId}: altered, or moved from another row`);
    }
  }

  private reloadKeys(): void {
    try {
      const next = this.reload!();
      this.current = next.current;
      this.previous = next.previous;
      this.byId = index(next.current, next.previous);
    } catch {
      // The files are mid-rotation or gone: keep the keys held.
    }
  }
}

function index(current: SecretsKey, previous: SecretsKey[]): Map<string, SecretsKey> {
  const byId = new Map<string, SecretsKey>();
  for (const k of [current, ...previous]) if (!byId.has(k.id)) byId.set(k.id, k);
  return byId;
}
