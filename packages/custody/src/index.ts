export type { BitcoinNetwork } from "./bitcoin-network.ts";
export {
  type AccountPublicKeys,
  type CreateCustodyOptions,
  type Custody,
  createCustody,
  type DerivedAddress,
  type WalletDestination,
} from "./custody.ts";
export {
  CUSTODY_POOL_DEPTH,
  type CustodyPoolFill,
  type CustodyPoolFiller,
  type CustodyPoolOptions,
  fillCustodyPools,
  startCustodyPoolFiller,
} from "./custody-pools.ts";
export { type CreateDepositKeysOptions, createDepositKeys, type DepositKey, type DepositKeys } from "./deposit-keys.ts";
export { createEvmKeyStore, type EvmKeyStore } from "./evm-key-store.ts";
export { exportWalletsCsv, WALLETS_CSV_HEADER } from "./export-wallets-csv.ts";
export { keccakAccountId } from "./keccak-account-id.ts";
export type { Ed25519KeyScheme, KeyScheme, Secp256k1KeyScheme, Secp256k1PublicKey } from "./key-scheme.ts";
export { indexKeySchemes, type KeySchemes } from "./key-schemes.ts";
export { assertExternalDestination, ownAddressKind } from "./own-addresses.ts";
export {
  CustodyPoolEmptyError,
  type CustodyShortage,
  createPublicCustody,
  type PublicCustody,
  type PublicCustodyOptions,
} from "./public-custody.ts";
export {
  MASTER_MNEMONIC_SECRET,
  type MnemonicSecret,
  type MnemonicSource,
  type ResolveMnemonicOptions,
  resolveMnemonic,
  resolveTreasuryMnemonic,
  SANDBOX_MNEMONIC_FILE,
  TREASURY_MNEMONIC_SECRET,
} from "./resolve-mnemonic.ts";
export { ensureRootFingerprint } from "./root-fingerprint.ts";
export {
  type CreateTreasuryKeysOptions,
  createTreasuryKeys,
  type TreasuryKey,
  type TreasuryKeys,
  treasuryPath,
} from "./treasury-keys.ts";
export {
  type CustodyMismatch,
  type CustodyProblem,
  type VerifyCustodyOptions,
  type VerifyCustodyResult,
  verifyCustody,
} from "./verify-custody.ts";
export { createWatchSet, type WatchSet, type WatchSetOptions } from "./watch-set.ts";
