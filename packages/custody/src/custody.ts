import { type ChainFamily, type ChainId, ConfigError, LruCache } from "@mp/core";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { HDKey as Ed25519HDKey } from "micro-ed25519-hdkey";
import type { BitcoinNetwork } from "./bitcoin-network.ts";
import { assertChildNumber, parseReceivePath, receivePath } from "./derivation-paths.ts";
import type { Ed25519KeyScheme, KeyScheme, Secp256k1KeyScheme } from "./key-scheme.ts";
import { indexKeySchemes } from "./key-schemes.ts";
import { mnemonicProblem, normalizeMnemonic } from "./mnemonic.ts";
import {
  type DerivedAddress,
  publicReceiveAddress,
  type WalletDestination,
  walletDestinations,
} from "./receive-address.ts";
import { type ExtendedPublicKey, toExtendedPublicKey } from "./secp256k1-public-child.ts";

export type { DerivedAddress, WalletDestination } from "./receive-address.ts";

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
   * The account and index of a stored receive path of `chain`, or null when the path does not have
   * the shape of one on the chain's curve (whether it is the right path is for deriveAddress to say).
   */
  receivePosition(chain: ChainId, path: string): { account: number; index: number } | null;
  /**
   * The account's external-chain extended public keys (xpub encoding) by family, one per secp256k1
   * family: what the roles without the mnemonic derive those addresses from (custody_accounts, see
   * public-custody.ts).
   */
  accountPublicKeys(account: number): AccountPublicKeys;
}

/** Extended public keys of a merchant account's external chain (…/a'/0), xpub-encoded, by family. */
export type AccountPublicKeys = ReadonlyMap<ChainFamily, string>;

export interface CreateCustodyOptions {
  bitcoinNetwork: BitcoinNetwork;
  /** Every family's key scheme (the registry's, services/payments/src/chain-families.ts). */
  schemes: readonly KeyScheme[];
  /** Merchant accounts whose keys stay cached (about 1 KB each). */
  maxCachedAccounts?: number;
}

/** One family's receive addresses: derive one, and (secp256k1) the account's xpub. */
interface FamilyDeriver {
  derive(account: number, index: number): DerivedAddress;
  accountXpub?: (account: number) => string;
}

const HARDENED = 0x8000_0000;

/**
 * Builds the deriver from the deployment mnemonic (already resolved; see resolveMnemonic).
 *
 * secp256k1 families: the account's external-chain node (…/a'/0) is derived once from the private
 * coin node and only its extended PUBLIC key is cached; every wallet address is then a public child
 * (BIP-32 CKDpub) of it: creating a wallet touches no private key on these chains.
 *
 * ed25519 families: SLIP-0010 defines only hardened derivation for ed25519 (an ed25519 signing scalar
 * is a hash of the private key, so adding a tweak to a public key would give a key nobody can sign
 * for) and the path <coin>/a'/i' is hardened at every level. Their addresses therefore derive from
 * the private account node <coin>/a', which is cached in the same way.
 */
