import { describe, expect, it } from "vitest";
import {
  addWallet,
  availableOf,
  catchUp,
  createMerchant,
  depositsOf,
  expectedFee,
  useIndexerSuite,
} from "./indexer-fixtures.ts";
import { CONFIRMATIONS, TEST_CHAINS } from "./test-chains.ts";

/**
 * Regression (indexer-property seed -1548536611, Solana): a payment dropped by a reorg, then the same
 * amount paid again to the same address. On the Solana test node both were once signed against the
 * same (finalized) blockhash and, the reorg having removed the token account, were byte-identical: one
 * signature for two payments, which the property counted twice. Each payment is its own transaction.
 */
describe.each(TEST_CHAINS)("the same payment again after a reorg dropped it, on $name", ({ start }) => {
  const { db, chain, startIndexer } = useIndexerSuite(start);

  it("is a second transaction, credited once", async () => {
    const merchant = await createMerchant(db, { feeBps: 100, feeFixedMicros: 1_000n });
    const address = chain.address();
    await addWallet(db, merchant, chain.chain, address);
    const indexer = startIndexer();
    await catchUp(indexer);
    const amount = chain.amount(42);
    const dropped = await chain.pay(address, amount);
    await chain.reorg(1, []);
    expect(await chain.txHeight(dropped)).toBeNull();
    const again = await chain.pay(address, amount);
    expect(again).not.toBe(dropped);

    await chain.mine(CONFIRMATIONS);
    await catchUp(indexer);
    await catchUp(indexer);
    const deposits = await depositsOf(db, merchant.merchantId);
    expect(deposits.filter((d) => d.status === "CONFIRMED").map((d) => d.tx_hash)).toEqual([again]);
    const gross = chain.usdMicros(amount);
    expect(await availableOf(db, merchant.merchantId)).toBe(gross - expectedFee(merchant, gross));
  });
});
