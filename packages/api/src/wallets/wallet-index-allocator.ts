import { AppError, LruCache } from "@mp/core";
import type { Database } from "@mp/db";

/**
 * Indexes reserved per merchant per database round trip. Below BIP-44's gap limit of 20, so even the
 * unused rest of a block (lost when the process stops) leaves a gap a standard wallet scan crosses.
 */
export const WALLET_INDEX_BLOCK = 16;

/** Merchants whose blocks are kept; past it the least recently served one's rest of block is dropped. */
const MAX_MERCHANTS = 10_000;

export interface WalletSlot {
  account: number;
  index: number;
}

interface MerchantIndexes {
  account: number;
  /** Indexes given back unused, handed out again first (smallest first). */
  returned: number[];
  next: number;
  end: number;
  refill: Promise<void> | undefined;
}

/**
 * Hands out wallet indexes (DESIGN: from 0 per merchant, never reused) from blocks this process
 * reserves in the merchant's counter row: `next_wallet_index` is the first index no process has
 * reserved. A reservation is one short statement of its own, so merchants' wallet creations do not
 * queue on that row for the length of a transaction, and two processes always hold disjoint blocks.
 *
 * An index handed out and then not used by a committed wallet comes back through `giveBack` (a
 * replayed or rejected request) or, when the outcome is unknown (a 5xx), stays unused forever: never
 * reused is the rule, a gap is the price. `UNIQUE (merchant_id, derivation_index)` backs this up.
 */
export class WalletIndexAllocator {
  /** A dropped merchant's rest of block is a gap like a restart's (never a reuse: it stays reserved). */
  private readonly merchants: LruCache<string, MerchantIndexes>;

  constructor(
    private readonly db: Database,
    maxMerchants = MAX_MERCHANTS,
  ) {
    this.merchants = new LruCache(maxMerchants);
  }

  async take(merchantId: string): Promise<WalletSlot> {
    const state = this.merchants.getOrCreate(merchantId, () => ({
      account: -1,
      returned: [],
      next: 0,
      end: 0,
      refill: undefined,
    }));
    for (;;) {
      const returned = state.returned.shift();
      if (returned !== undefined) return { account: state.account, index: returned };
      if (state.next < state.end) return { account: state.account, index: state.next++ };
      // One reservation at a time per merchant; everyone waiting shares it, then takes again.
      state.refill ??= this.reserve(merchantId, state).finally(() => {
        state.refill = undefined;
      });
      await state.refill;
    }
  }

  /** The slot `take` would hand out next without waiting, if there is one (for deriving ahead). */
  peek(merchantId: string): WalletSlot | undefined {
    const state = this.merchants.peek(merchantId);
    if (!state) return undefined;
    const index = state.returned[0] ?? (state.next < state.end ? state.next : undefined);
    return index === undefined ? undefined : { account: state.account, index };
  }

  /** `slot` was not used by any wallet (its transaction rolled back for sure): hand it out again. */
  giveBack(merchantId: string, slot: WalletSlot): void {
    const state = this.merchants.peek(merchantId);
    if (!state || state.account !== slot.account) return;
    state.returned.push(slot.index);
    state.returned.sort((a, b) => a - b);
  }

  private async reserve(merchantId: string, state: MerchantIndexes): Promise<void> {
    const { rows } = await this.db.query<{ account: number; start: number }>(
      `UPDATE merchants SET next_wallet_index = next_wallet_index + $2
       WHERE id = $1
       RETURNING derivation_account AS account, next_wallet_index - $2 AS start`,
      [merchantId, WALLET_INDEX_BLOCK],
    );
    const row = rows[0];
    // The merchant is the authenticated one: a missing row is a bug, not a client error.
    if (!row) throw new AppError("internal_error", "wallet index reservation found no merchant");
    state.account = row.account;
    state.next = row.start;
    state.end = row.start + WALLET_INDEX_BLOCK;
  }
}