export function createCustody(mnemonic: string, options: CreateCustodyOptions): Custody {
  const normalized = normalizeMnemonic(mnemonic);
  const problem = mnemonicProblem(normalized);
  if (problem !== null) throw new ConfigError("MASTER_MNEMONIC", problem);
  const schemes = indexKeySchemes(options.schemes);
  const context: DeriverContext = { network: options.bitcoinNetwork, capacity: options.maxCachedAccounts ?? 10_000 };

  const seed = mnemonicToSeedSync(normalized);
  const root = HDKey.fromMasterSeed(seed);
  const ed25519Master = Ed25519HDKey.fromMasterSeed(seed);
  const fingerprint = root.fingerprint.toString(16).padStart(8, "0");
  const derivers = new Map<ChainFamily, FamilyDeriver>(
    schemes.all.map((scheme) => [
      scheme.family,
      scheme.curve === "ed25519"
        ? ed25519Deriver(scheme, ed25519Master.derive(scheme.coinPath(context.network)), context)
        : secp256k1Deriver(scheme, root.derive(scheme.coinPath(context.network)), context),
    ]),
  );
  // Only the coin-level nodes are needed from here on; drop the rest of the secret material.
  root.wipePrivateData();
  ed25519Master.privateKey.fill(0);
  seed.fill(0);

  const deriverOf = (family: ChainFamily): FamilyDeriver => {
    const deriver = derivers.get(family);
    if (!deriver) throw new Error(`no deriver for the ${family} family`);
    return deriver;
  };

  const deriveAddress = (chain: ChainId, account: number, index: number): DerivedAddress => {
    assertChildNumber("account", account);
    assertChildNumber("index", index);
    return deriverOf(schemes.ofChain(chain).family).derive(account, index);
  };

  const deriveWalletAddresses = (account: number, index: number): WalletDestination[] => {
    assertChildNumber("account", account);
    assertChildNumber("index", index);
    const byFamily = new Map([...derivers].map(([family, deriver]) => [family, deriver.derive(account, index)]));
    return walletDestinations(byFamily);
  };

  const accountPublicKeys = (account: number): AccountPublicKeys => {
    assertChildNumber("account", account);
    const keys = new Map<ChainFamily, string>();
    for (const [family, deriver] of derivers) {
      if (deriver.accountXpub) keys.set(family, deriver.accountXpub(account));
    }
    return keys;
  };

  const receivePosition = (chain: ChainId, path: string) => parseReceivePath(schemes.ofChain(chain).curve, path);

  return Object.freeze({ fingerprint, deriveWalletAddresses, deriveAddress, receivePosition, accountPublicKeys });
}

interface DeriverContext {
  network: BitcoinNetwork;
  /** Merchant accounts whose nodes stay cached. */
  capacity: number;
}

/** The external chain (…/a'/0) of `account` under a private secp256k1 coin node, read and then wiped. */
function withExternalChain<T>(coin: HDKey, account: number, read: (chainNode: HDKey) => T): T {
  const accountNode = coin.deriveChild(account + HARDENED);
  const chainNode = accountNode.deriveChild(0);
  const value = read(chainNode);
  chainNode.wipePrivateData();
  accountNode.wipePrivateData();
  return value;
}

function secp256k1Deriver(scheme: Secp256k1KeyScheme, coin: HDKey, context: DeriverContext): FamilyDeriver {
  const accounts = new LruCache<number, ExtendedPublicKey>(context.capacity);
  const external = (account: number) => withExternalChain(coin, account, toExtendedPublicKey);
  return {
    derive: (account, index) =>
      publicReceiveAddress(scheme, accounts.getOrCreate(account, external), context.network, account, index),
    accountXpub: (account) => withExternalChain(coin, account, (chainNode) => chainNode.publicExtendedKey),
  };
}

function ed25519Deriver(scheme: Ed25519KeyScheme, coin: Ed25519HDKey, context: DeriverContext): FamilyDeriver {
  const accounts = new LruCache<number, Ed25519HDKey>(context.capacity);
  const accountNode = (account: number) => {
    const node = coin.deriveChild(account + HARDENED);
    // micro-ed25519-hdkey recomputes the parent's fingerprint (an ed25519 scalar multiplication) in
    // every deriveChild; it never changes, so pin it on the cached node once.
    Object.defineProperty(node, "fingerprint", { value: node.fingerprint });
    return node;
  };
  return {
    derive: (account, index) => {
      const child = accounts.getOrCreate(account, accountNode).deriveChild(index + HARDENED);
      const address = scheme.address(child.publicKeyRaw);
      child.privateKey.fill(0);
      return {
        address,
        addressKey: scheme.addressKey(address),
        path: receivePath(scheme, context.network, account, index),
      };
    },
  };
}
