import { type AddressMatcher, type ChainId, isEvmChain } from "@mp/core";
import type { Queryable } from "@mp/db";
import { CompactKeySet } from "./compact-key-set.ts";
import type { EvmKeyStore } from "./evm-key-store.ts";
import { addPackedKeys } from "./packed-keys.ts";

/** Every receive address of one chain, kept current by refresh(); what an indexer matches transfers against. */
export interface WatchSet extends AddressMatcher {
  /** Loads destinations added since the last refresh; resolves to how many new addresses it added. */
  refresh(): Promise<number>;
  /** Distinct addresses held. */
  readonly size: number;
  /** Bytes the set holds for them (its arena and hash table; what the benches print); a shared EVM key store's for all its chains. */
  readonly byteLength: number;
}

export interface WatchSetOptions {
  /** Rows per query while loading. */
  pageSize?: number;
  /**
   * EVM chains: the process's shared key store (one watch set per chain on it), so an address on
   * several EVM chains is held once. Without it the set keeps its own keys.
   */
  evmKeys?: EvmKeyStore;
}

/**
 * One page of destinations folded into a single row: each key as `<characters>:<key>`, concatenated.
 * A page of 50,000 row objects (two strings each) filled the young generation and was promoted to
 * the old one at every page, which grew the heap (and the RSS) by far more than the set itself.
 */
interface DestinationPage {
  /** Rows in the page. */
  count: number;
  /** bigint as text: the page's highest seq, null for an empty page. */
  last: string | null;
  packed: string | null;
}

/**
 * What a snapshot taken before a load says about the transactions whose rows the load may not have
 * seen: those in progress then (`inProgress`) and those that had not begun (ids from `xmax`). Every
 * other transaction had ended, so its rows were visible to the load (it had committed) or never
 * will be (it rolled back).
 */
interface Horizon {
  xmax: string;
  inProgress: string[];
}

/**
 * The watch set of one chain, backed by the `destinations` table. Call refresh() once at start
 * (loads everything, page by page) and then whenever the indexer wants new wallets to count, e.g.
 * before each scan. A later refresh reads only the rows inserted by transactions that had not ended
 * at the previous one's snapshot (destinations.inserted_xid, migrations/0051): a wallet whose
 * transaction stays open for any length of time, while later wallets commit around it, is read the
 * first time after it commits. No clock and no window: it holds by construction.
 */
export function createWatchSet(db: Queryable, chain: ChainId, options: WatchSetOptions = {}): WatchSet {
  // 20,000 keys a page (~0.9 MB of text): pages of 50,000 peaked ~17-22 MB higher over a 1M load
  // (the page's string and the driver's buffers beside the set), 10,000 saved ~3 MB more for twice
  // the queries; the load took as long at all three sizes.
  const pageSize = options.pageSize ?? 20_000;
  const shared = isEvmChain(chain) ? options.evmKeys : undefined;
  const keys = shared?.keys ?? new CompactKeySet({ hexKeys: isEvmChain(chain) });
  const member = shared?.memberOf(chain) ?? 0;
  /** Undefined until the first load: then everything is read. */
  let horizon: Horizon | undefined;
  let running: Promise<unknown> = Promise.resolve();

  const load = async (): Promise<number> => {
    // Taken before reading: whatever it counts as ended is visible to every read below.
    const snapshot = await db.query<{ xmax: string; in_progress: string[] }>(
      `SELECT pg_snapshot_xmax(s)::text AS xmax, ARRAY(SELECT pg_snapshot_xip(s)::text) AS in_progress
         FROM pg_current_snapshot() AS s`,
    );
    const next = snapshot.rows[0];
    if (!next) throw new Error("pg_current_snapshot() answered no row");
    const unseen = horizon ? "AND (inserted_xid >= $4::xid8 OR inserted_xid = ANY($5::xid8[]))" : "";
    const horizonParams = horizon ? [horizon.xmax, horizon.inProgress] : [];
    if (!horizon) {
      // The first load reads every row: sized beforehand, the set is built in place (a hint only,
      // counted outside the pages' snapshots; rows it missed or counted twice just cost a resize).
      const size = await db.query<{ count: number; characters: string }>(
        `SELECT count(*)::int AS count, coalesce(sum(length(address_key)), 0)::text AS characters
           FROM destinations WHERE chain = $1`,
        [chain],
      );
      const hint = size.rows[0];
      if (hint) keys.reserve(hint.count, Number(hint.characters));
    }
    let cursor = 0n;
    let added = 0;
    for (;;) {
      const { rows } = await db.query<DestinationPage>(
        `WITH page AS (
           SELECT seq, address_key FROM destinations WHERE chain = $1 AND seq > $2 ${unseen} ORDER BY seq LIMIT $3
         )
         SELECT count(*)::int AS count, max(seq)::text AS last,
                string_agg(length(address_key)::text || ':' || address_key, '') AS packed
           FROM page`,
        [chain, cursor.toString(), pageSize, ...horizonParams],
      );
      const page = rows[0];
      if (!page) throw new Error("the watch set's page query answered no row");
      if (page.packed !== null) added += addPackedKeys(keys, page.packed, member);
      if (page.last !== null) cursor = BigInt(page.last);
      if (page.count < pageSize) break;
    }
    horizon = { xmax: next.xmax, inProgress: next.in_progress };
    // The treasury's own addresses (a handful), on every chain: what pays them is an operator's
    // float or our own change (indexer treasury-receipts.ts), and on Bitcoin the treasury's coins
    // (treasury-utxos.ts). Read whole each time, the table is tiny.
    const treasury = await db.query<{ address_key: string }>(
      "SELECT address_key FROM treasury_addresses WHERE chain = $1",
      [chain],
    );
    for (const row of treasury.rows) {
      if (keys.add(row.address_key, member)) added++;
    }
    return added;
  };

  return {
    refresh() {
      // One load at a time: a timer and a "new wallet" signal may both ask.
      const next = running.then(load, load);
      running = next.catch(() => undefined);
      return next;
    },
    has: (addressKey) => keys.has(addressKey, member),
    get size() {
      return keys.sizeOf(member);
    },
    get byteLength() {
      return keys.byteLength;
    },
  };
}
