import { type ChainFamily, LruCache, ServiceUnavailableError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { HDKey } from "@scure/bip32";
import { type BitcoinNetwork, bitcoinCoinType } from "./bitcoin-network.ts";
import { assertChildNumber, receivePath } from "./derivation-paths.ts";
import type { Ed25519KeyScheme, KeyScheme, Secp256k1KeyScheme } from "./key-scheme.ts";
import { indexKeySchemes } from "./key-schemes.ts";
import {
  type DerivedAddress,
  publicReceiveAddress,
  type WalletDestination,
  walletDestinations,
} from "./receive-address.ts";
import { type ExtendedPublicKey, toExtendedPublicKey } from "./secp256k1-public-child.ts";

/** What was missing when a wallet slot's addresses were asked for before the signer derived them. */
export interface CustodyShortage {
  /** `account`: no stored public keys for the merchant account; `solana`: no pooled Solana address. */
  pool: "account" | "solana";
  account: number;
  index: number;
}

/**
 * 503 service_unavailable, retryable: the signer has not derived this slot's public material yet
 * (the pools ran dry, or no signer ran on this database yet). Never answered with a wrong address.
 */
export class CustodyPoolEmptyError extends ServiceUnavailableError {
  constructor(readonly shortage: CustodyShortage) {
    super(
      shortage.pool === "account"
        ? "receive addresses for this merchant are not ready yet (the signer derives them ahead); retry shortly"
        : "Solana receive addresses for this merchant are not ready yet (the signer derives them ahead); retry shortly",
    );
  }
}

/**
 * The receive-address deriver of the roles without MASTER_MNEMONIC (API, indexer, worker). It holds no
 * mnemonic, seed or private key, and has no way to reach one: it reads the stored account-level
 * extended public keys (custody_accounts) and the pooled Solana addresses (custody_solana_addresses)
 * that the signer derives ahead (custody-pools.ts), and gives the same addresses createCustody gives
 * for the same mnemonic.
 */
export interface PublicCustody {
  /** The recorded root fingerprint (deployment.root_fingerprint), undefined before any signer ran. */
  readonly fingerprint: string | undefined;
  /** Ten destinations for one wallet, in CHAIN_IDS order; CustodyPoolEmptyError when not derived yet. */
  deriveWalletAddresses(account: number, index: number): Promise<WalletDestination[]>;
}

export interface PublicCustodyOptions {
  bitcoinNetwork: BitcoinNetwork;
  /** Every family's key scheme (the registry's, services/payments/src/chain-families.ts). */
  schemes: readonly KeyScheme[];
  /** Merchant accounts whose parsed public keys stay cached. */
  maxCachedAccounts?: number;
  /**
   * Called when a slot's material is missing, before CustodyPoolEmptyError: a log line and a metric,
   * and in a process that also runs the signer (`all`) a fill of the pools, after which the lookup is
   * tried once more.
   */
  onShortage?: (shortage: CustodyShortage) => Promise<void> | void;
}

/** An account's external-chain public keys, by secp256k1 family. */
type AccountKeys = ReadonlyMap<ChainFamily, ExtendedPublicKey>;

/** custody_accounts' `<family>_xpub` columns (one per secp256k1 family), with the pooled address of a slot. */
interface SlotRow {
  [xpubColumn: `${string}_xpub`]: string;
  bitcoin_coin_type: number;
  address_index: number | null;
  address: string | null;
}

/**
 * Pooled Solana addresses read per round trip: the API reserves wallet indexes in blocks of 16
 * (WALLET_INDEX_BLOCK), so the first creation of a block reads the whole block and the other fifteen
 * (and the API's lookups ahead within the block) need no query at all.
 */
const SOLANA_BATCH = 16;
/** Pooled Solana addresses read and not yet used, at most; the oldest dropped first. */
const MAX_CACHED_SOLANA = 65_536;

const fromXpub = (xpub: string) => toExtendedPublicKey(HDKey.fromExtendedKey(xpub));

/** Builds the public deriver; reads the recorded fingerprint once. */
export async function createPublicCustody(db: Queryable, options: PublicCustodyOptions): Promise<PublicCustody> {
  const { rows } = await db.query<{ root_fingerprint: string }>("SELECT root_fingerprint FROM deployment");
  const fingerprint = rows[0]?.root_fingerprint;
  const network = options.bitcoinNetwork;
  const { secp256k1, pooled } = splitSchemes(options.schemes);
  const accounts = new LruCache<number, AccountKeys>(options.maxCachedAccounts ?? 10_000);
  // Keyed "account/index"; an entry is removed when used (each slot is handed out once).
  const solana = new Map<string, string>();

  /** Reads the account's keys and the pooled Solana addresses of [index, index + SOLANA_BATCH). */
  const load = async (account: number, index: number): Promise<AccountKeys | undefined> => {
    const { rows } = await db.query<SlotRow>(
      `SELECT a.*, s.address_index, s.address
         FROM custody_accounts a
         LEFT JOIN custody_solana_addresses s
           ON s.account = a.account AND s.address_index >= $2 AND s.address_index < $2 + $3
        WHERE a.account = $1`,
      [account, index, SOLANA_BATCH],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (row.bitcoin_coin_type !== bitcoinCoinType(network)) {
      // The signer derived for another Bitcoin network: an address of it would be unspendable here.
      throw new ServiceUnavailableError(
        `stored Bitcoin account keys are for coin type ${row.bitcoin_coin_type}, this process is configured for ${network}`,
      );
    }
    const keys = accounts.getOrCreate(
      account,
      () => new Map(secp256k1.map((scheme) => [scheme.family, fromXpub(xpubOf(row, scheme))])),
    );
    for (const { address_index, address } of rows) {
      if (address_index === null || address === null) continue;
      solana.set(`${account}/${address_index}`, address);
      if (solana.size > MAX_CACHED_SOLANA) {
        const oldest = solana.keys().next().value;
        if (oldest !== undefined) solana.delete(oldest);
      }
    }
    return keys;
  };

  const lookup = async (account: number, index: number): Promise<WalletDestination[] | CustodyShortage> => {
    const key = `${account}/${index}`;
    let keys = accounts.peek(account);
    if (keys === undefined || !solana.has(key)) keys = await load(account, index);
    if (keys === undefined) return { pool: "account", account, index };
    const address = solana.get(key);
    if (address === undefined) return { pool: "solana", account, index };
    solana.delete(key);
    const byFamily = new Map<ChainFamily, DerivedAddress>(
      secp256k1.map((scheme) => [
        scheme.family,
        publicReceiveAddress(scheme, accountKey(keys, scheme), network, account, index),
      ]),
    );
    byFamily.set(pooled.family, {
      address,
      addressKey: pooled.addressKey(address),
      path: receivePath(pooled, network, account, index),
    });
    return walletDestinations(byFamily);
  };

  const deriveWalletAddresses = async (account: number, index: number): Promise<WalletDestination[]> => {
    assertChildNumber("account", account);
    assertChildNumber("index", index);
    const first = await lookup(account, index);
    if (Array.isArray(first)) return first;
    await options.onShortage?.(first);
    const second = options.onShortage ? await lookup(account, index) : first;
    if (Array.isArray(second)) return second;
    throw new CustodyPoolEmptyError(second);
  };

  return Object.freeze({ fingerprint, deriveWalletAddresses });
}

/**
 * The schemes derived from stored xpubs, and the one whose addresses are pooled: the tables
 * (migrations/0100) hold one `<family>_xpub` column per secp256k1 family and one pool of ed25519
 * addresses, so a second ed25519 family needs a migration first, and is refused until then.
 */
function splitSchemes(schemes: readonly KeyScheme[]): { secp256k1: Secp256k1KeyScheme[]; pooled: Ed25519KeyScheme } {
  const all = indexKeySchemes(schemes).all;
  const secp256k1 = all.filter((scheme): scheme is Secp256k1KeyScheme => scheme.curve === "secp256k1");
  const ed25519 = all.filter((scheme): scheme is Ed25519KeyScheme => scheme.curve === "ed25519");
  const [pooled, ...more] = ed25519;
  if (!pooled || more.length > 0) {
    throw new Error(`the custody pool holds the addresses of exactly one ed25519 family, not ${ed25519.length}`);
  }
  return { secp256k1, pooled };
}

function xpubOf(row: SlotRow, scheme: Secp256k1KeyScheme): string {
  const xpub = row[`${scheme.family}_xpub`];
  if (typeof xpub !== "string") throw new Error(`custody_accounts has no ${scheme.family}_xpub column`);
  return xpub;
}

function accountKey(keys: AccountKeys, scheme: Secp256k1KeyScheme): ExtendedPublicKey {
  const key = keys.get(scheme.family);
  if (!key) throw new Error(`no stored public key of the ${scheme.family} family`);
  return key;
}
