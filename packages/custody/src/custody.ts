import { CHAIN_IDS, type ChainFamily, type ChainId, ConfigError, chainFamily, LruCache } from "@mp/core";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { HDKey as Ed25519HDKey } from "micro-ed25519-hdkey";
import { bitcoinP2wpkhAddress, evmAddress, solanaAddress, tronAddress } from "./address-encoding.ts";
import {
  assertChildNumber,
  type BitcoinNetwork,
  bitcoinCoinType,
  bitcoinPath,
  COIN_TYPE,
  evmPath,
  solanaPath,
  tronPath,
} from "./derivation-paths.ts";
import { mnemonicProblem, normalizeMnemonic } from "./mnemonic.ts";
import { derivePublicChild, type ExtendedPublicKey, toExtendedPublicKey } from "./secp256k1-public-child.ts";

export interface DerivedAddress {
  /** As the chain's wallets show it: EIP-55 for EVM, base58 for Tron/Solana, bech32 for Bitcoin. */
  address: string;
  /** The matching form (normalizeAddress of @mp/core): EVM lowercased, other chains as is. */
  addressKey: string;
  path: string;
}

export interface WalletDestination extends DerivedAddress {
  chain: ChainId;
}

/**
 * The deployment's receive-address derivation. It holds key material only inside closures: no
 * property, JSON form or inspection of it shows the mnemonic, the seed or a private key.
 */
export interface Custody {
  /** Hex of the BIP-32 root fingerprint (first 4 bytes of HASH160 of the master public key). */
  readonly fingerprint: string;
  /** Ten destinations for one wallet, in CHAIN_IDS order (the seven EVM chains share one address). Deterministic. */
  deriveWalletAddresses(account: number, index: number): WalletDestination[];
  deriveAddress(chain: ChainId, account: number, index: number): DerivedAddress;
  /**
   * The account's external-chain extended public keys (xpub encoding), what the roles without the
   * mnemonic derive the secp256k1 addresses from (custody_accounts, see public-custody.ts).
   */
  accountPublicKeys(account: number): AccountPublicKeys;
}

/** Extended public keys of a merchant account's external chain (…/a'/0), xpub-encoded. */
export interface AccountPublicKeys {
  evm: string;
  tron: string;
  bitcoin: string;
}

export interface CreateCustodyOptions {
  bitcoinNetwork: BitcoinNetwork;
  /** Merchant accounts whose keys stay cached (about 1 KB each). */
  maxCachedAccounts?: number;
}

const HARDENED = 0x8000_0000;

/**
 * Builds the deriver from the deployment mnemonic (already resolved; see resolveMnemonic).
 *
 * secp256k1 chains (EVM, Tron, Bitcoin): the account's external-chain node (…/a'/0) is derived once
 * from the private coin node and only its extended PUBLIC key is cached; every wallet address is then
 * a public child (BIP-32 CKDpub) of it: creating a wallet touches no private key on these chains.
 *
 * Solana: SLIP-0010 defines only hardened derivation for ed25519 (an ed25519 signing scalar is a
 * hash of the private key, so adding a tweak to a public key would give a key nobody can sign for)
 * and the Solana path m/44'/501'/a'/i' is hardened at every level. Its addresses therefore derive from
 * the private account node m/44'/501'/a', which is cached in the same way.
 */
