/**
 * API keys. A key is 32 random bytes (256 bits), so a fast hash is the right choice for storage:
 * there is nothing to brute-force, unlike a password, and a slow KDF would only slow every
 * request. Keys are stored as SHA-256 hex, looked up by hash, and the stored hash is compared in
 * constant time before a key is accepted.
 */
import crypto from "node:crypto";

const KEY_PREFIX = "hw_";

export function generateApiKey(): string {
  return KEY_PREFIX + crypto.randomBytes(32).toString("base64url");
}

export function hashApiKey(key: string): string {
  return crypto.createHash("sha256").update(key, "utf8").digest("hex");
}

/** Constant-time equality of two hex digests of the same length. */
export function sameHash(a: string, b: string): boolean {
  const ba = Buffer.from(a, "hex");
  const bb = Buffer.from(b, "hex");
  return ba.length === bb.length && ba.length > 0 && crypto.timingSafeEqual(ba, bb);
}
