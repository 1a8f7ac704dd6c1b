import { type ChainFamily, ConfigError } from "@mp/core";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { HDKey as Ed25519HDKey } from "micro-ed25519-hdkey";
import * as secp256k1 from "tiny-secp256k1";
import { bitcoinP2wpkhAddress, evmAddress, solanaAddress, tronAddress } from "./address-encoding.ts";
import { assertChildNumber, type BitcoinNetwork, bitcoinCoinType, COIN_TYPE } from "./derivation-paths.ts";
import { mnemonicProblem, normalizeMnemonic } from "./mnemonic.ts";

/**
 * The treasury's signing keys, from TREASURY_MNEMONIC: a seed of its own, so no path of a merchant
 * account (MASTER_MNEMONIC) can ever reach a treasury key, whatever account number it is given.
 * Within that seed the paths are the standard account-0 paths every wallet uses, so an operator can
 * import the treasury mnemonic into an ordinary wallet in an emergency:
 *
 * | family  | path                               | |
 * |---------|------------------------------------|-|
 * | evm     | m/44'/60'/0'/0/0                    | one address for the seven EVM chains |
 * | tron    | m/44'/195'/0'/0/0                   | |
 * | bitcoin | m/84'/c'/0'/0/0, change m/84'/c'/0'/1/n | c = 0 on mainnet, 1 elsewhere |
 * | solana  | m/44'/501'/0'/0'                    | SLIP-0010, hardened to the end |
 *
 * Only the signer role builds this object (DESIGN.md "Treasury and sending").
 */
export interface TreasuryKey {
  path: string;
  /** As the chain shows it (EIP-55, base58, bech32). */
  address: string;
  /** secp256k1: 32-byte private key; Solana: the 32-byte ed25519 seed (web3.js Keypair.fromSeed). */
  privateKey: Uint8Array;
  /** secp256k1: 33-byte compressed point; Solana: the 32-byte public key. */
  publicKey: Uint8Array;
}

export interface TreasuryKeys {
  /** Hex of the treasury seed's BIP-32 root fingerprint (tells two treasury mnemonics apart). */
  readonly fingerprint: string;
  evm(): TreasuryKey;
  tron(): TreasuryKey;
  /** branch 0: the receive (send-from) address at index 0; branch 1: change address `index`. */
  bitcoin(branch: 0 | 1, index: number): TreasuryKey;
  solana(): TreasuryKey;
}

/** The fixed paths, for listing without keys (`payments treasury addresses`) and the docs. */
export const TREASURY_PATHS = {
  evm: `m/44'/${COIN_TYPE.evm}'/0'/0/0`,
  tron: `m/44'/${COIN_TYPE.tron}'/0'/0/0`,
  bitcoin: (network: BitcoinNetwork, branch: 0 | 1, index: number) =>
    `m/84'/${bitcoinCoinType(network)}'/0'/${branch}/${index}`,
  solana: `m/44'/${COIN_TYPE.solana}'/0'/0'`,
} as const;

export function createTreasuryKeys(mnemonic: string, options: { bitcoinNetwork: BitcoinNetwork }): TreasuryKeys {
  const normalized = normalizeMnemonic(mnemonic);
  const problem = mnemonicProblem(normalized);
  if (problem !== null) throw new ConfigError("TREASURY_MNEMONIC", problem);
  const network = options.bitcoinNetwork;
  const seed = mnemonicToSeedSync(normalized);
  const root = HDKey.fromMasterSeed(seed);
  const fingerprint = root.fingerprint.toString(16).padStart(8, "0");
  const solanaNode = Ed25519HDKey.fromMasterSeed(seed).derive(TREASURY_PATHS.solana);
  seed.fill(0);

  const secp = (path: string, encode: (node: HDKey) => string): TreasuryKey => {
    const node = root.derive(path);
    if (!node.privateKey || !node.publicKey) throw new Error(`no key at ${path}`);
    return { path, address: encode(node), privateKey: node.privateKey, publicKey: node.publicKey };
  };
  // @scure/bip32 keeps the compressed point; the EVM/Tron account id hashes the uncompressed one.
  const uncompressedPoint = (node: HDKey) => secp256k1.pointCompress(node.publicKey as Uint8Array, false);

  return Object.freeze({
    fingerprint,
    evm: () => secp(TREASURY_PATHS.evm, (node) => evmAddress(uncompressedPoint(node))),
    tron: () => secp(TREASURY_PATHS.tron, (node) => tronAddress(uncompressedPoint(node))),
    bitcoin: (branch: 0 | 1, index: number) => {
      assertChildNumber("index", index);
      return secp(TREASURY_PATHS.bitcoin(network, branch, index), (node) =>
        bitcoinP2wpkhAddress(node.publicKey as Uint8Array, network),
      );
    },
    solana: () => ({
      path: TREASURY_PATHS.solana,
      address: solanaAddress(solanaNode.publicKeyRaw),
      privateKey: solanaNode.privateKey,
      publicKey: solanaNode.publicKeyRaw,
    }),
  });
}

/** Which families have one fixed send address (Bitcoin also has change addresses). */
export const TREASURY_FAMILIES: readonly ChainFamily[] = ["evm", "tron", "bitcoin", "solana"];
