import type { Database } from "@mp/db";
import type { Indexer } from "@mp/indexer";
import { recordTreasuryAddresses } from "@mp/treasury";
import { addWallet, createMerchant, newIndexer } from "../indexer/indexer-fixtures.ts";
import type { TestChain } from "../indexer/test-chains.ts";

/**
 * What the reconcile suites index on their chain: the treasury's send address recorded (as the
 * signer records it at start), `deposit` the wallet address of a new merchant, and the real indexer
 * watching both (2 s lease), not yet ticked.
 */
export async function indexTreasuryAndDeposit(
  db: Database,
  chain: Pick<TestChain, "chain" | "config" | "adapter">,
  treasury: { path: string; address: string },
  deposit: string,
): Promise<Indexer> {
  const { path, address } = treasury;
  await recordTreasuryAddresses(db, [{ chain: chain.chain, purpose: "send", path, address }]);
  await addWallet(db, await createMerchant(db), chain.chain, deposit);
  return newIndexer(db, chain, { leaseSeconds: 2 });
}
