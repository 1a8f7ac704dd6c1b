import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createEncryptionKeyring, DecryptionError, keyIdOf } from "../src/index.ts";

const keyA = randomBytes(32);
const keyB = randomBytes(32);

describe("encryption keyring (AES-256-GCM)", () => {
  it("seals under the current key id and opens the same bytes with the same associated data", () => {
    const ring = createEncryptionKeyring({ current: keyA });
    expect(ring.currentKeyId).toBe(keyIdOf(keyA));
    expect(ring.currentKeyId).toMatch(/^[0-9a-f]{8}$/);
    const sealed = ring.sealJson({ last_name: "Lovelace", dob: "1815-12-10" }, "record-1");
    expect(sealed.keyId).toBe(ring.currentKeyId);
    expect(sealed.ciphertext.includes(Buffer.from("Lovelace"))).toBe(false);
    expect(sealed.ciphertext.includes(Buffer.from("1815"))).toBe(false);
    expect(ring.openJson(sealed, "record-1")).toEqual({ last_name: "Lovelace", dob: "1815-12-10" });
  });

  it("uses a fresh IV per value: the same plaintext never gives the same ciphertext", () => {
    const ring = createEncryptionKeyring({ current: keyA });
    const one = ring.seal("same", "r");
    const two = ring.seal("same", "r");
    expect(one.ciphertext.equals(two.ciphertext)).toBe(false);
  });

  it("fails with the wrong key, unknown key id, other record's associated data, or tampered bytes", () => {
    const ring = createEncryptionKeyring({ current: keyA });
    const sealed = ring.seal("secret", "record-1");

    const impostor = createEncryptionKeyring({ current: keyB });
    expect(() => impostor.open(sealed, "record-1")).toThrow(DecryptionError);
    // Same key id relabelled onto the wrong key material: authentication fails.
    const wrongKeySameId = { keyId: impostor.currentKeyId, ciphertext: sealed.ciphertext };
    expect(() => impostor.open(wrongKeySameId, "record-1")).toThrow(/failed authentication/);

    expect(() => ring.open(sealed, "record-2")).toThrow(DecryptionError);

    for (const index of [0, 5, sealed.ciphertext.length - 20, sealed.ciphertext.length - 1]) {
      const tampered = Buffer.from(sealed.ciphertext);
      tampered[index] = (tampered[index] ?? 0) ^ 0x01;
      expect(() => ring.open({ keyId: sealed.keyId, ciphertext: tampered }, "record-1"), `byte ${index}`).toThrow(
        DecryptionError,
      );
    }
    expect(() => ring.open({ keyId: sealed.keyId, ciphertext: sealed.ciphertext.subarray(0, 10) }, "record-1")).toThrow(
      /malformed/,
    );
    // Relabelled with another known key id: the key id is authenticated too.
    const both = createEncryptionKeyring({ current: keyB, old: [keyA] });
    expect(() => both.open({ keyId: both.currentKeyId, ciphertext: sealed.ciphertext }, "record-1")).toThrow(
      DecryptionError,
    );
  });

  it("never puts the key or the plaintext in an error message", () => {
    const ring = createEncryptionKeyring({ current: keyA });
    const sealed = ring.seal("top-secret-value", "r");
    try {
      createEncryptionKeyring({ current: keyB }).open(sealed, "r");
      expect.unreachable();
    } catch (error) {
      const text = `${(error as Error).message} ${JSON.stringify(error)}`;
      expect(text).not.toContain("top-secret-value");
      expect(text).not.toContain(keyA.toString("base64"));
      expect(text).not.toContain(keyB.toString("base64"));
    }
  });

  it("opens values of old keys and reseals them under the current one", () => {
    const before = createEncryptionKeyring({ current: keyA });
    const sealed = before.seal("kept", "r1");
    const after = createEncryptionKeyring({ current: keyB, old: [keyA] });
    expect(after.keyIds).toEqual([keyIdOf(keyB), keyIdOf(keyA)]);
    expect(after.open(sealed, "r1").toString()).toBe("kept");
    const resealed = after.reseal(sealed, "r1");
    expect(resealed.keyId).toBe(keyIdOf(keyB));
    expect(after.open(resealed, "r1").toString()).toBe("kept");
    // Once the old key is dropped, only the resealed value opens.
    const onlyNew = createEncryptionKeyring({ current: keyB });
    expect(onlyNew.open(resealed, "r1").toString()).toBe("kept");
    expect(() => onlyNew.open(sealed, "r1")).toThrow(/no encryption key with id/);
    // Resealing a current value is a no-op; resealing checks integrity first.
    expect(after.reseal(resealed, "r1")).toBe(resealed);
    expect(() => after.reseal(resealed, "r2")).toThrow(DecryptionError);
  });

  it("refuses keys that are not 32 bytes", () => {
    expect(() => createEncryptionKeyring({ current: randomBytes(16) })).toThrow(/32 bytes/);
    expect(() => createEncryptionKeyring({ current: keyA, old: [randomBytes(31)] })).toThrow(/32 bytes/);
  });

  it("derives one independent 32-byte secret per purpose, from the current or an old key (HKDF)", () => {
    const ring = createEncryptionKeyring({ current: keyB, old: [keyA] });
    const secret = ring.derivedKey("fingerprint");
    expect(secret).toHaveLength(32);
    expect(ring.derivedKey("fingerprint").equals(secret)).toBe(true);
    expect(ring.derivedKey("other purpose").equals(secret)).toBe(false);
    expect(secret.equals(keyB)).toBe(false);
    // The same derivation in a process that only has the old key as current, by its id.
    const before = createEncryptionKeyring({ current: keyA });
    expect(ring.derivedKey("fingerprint", keyIdOf(keyA)).equals(before.derivedKey("fingerprint"))).toBe(true);
    expect(() => ring.derivedKey("fingerprint", "00000000")).toThrow(DecryptionError);
  });
});
