import { createHmac, hkdfSync } from "node:crypto";
import { DecryptionError, openWithKey, type SealedValue, sealWithKey } from "./sealed-value.ts";

/**
 * The deployment's data-encryption keys: the current key seals every new value; old keys (kept
 * after a rotation until `keys rotate-encryption` has re-sealed everything) only open.
 */
export interface EncryptionKeyring {
  /** Id of the key new values are sealed with. */
  readonly currentKeyId: string;
  /** Ids of every key this keyring can open with, current first. */
  readonly keyIds: readonly string[];
  has(keyId: string): boolean;
  /** Seals `plaintext` under the current key, bound to `aad` (the id of the record it belongs to). */
  seal(plaintext: Buffer | string, aad: string): SealedValue;
  /** Opens a value sealed under any key of the ring; throws DecryptionError on any mismatch. */
  open(sealed: SealedValue, aad: string): Buffer;
  sealJson(value: unknown, aad: string): SealedValue;
  /** The parsed JSON; callers validate its shape (it came from storage, not from this process). */
  openJson(sealed: SealedValue, aad: string): unknown;
  /** Opens and seals again under the current key (rotation); unchanged when already current. */
  reseal(sealed: SealedValue, aad: string): SealedValue;
  /**
   * A 32-byte secret for one `purpose` (e.g. keyed fingerprints), derived by HKDF-SHA256 from the
   * key `keyId` (default: the current one), so no other secret has to be configured; derived keys of
   * different purposes are independent of each other and of the encryption itself.
   */
  derivedKey(purpose: string, keyId?: string): Buffer;
}

/**
 * A key's public id: the first 8 hex digits of HMAC-SHA256(key, "key-id"). Short enough to store
 * with every value, stable across processes, and reveals nothing usable about the key.
 */
export function keyIdOf(key: Buffer): string {
  return createHmac("sha256", key).update("mp-encryption-key-id").digest("hex").slice(0, 8);
}

export function createEncryptionKeyring(options: { current: Buffer; old?: readonly Buffer[] }): EncryptionKeyring {
  const keys = new Map<string, Buffer>();
  for (const key of [options.current, ...(options.old ?? [])]) {
    if (key.length !== 32) throw new RangeError("encryption keys must be 32 bytes");
    const id = keyIdOf(key);
    const known = keys.get(id);
    // Listing the current key among the old ones is harmless; two different keys with one id is not.
    if (known && !known.equals(key)) throw new RangeError(`two different encryption keys share the id ${id}`);
    keys.set(id, Buffer.from(key));
  }
  const currentKeyId = keyIdOf(options.current);
  const currentKey = Buffer.from(options.current);

  const keyFor = (keyId: string): Buffer => {
    const key = keys.get(keyId);
    if (!key) throw new DecryptionError(`no encryption key with id ${keyId} is configured`);
    return key;
  };
  const seal = (plaintext: Buffer | string, aad: string): SealedValue =>
    sealWithKey(
      currentKey,
      currentKeyId,
      typeof plaintext === "string" ? Buffer.from(plaintext, "utf8") : plaintext,
      aad,
    );
  const open = (sealed: SealedValue, aad: string): Buffer => openWithKey(keyFor(sealed.keyId), sealed, aad);

  return {
    currentKeyId,
    keyIds: [...keys.keys()],
    has: (keyId) => keys.has(keyId),
    seal,
    open,
    sealJson: (value, aad) => seal(JSON.stringify(value), aad),
    openJson(sealed, aad) {
      const text = open(sealed, aad).toString("utf8");
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw new DecryptionError("decrypted value is not JSON", { cause: error });
      }
    },
    derivedKey(purpose, keyId = currentKeyId) {
      return Buffer.from(hkdfSync("sha256", keyFor(keyId), Buffer.alloc(0), `mp-derived-key:${purpose}`, 32));
    },
    reseal(sealed, aad) {
      const plaintext = open(sealed, aad);
      return sealed.keyId === currentKeyId ? sealed : seal(plaintext, aad);
    },
  };
}
