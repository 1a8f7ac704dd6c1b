import type { Queryable } from "@mp/db";

/** The wallet a funding address lives in: its destination (address of ours) on each chain. */
export interface FundingWallet {
  destinations: Array<{ id: string; chain: string }>;
}

/**
 * A wallet slot reserved, outside any transaction, for one intent's funding address; released when
 * the transaction did not use it (an index is never used twice, nor skipped).
 */
export interface ReservedFundingSlot {
  release(): void;
  /** Makes the funding wallet at this slot in `sql`, the caller's transaction. */
  openWallet(sql: Queryable, wallet: { merchantId: string; customerId: string; label: string }): Promise<FundingWallet>;
}

/**
 * Where CRYPTO_DEPOSIT intents' addresses come from: the wallets (slots, derivation, the indexer's
 * watch list) are another domain's, which implements this (@mp/api's fundingWallets).
 */
export interface FundingWallets {
  reserve(merchantId: string): Promise<ReservedFundingSlot>;
}
