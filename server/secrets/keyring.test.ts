import { describe, expect, it } from "vitest";
import { decodeKey, Keyring, newKey, SecretsKeyMismatchError, sealedKeyId, secretsKey } from "./keyring.js";

describe("Keyring", () => {
  const a = secretsKey(newKey());
  const b = secretsKey(newKey());

  it("seals with a fresh IV each time and opens with the same context", () => {
    const ring = new Keyring(a);
    const one = ring.seal('{"password":"hunter2"}', "ctx");
    const two = ring.seal('{"password":"hunter2"}', "ctx");
    expect(one).not.toBe(two);
    expect(one).not.toContain("hunter2");
    expect(sealedKeyId(one)).toBe(a.id);
    expect(ring.open(one, "ctx")).toBe('{"password":"hunter2"}');
  });

  it("refuses another row's context, an altered value and an unknown key, with SecretsKeyMismatchError", () => {
    const ring = new Keyring(a);
    const sealed = ring.seal("value", "account:1:user:1");
    expect(() => ring.open(sealed, "account:2:user:1")).toThrow(SecretsKeyMismatchError);
    const parts = sealed.split(".");
    const body = Buffer.from(parts[3]!, "base64url");
    body[0] = body[0]! ^ 1;
    expect(() => ring.open([...parts.slice(0, 3), body.toString("base64url")].join("."), "account:1:user:1")).toThrow(SecretsKeyMismatchError);
    expect(() => new Keyring(b).open(sealed, "account:1:user:1")).toThrow(/sealed with secrets key [0-9a-f]{16}/);
    expect(() => ring.open("not sealed", "x")).toThrow(SecretsKeyMismatchError);
  });

  it("opens with a previous key, seals with the current one, and reloads for an unknown key id", () => {
    const old = new Keyring(a).seal("v", "c");
    const ring = new Keyring(b, [a]);
    expect(ring.open(old, "c")).toBe("v");
    expect(sealedKeyId(ring.seal("v", "c"))).toBe(b.id);
    let reloads = 0;
    const reloading = new Keyring(b, [], () => {
      reloads += 1;
      return { current: b, previous: [a] };
    });
    expect(reloading.open(old, "c")).toBe("v");
    expect(reloads).toBe(1);
  });

  it("decodes 32-byte keys in base64 and base64url only", () => {
    const key = newKey();
    expect(decodeKey(key.toString("base64"))?.equals(key)).toBe(true);
    expect(decodeKey(key.toString("base64url"))?.equals(key)).toBe(true);
    expect(decodeKey(Buffer.alloc(16).toString("base64"))).toBeUndefined();
    expect(decodeKey("not base64 at all!")).toBeUndefined();
  });
});
