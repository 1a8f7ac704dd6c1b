import { type ChainFamily, LruCache, ServiceUnavailableError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { HDKey } from "@scure/bip32";
import {
  bitcoinReceiveAddress,
  type DerivedAddress,
  evmReceiveAddress,
  tronReceiveAddress,
  type WalletDestination,
  walletDestinations,
} from "./custody.ts";
import { assertChildNumber, type BitcoinNetwork, bitcoinCoinType, solanaPath } from "./derivation-paths.ts";
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
  /** Merchant accounts whose parsed public keys stay cached. */
  maxCachedAccounts?: number;
  /**
   * Called when a slot's material is missing, before CustodyPoolEmptyError: a log line and a metric,
   * and in a process that also runs the signer (`all`) a fill of the pools, after which the lookup is
   * tried once more.
   */
  onShortage?: (shortage: CustodyShortage) => Promise<void> | void;
}

interface AccountKeys {
  evm: ExtendedPublicKey;
  tron: ExtendedPublicKey;
  bitcoin: ExtendedPublicKey;
}

interface SlotRow {
  evm_xpub: string;
  tron_xpub: string;
  bitcoin_xpub: string;
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
  const accounts = new LruCache<number, AccountKeys>(options.maxCachedAccounts ?? 10_000);
  // Keyed "account/index"; an entry is removed when used (each slot is handed out once).
  const solana = new Map<string, string>();

  /** Reads the account's keys and the pooled Solana addresses of [index, index + SOLANA_BATCH). */
  const load = async (account: number, index: number): Promise<AccountKeys | undefined> => {
    const { rows } = await db.query<SlotRow>(
      `SELECT a.evm_xpub, a.tron_xpub, a.bitcoin_xpub, a.bitcoin_coin_type, s.address_index, s.address
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
    const keys = accounts.getOrCreate(account, () => ({
      evm: fromXpub(row.evm_xpub),
      tron: fromXpub(row.tron_xpub),
      bitcoin: fromXpub(row.bitcoin_xpub),
    }));
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
    const byFamily: Record<ChainFamily, DerivedAddress> = {
      evm: evmReceiveAddress(keys.evm, account, index),
      tron: tronReceiveAddress(keys.tron, account, index),
      bitcoin: bitcoinReceiveAddress(keys.bitcoin, network, account, index),
      solana: { address, addressKey: address, path: solanaPath(account, index) },
    };
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
