import { ValidationError } from "@mp/core";

/**
 * The BIP-32 paths of the receive addresses (DESIGN.md "Address derivation"). `a` is the merchant's
 * derivation account, `i` the wallet index. Both are BIP-32 child numbers below 2^31: the account is
 * used hardened, the index plain (secp256k1) or hardened (Solana).
 */
export const MAX_CHILD_NUMBER = 0x7fff_ffff;

export type BitcoinNetwork = "mainnet" | "testnet" | "regtest";

/** SLIP-44 coin types. Bitcoin's testnet coin (1') also serves regtest, as wallets and Core do. */
export const COIN_TYPE = {
  evm: 60,
  tron: 195,
  solana: 501,
  bitcoinMainnet: 0,
  bitcoinTest: 1,
} as const;

export function bitcoinCoinType(network: BitcoinNetwork): number {
  return network === "mainnet" ? COIN_TYPE.bitcoinMainnet : COIN_TYPE.bitcoinTest;
}

export function assertChildNumber(name: "account" | "index", value: number): void {
  if (!Number.isInteger(value) || value < 0 || value > MAX_CHILD_NUMBER) {
    throw new ValidationError(`${name} must be an integer from 0 to ${MAX_CHILD_NUMBER}`, name);
  }
}

/** m/44'/60'/a'/0/i, shared by the seven EVM chains. */
export const evmPath = (account: number, index: number) => `m/44'/${COIN_TYPE.evm}'/${account}'/0/${index}`;

/** m/44'/195'/a'/0/i */
export const tronPath = (account: number, index: number) => `m/44'/${COIN_TYPE.tron}'/${account}'/0/${index}`;

/** BIP-84: m/84'/0'/a'/0/i on mainnet, m/84'/1'/a'/0/i on testnet and regtest. */
export const bitcoinPath = (network: BitcoinNetwork, account: number, index: number) =>
  `m/84'/${bitcoinCoinType(network)}'/${account}'/0/${index}`;

/** m/44'/501'/a'/i': every level hardened, as SLIP-0010 requires for ed25519. */
export const solanaPath = (account: number, index: number) => `m/44'/${COIN_TYPE.solana}'/${account}'/${index}'`;

const SECP256K1_RECEIVE_PATH = /^m\/(?:44|84)'\/\d+'\/(\d+)'\/0\/(\d+)$/;
const SOLANA_RECEIVE_PATH = /^m\/44'\/501'\/(\d+)'\/(\d+)'$/;

/**
 * Reads the account and index back out of a stored receive path, or null when the path does not
 * have the shape of one. Whether the purpose and coin type are the right ones for the chain is
 * checked by re-deriving the path and comparing it as a whole.
 */
export function parseReceivePath(
  family: "secp256k1" | "ed25519",
  path: string,
): { account: number; index: number } | null {
  const match = (family === "ed25519" ? SOLANA_RECEIVE_PATH : SECP256K1_RECEIVE_PATH).exec(path);
  if (!match) return null;
  const account = Number(match[1]);
  const index = Number(match[2]);
  if (account > MAX_CHILD_NUMBER || index > MAX_CHILD_NUMBER) return null;
  return { account, index };
}
