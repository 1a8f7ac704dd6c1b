import { describe, expect, it } from "vitest";
import { addWallet, catchUp, createMerchant, depositsOf, insertWallet, useIndexerSuite } from "./indexer-fixtures.ts";
import { CONFIRMATIONS, startEvmChain } from "./test-chains.ts";

/**
 * Longer than the re-read window the watch set once had (2 x 10 s after a row's transaction began).
 * PGlite's wire server serves one transaction at a time: there, other statements would wait for the
 * held one (and time out), so the case cannot arise and the transaction commits at once.
 */
const HELD_MS = process.env.DATABASE_URL ? 22_000 : 0;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A wallet whose inserting transaction stays open a long time (a slow outside call holding it, a
 * stalled connection) while other wallets commit and the indexer keeps refreshing its watch set:
 * its deposits must still be recorded once it commits.
 */
describe("a wallet committed long after it was inserted", () => {
  const { db, chain, startIndexer } = useIndexerSuite(startEvmChain);

  it(
    "is watched once it commits, and its deposit recorded and credited",
    async () => {
      const merchant = await createMerchant(db);
      const current = startIndexer();
      await catchUp(current);
      const lateAddress = chain.address();

      let inserted!: () => void;
      const insertedSignal = new Promise<void>((resolve) => {
        inserted = resolve;
      });
      const held = db.tx(async (c) => {
        await insertWallet(c, merchant, chain.chain, lateAddress);
        inserted();
        await sleep(HELD_MS);
      });
      await insertedSignal;
      // Meanwhile a later wallet commits and the indexer goes on, past the old window.
      const meanwhile = (async () => {
        await addWallet(db, await createMerchant(db), chain.chain, chain.address());
        const until = Date.now() + HELD_MS - 1_000;
        while (Date.now() < until) {
          await chain.mine(1);
          await catchUp(current);
          await sleep(1_000);
        }
      })();
      await Promise.all([held, meanwhile]);

      // The customer learns the address from the committed answer, and pays.
      const txHash = await chain.pay(lateAddress, chain.amount(5));
      await chain.mine(CONFIRMATIONS - 1);
      await catchUp(current);
      const deposits = await depositsOf(db, merchant.merchantId);
      expect(deposits.map((d) => [d.tx_hash, d.to_address, d.status])).toEqual([[txHash, lateAddress, "CONFIRMED"]]);
    },
    HELD_MS + 60_000,
  );
});
