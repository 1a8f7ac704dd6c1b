import { type AddressMatcher, type ChainId, isEvmChain } from "@mp/core";
import type { Queryable } from "@mp/db";
import { CompactKeySet } from "./compact-key-set.ts";

/** Every receive address of one chain, kept current by refresh(); what an indexer matches transfers against. */
export interface WatchSet extends AddressMatcher {
  /** Loads destinations added since the last refresh; resolves to how many new addresses it added. */
  refresh(): Promise<number>;
  /** Distinct addresses held. */
  readonly size: number;
}

export interface WatchSetOptions {
  /** Rows per query while loading. */
  pageSize?: number;
}

interface DestinationRow {
  /** bigint: pg hands int8 over as a decimal string. */
  seq: string;
  address_key: string;
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
  const pageSize = options.pageSize ?? 50_000;
  const keys = new CompactKeySet({ hexKeys: isEvmChain(chain) });
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
    let cursor = 0n;
    let added = 0;
    for (;;) {
      const { rows } = await db.query<DestinationRow>(
        `SELECT seq, address_key FROM destinations WHERE chain = $1 AND seq > $2 ${unseen} ORDER BY seq LIMIT $3`,
        [chain, cursor.toString(), pageSize, ...horizonParams],
      );
      for (const row of rows) {
        if (keys.add(row.address_key)) added++;
      }
      const last = rows.at(-1);
      if (last) cursor = BigInt(last.seq);
      if (rows.length < pageSize) break;
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
      if (keys.add(row.address_key)) added++;
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
    has: (addressKey) => keys.has(addressKey),
    get size() {
      return keys.size;
    },
  };
}
