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
  /**
   * Longest a wallet-creating transaction is expected to stay open, in milliseconds. `seq` values are
   * taken when a row is inserted, not when it commits, so a row can become visible after rows with a
   * higher seq were already loaded. Each refresh therefore re-reads the rows inserted within twice
   * this window (a few thousand at most, and only while wallets are being created). 0 turns the
   * re-read off.
   */
  settleMs?: number;
}

interface DestinationRow {
  /** bigint: pg hands int8 over as a decimal string. */
  seq: string;
  address_key: string;
}

/**
 * The watch set of one chain, backed by the `destinations` table. Call refresh() once at start
 * (loads everything, page by page) and then whenever the indexer wants new wallets to count, e.g.
 * before each scan; later refreshes read only rows with a seq above what was already loaded.
 */
export function createWatchSet(db: Queryable, chain: ChainId, options: WatchSetOptions = {}): WatchSet {
  const pageSize = options.pageSize ?? 50_000;
  const settleSeconds = (options.settleMs ?? 10_000) / 1000;
  const keys = new CompactKeySet({ hexKeys: isEvmChain(chain) });
  let highestSeq = 0n;
  let running: Promise<unknown> = Promise.resolve();

  /**
   * The highest seq that no still-open transaction can hold below. A row inserted more than
   * 2 x settle ago got its seq before any transaction that started within the last settle did (each
   * takes its seq after it starts and, by assumption, less than settle after it starts).
   */
  const settledSeq = async (): Promise<bigint> => {
    if (settleSeconds <= 0) return highestSeq;
    const { rows } = await db.query<{ seq: string | null }>(
      "SELECT max(seq) AS seq FROM destinations WHERE created_at < now() - make_interval(secs => $1)",
      [settleSeconds * 2],
    );
    const settled = rows[0]?.seq;
    return settled ? BigInt(settled) : 0n;
  };

  const load = async (): Promise<number> => {
    let cursor = highestSeq;
    if (cursor > 0n) {
      const settled = await settledSeq();
      if (settled < cursor) cursor = settled;
    }
    let added = 0;
    for (;;) {
      const { rows } = await db.query<DestinationRow>(
        "SELECT seq, address_key FROM destinations WHERE chain = $1 AND seq > $2 ORDER BY seq LIMIT $3",
        [chain, cursor.toString(), pageSize],
      );
      for (const row of rows) {
        if (keys.add(row.address_key)) added++;
      }
      const last = rows.at(-1);
      if (last) {
        cursor = BigInt(last.seq);
        if (cursor > highestSeq) highestSeq = cursor;
      }
      if (rows.length < pageSize) return added;
    }
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
