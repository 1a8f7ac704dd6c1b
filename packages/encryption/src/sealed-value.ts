import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { AppError, type AppErrorOptions } from "@mp/core";

/**
 * A value encrypted with AES-256-GCM, as stored: the id of the key that sealed it travels with the
 * ciphertext, so a keyring holding old keys can open values sealed before a rotation.
 *
 * `ciphertext` layout: version (1 byte) | IV (12 bytes) | encrypted bytes | GCM tag (16 bytes).
 */
export interface SealedValue {
  keyId: string;
  ciphertext: Buffer;
}

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;

/** A value could not be opened: unknown key, wrong key, wrong associated data or tampered bytes. */
export class DecryptionError extends AppError {
  constructor(message: string, options: AppErrorOptions = {}) {
    // Never carries the value or the key: the message only says why.
    super("internal_error", message, options);
  }
}

/**
 * The associated data GCM authenticates besides the ciphertext: the record id it belongs to (so a
 * ciphertext copied onto another row does not open) and the key id (so relabelling fails too).
 */
function associatedData(keyId: string, aad: string): Buffer {
  return Buffer.from(`mp-enc:v${VERSION}:${keyId}:${aad}`, "utf8");
}

export function sealWithKey(key: Buffer, keyId: string, plaintext: Buffer, aad: string): SealedValue {
  if (key.length !== KEY_BYTES) throw new RangeError("AES-256-GCM needs a 32-byte key");
  // A random 96-bit IV per value: with at most billions of values per key, collisions stay negligible.
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(associatedData(keyId, aad));
  const encrypted = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { keyId, ciphertext: Buffer.concat([Buffer.from([VERSION]), iv, encrypted, cipher.getAuthTag()]) };
}

export function openWithKey(key: Buffer, sealed: SealedValue, aad: string): Buffer {
  const bytes = sealed.ciphertext;
  if (bytes.length < 1 + IV_BYTES + TAG_BYTES || bytes[0] !== VERSION) {
    throw new DecryptionError("encrypted value is malformed or of an unknown version");
  }
  const iv = bytes.subarray(1, 1 + IV_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  const encrypted = bytes.subarray(1 + IV_BYTES, bytes.length - TAG_BYTES);
  const decipher = createDecipheriv("aes-256-gcm", key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(associatedData(sealed.keyId, aad));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(encrypted), decipher.final()]);
  } catch (error) {
    throw new DecryptionError("encrypted value failed authentication (wrong key, wrong record or tampered data)", {
      cause: error,
    });
  }
}