export function createCustody(mnemonic: string, options: CreateCustodyOptions): Custody {
  const normalized = normalizeMnemonic(mnemonic);
  const problem = mnemonicProblem(normalized);
  if (problem !== null) throw new ConfigError("MASTER_MNEMONIC", problem);
  const network = options.bitcoinNetwork;
  const capacity = options.maxCachedAccounts ?? 10_000;

  const seed = mnemonicToSeedSync(normalized);
  const root = HDKey.fromMasterSeed(seed);
  const fingerprint = root.fingerprint.toString(16).padStart(8, "0");
  const evmCoin = root.derive(`m/44'/${COIN_TYPE.evm}'`);
  const tronCoin = root.derive(`m/44'/${COIN_TYPE.tron}'`);
  const bitcoinCoin = root.derive(`m/84'/${bitcoinCoinType(network)}'`);
  const ed25519Master = Ed25519HDKey.fromMasterSeed(seed);
  const solanaCoin = ed25519Master.derive(`m/44'/${COIN_TYPE.solana}'`);
  // Only the four coin-level nodes are needed from here on; drop the rest of the secret material.
  root.wipePrivateData();
  ed25519Master.privateKey.fill(0);
  seed.fill(0);

  const withExternalChain = <T>(coin: HDKey, account: number, read: (chainNode: HDKey) => T): T => {
    const accountNode = coin.deriveChild(account + HARDENED);
    const chainNode = accountNode.deriveChild(0);
    const value = read(chainNode);
    chainNode.wipePrivateData();
    accountNode.wipePrivateData();
    return value;
  };
  const externalChain = (coin: HDKey) => (account: number) => withExternalChain(coin, account, toExtendedPublicKey);
  const evmAccounts = new LruCache<number, ExtendedPublicKey>(capacity);
  const tronAccounts = new LruCache<number, ExtendedPublicKey>(capacity);
  const bitcoinAccounts = new LruCache<number, ExtendedPublicKey>(capacity);
  const solanaAccounts = new LruCache<number, Ed25519HDKey>(capacity);
  const evmExternal = externalChain(evmCoin);
  const tronExternal = externalChain(tronCoin);
  const bitcoinExternal = externalChain(bitcoinCoin);
  const solanaAccount = (account: number) => {
    const node = solanaCoin.deriveChild(account + HARDENED);
    // micro-ed25519-hdkey recomputes the parent's fingerprint (an ed25519 scalar multiplication) in
    // every deriveChild; it never changes, so pin it on the cached node once.
    Object.defineProperty(node, "fingerprint", { value: node.fingerprint });
    return node;
  };

  const evm = (account: number, index: number) =>
    evmReceiveAddress(evmAccounts.getOrCreate(account, evmExternal), account, index);
  const tron = (account: number, index: number) =>
    tronReceiveAddress(tronAccounts.getOrCreate(account, tronExternal), account, index);
  const bitcoin = (account: number, index: number) =>
    bitcoinReceiveAddress(bitcoinAccounts.getOrCreate(account, bitcoinExternal), network, account, index);
  const solana = (account: number, index: number): DerivedAddress => {
    const child = solanaAccounts.getOrCreate(account, solanaAccount).deriveChild(index + HARDENED);
    const address = solanaAddress(child.publicKeyRaw);
    child.privateKey.fill(0);
    return { address, addressKey: address, path: solanaPath(account, index) };
  };

  const derivers: Record<ChainFamily, (account: number, index: number) => DerivedAddress> = {
    evm,
    tron,
    bitcoin,
    solana,
  };

  const deriveAddress = (chain: ChainId, account: number, index: number): DerivedAddress => {
    assertChildNumber("account", account);
    assertChildNumber("index", index);
    return derivers[chainFamily(chain)](account, index);
  };

  const deriveWalletAddresses = (account: number, index: number): WalletDestination[] => {
    assertChildNumber("account", account);
    assertChildNumber("index", index);
    return walletDestinations({
      evm: evm(account, index),
      tron: tron(account, index),
      bitcoin: bitcoin(account, index),
      solana: solana(account, index),
    });
  };

  const xpubOf = (chainNode: HDKey) => chainNode.publicExtendedKey;
  const accountPublicKeys = (account: number): AccountPublicKeys => {
    assertChildNumber("account", account);
    return {
      evm: withExternalChain(evmCoin, account, xpubOf),
      tron: withExternalChain(tronCoin, account, xpubOf),
      bitcoin: withExternalChain(bitcoinCoin, account, xpubOf),
    };
  };

  return Object.freeze({ fingerprint, deriveWalletAddresses, deriveAddress, accountPublicKeys });
}

/** One wallet's ten destinations in CHAIN_IDS order, from one address per family. */
export function walletDestinations(byFamily: Record<ChainFamily, DerivedAddress>): WalletDestination[] {
  return CHAIN_IDS.map((chain) => ({ chain, ...byFamily[chainFamily(chain)] }));
}

/** Receive address i under an EVM account's external-chain public key (m/44'/60'/a'/0). */
export function evmReceiveAddress(external: ExtendedPublicKey, account: number, index: number): DerivedAddress {
  const address = evmAddress(derivePublicChild(external, index).point);
  return { address, addressKey: address.toLowerCase(), path: evmPath(account, index) };
}

/** Receive address i under a Tron account's external-chain public key (m/44'/195'/a'/0). */
export function tronReceiveAddress(external: ExtendedPublicKey, account: number, index: number): DerivedAddress {
  const address = tronAddress(derivePublicChild(external, index).point);
  return { address, addressKey: address, path: tronPath(account, index) };
}

/** Receive address i under a Bitcoin account's external-chain public key (m/84'/c'/a'/0). */
export function bitcoinReceiveAddress(
  external: ExtendedPublicKey,
  network: BitcoinNetwork,
  account: number,
  index: number,
): DerivedAddress {
  const address = bitcoinP2wpkhAddress(derivePublicChild(external, index).publicKey, network);
  return { address, addressKey: address, path: bitcoinPath(network, account, index) };
}
