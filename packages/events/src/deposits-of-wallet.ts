/**
 * The condition "the deposit was made to this wallet" for a query on `deposits` (its columns
 * qualified by `alias`, if given), the wallet's id in `walletParam` (a placeholder such as `$1`).
 *
 * Deposits carry their wallet_id, but it has no index (0370): a credit's non-HOT update wrote an
 * entry into every index of deposits, and a deposit's wallet is always its destination's (the
 * indexer takes both from one destinations row). A wallet has one destination per chain, so this
 * reads deposits_destination for each of them, as the transfer executor and the sweepers do.
 */
export function depositsOfWallet(walletParam: string, alias?: string): string {
  const column = alias ? `${alias}.destination_id` : "destination_id";
  return `${column} IN (SELECT wd.id FROM destinations wd WHERE wd.wallet_id = ${walletParam})`;
}
