import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { EncryptedKeyVault, FileKeyVault, keyStatus, type Cipher, type RecordStore } from "./key-vault.js";

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), "hw-vault-"));

/** A reversible stand-in for safeStorage, so we can see that only ciphertext is stored. */
const cipher: Cipher = {
  encryptString: (s) => Buffer.from(`enc:${Buffer.from(s).toString("hex")}`),
  decryptString: (b) => {
    const text = b.toString();
    if (!text.startsWith("enc:")) throw new Error("cannot decrypt");
    return Buffer.from(text.slice(4), "hex").toString();
  },
};

describe("keyStatus", () => {
  it("tells only whether a key is set and its last four characters", () => {
    expect(keyStatus("hw_secret_key_abcd1234")).toEqual({ isSet: true, lastFour: "1234" });
    expect(keyStatus(undefined)).toEqual({ isSet: false, lastFour: null });
    expect(keyStatus("")).toEqual({ isSet: false, lastFour: null });
  });
});

describe("EncryptedKeyVault", () => {
  it("stores only ciphertext and reads the key back", () => {
    const records = new Map<string, string>();
    const store: RecordStore = { get: (k) => records.get(k), set: (k, v) => void records.set(k, v), delete: (k) => void records.delete(k) };
    const vault = new EncryptedKeyVault(cipher, store);
    vault.set("p1", "super-secret-key");
    expect([...records.values()].join()).not.toContain("super-secret-key");
    expect(vault.get("p1")).toBe("super-secret-key");
    vault.delete("p1");
    expect(vault.get("p1")).toBeUndefined();
  });

  it("treats a key that cannot be decrypted (another keychain) as no key", () => {
    const store: RecordStore = { get: () => Buffer.from("garbage").toString("base64"), set: () => undefined, delete: () => undefined };
    expect(new EncryptedKeyVault(cipher, store).get("p1")).toBeUndefined();
  });
});

describe("FileKeyVault", () => {
  it("keeps keys in a file readable by the user only (0600) and survives a restart", () => {
    const file = path.join(tmp(), "sub", "keys.json");
    new FileKeyVault(file).set("local", "k-local-0001");
    new FileKeyVault(file).set("r_1", "k-remote-0002");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const again = new FileKeyVault(file);
    expect(again.get("local")).toBe("k-local-0001");
    expect(again.get("r_1")).toBe("k-remote-0002");
    again.delete("local");
    expect(new FileKeyVault(file).get("local")).toBeUndefined();
  });

  it("reads a missing or corrupt file as empty", () => {
    const dir = tmp();
    expect(new FileKeyVault(path.join(dir, "none.json")).get("x")).toBeUndefined();
    fs.writeFileSync(path.join(dir, "bad.json"), "{not json");
    expect(new FileKeyVault(path.join(dir, "bad.json")).get("x")).toBeUndefined();
  });
});
