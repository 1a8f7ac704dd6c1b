import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addWallet,
  availableOf,
  catchUp,
  createMerchant,
  depositsOf,
  expectedFee,
  expectLedgerOk,
  newIndexer,
  useIndexerSuite,
} from "./indexer-fixtures.ts";
import { CONFIRMATIONS, TEST_CHAINS } from "./test-chains.ts";

type Action =
  | { kind: "pay"; to: number; amount: number }
  | { kind: "mine"; blocks: number }
  | { kind: "reorg"; depth: number; keep: boolean[] }
  | { kind: "tick" }
  /** Enough blocks for the latest payment to confirm, then an iteration: credits that a later reorg may undo. */
  | { kind: "settle" };

const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("pay" as const), to: fc.nat(2), amount: fc.integer({ min: 1, max: 50 }) }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("mine" as const), blocks: fc.integer({ min: 1, max: 3 }) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("reorg" as const),
      depth: fc.integer({ min: 1, max: 6 }),
      keep: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    }),
  },
  { weight: 3, arbitrary: fc.constant({ kind: "tick" as const }) },
  { weight: 2, arbitrary: fc.constant({ kind: "settle" as const }) },
);

/**
 * Under any sequence of payments, blocks, reorganisations (some transactions re-mined, others gone)
 * and indexer iterations, once the chain settles: exactly the payments still on the chain are
 * CONFIRMED, each once, and the merchant's balance is the sum of their net amounts.
 */
describe.each(TEST_CHAINS)("indexer property on $name", ({ start }) => {
  const { db, chain } = useIndexerSuite(start);

  it("merchant balance == sum of net of confirmed deposits == payments left on the chain", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 4, maxLength: 14 }), async (actions) => {
        const merchant = await createMerchant(db, { feeBps: 100, feeFixedMicros: 1_000n });
        const addresses = [chain.address(), chain.address(), chain.address()];
        for (const address of addresses) await addWallet(db, merchant, chain.chain, address);
        const indexer = newIndexer(db, chain);
        const startHead = await chain.head();
        const paid: Array<{ txHash: string; amount: bigint }> = [];
        try {
          await catchUp(indexer);
          for (const step of actions) {
            if (step.kind === "pay") {
              const amount = chain.amount(step.amount);
              paid.push({ txHash: await chain.pay(addresses[step.to] ?? "", amount), amount });
            } else if (step.kind === "mine") {
              await chain.mine(step.blocks);
            } else if (step.kind === "tick") {
              await indexer.tick();
            } else if (step.kind === "settle") {
              await chain.mine(CONFIRMATIONS - 1);
              await catchUp(indexer);
            } else {
              const head = await chain.head();
              // Only this run's blocks are reorganised.
              const depth = Math.min(step.depth, head - startHead);
              if (depth < 1) continue;
              const heights = await Promise.all(paid.map((p) => chain.txHeight(p.txHash)));
              const inReplaced = paid.filter((_, i) => (heights[i] ?? -1) > head - depth);
              await chain.reorg(
                depth,
                inReplaced.filter((_, i) => step.keep[i % step.keep.length]).map((p) => p.txHash),
              );
            }
          }
          await chain.mine(CONFIRMATIONS);
          await catchUp(indexer);
          await catchUp(indexer);

          const onChain = new Set<string>();
          for (const p of paid) if ((await chain.txHeight(p.txHash)) !== null) onChain.add(p.txHash);
          const deposits = await depositsOf(db, merchant.merchantId);
          const confirmed = deposits.filter((d) => d.status === "CONFIRMED");
          expect(deposits.filter((d) => d.status === "PENDING")).toEqual([]);
          expect(confirmed.map((d) => d.tx_hash).sort()).toEqual([...onChain].sort());
          const netOfConfirmed = confirmed.reduce((sum, d) => sum + BigInt(d.net_amount_usd_micros ?? 0), 0n);
          const expectedNet = paid
            .filter((p) => onChain.has(p.txHash))
            .reduce((sum, p) => {
              const gross = chain.usdMicros(p.amount);
              return sum + gross - expectedFee(merchant, gross);
            }, 0n);
          expect(netOfConfirmed).toBe(expectedNet);
          expect(await availableOf(db, merchant.merchantId)).toBe(netOfConfirmed);
          await expectLedgerOk(db);
        } finally {
          await indexer.stop();
        }
      }),
      { numRuns: 10 },
    );
    // Ten runs take ~25 s on a quiet machine and went past the default 60 s at load 25: a bound, not a race.
  }, 300_000);
});
