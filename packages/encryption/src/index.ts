export { createEncryptionKeyring, type EncryptionKeyring, keyIdOf } from "./keyring.ts";
export {
  type KeyringConfig,
  loadEncryptionKeyring,
  OLD_KEYS_FILE_SETTING,
  OLD_KEYS_SETTING,
  parseOldEncryptionKeys,
  SANDBOX_KEY_FILE,
} from "./load-keyring.ts";
export { type EncryptedColumn, keyIdsInColumn, reencryptColumn } from "./reencrypt-column.ts";
export { DecryptionError, type SealedValue } from "./sealed-value.ts";
