import { confirmDeposits } from "./confirm-deposits.ts";
import type { IndexerContext } from "./indexer-context.ts";
import { confirmTreasuryReceipts } from "./treasury-receipts.ts";

/**
 * Confirms and credits the deposits (and treasury receipts) that reached their confirmations at
 * `head`; keeps the awaiting-rate gauges per asset. Returns the deposits confirmed and the assets
 * now awaiting a rate.
 */
export async function confirmReached(
  ctx: IndexerContext,
  head: number,
  awaitingBefore: ReadonlySet<string>,
): Promise<{ confirmed: number; awaitingAssets: Set<string> }> {
  const { db, chain, rates, screening, logger, metrics, labels, failpoint } = ctx;
  const fence = ctx.leadership.fence;
  const { confirmed, awaitingRate } = await confirmDeposits({
    db,
    chain,
    head,
    rates,
    screening,
    logger,
    failpoint,
    fence,
  });
  // An asset that waited and no longer does is set back to 0, not left at its last count.
  for (const asset of awaitingBefore) {
    if (!awaitingRate.has(asset)) metrics?.depositsAwaitingRate.set({ chain, asset }, 0);
  }
  for (const [asset, deposits] of awaitingRate) metrics?.depositsAwaitingRate.set({ chain, asset }, deposits);
  // Counted as soon as they committed: a reader that sees a deposit CONFIRMED finds it counted too.
  metrics?.depositsConfirmed.inc(labels, confirmed);
  if (confirmed > 0) logger.info({ chain, head, deposits: confirmed }, "deposits confirmed");
  // The operator's float at a treasury address confirms at the same depth (treasury-receipts.ts).
  await confirmTreasuryReceipts({ db, chain, head, rates, logger, fence });
  return { confirmed, awaitingAssets: new Set(awaitingRate.keys()) };
}
