import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { deferred } from "../../../test/support/deferred.ts";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import {
  getMerchantBalance,
  placeHold,
  postDepositCredits,
  postTransferFee,
  releaseHold,
  settleHold,
} from "../src/index.ts";
import {
  linkCreditEntries,
  merchantWithOpenAccounts,
  systemBalance,
  USD,
  uncreditedDeposit,
  waitingForLocks,
} from "./ledger-fixtures.ts";

const t = useTestDatabase();
const ROLLED_BACK = "rolled back on purpose";

/**
 * The ledger's own checks, from a fresh copy of the package: files share a worker's modules, and the
 * transfers' checks registered there would look for the transfers these fees name (none here).
 */
let checkLedger: typeof import("../src/index.ts").checkLedger;
beforeAll(async () => {
  vi.resetModules();
  ({ checkLedger } = await import("../src/index.ts"));
});

/**
 * The ledger's lock order across the entries of one transaction (accounts.ts lockBalances). A payout's
 * finish posts two entries: the settle (merchant_reserved -> payout_clearing), then the fee
 * (payout_clearing -> fee_revenue). Locked entry by entry, the fee took fee_revenue after
 * payout_clearing, against the global order (system rows by kind: fee_revenue first), and a fee
 * posted meanwhile by another transaction (fee_revenue taken, waiting for payout_clearing) closed a
 * cycle: PostgreSQL refused one of them ("deadlock detected") after its deadlock_timeout. With the
 * system rows as the gate, the other transaction waits at its first lock holding nothing.
 * PostgreSQL only: it needs a second connection waiting on the first's locks.
 */
describe.skipIf(!process.env.DATABASE_URL)(
  "the ledger's lock order (PostgreSQL only: lock waits between connections)",
  () => {
    it("a transaction posting a settle and then a fee never deadlocks with a fee posted meanwhile", async () => {
      const m = await merchantWithOpenAccounts(t.db);
      const holds = [randomUUID(), randomUUID()];
      for (const holdId of holds) {
        await t.db.tx((c) => placeHold(c, { holdId, merchantId: m.merchantId, amountUsdMicros: USD / 4n }));
      }
      // The other transfer's settle is committed: its fee is due, posted below while the first is open.
      await t.db.tx((c) => settleHold(c, { holdId: holds[1] as string, merchantId: m.merchantId, paidOut: true }));

      const settled = deferred();
      const holding = deferred();
      const finish = t.db.tx(async (c) => {
        await settleHold(c, { holdId: holds[0] as string, merchantId: m.merchantId, paidOut: true });
        holding.resolve();
        await settled.promise;
        await postTransferFee(c, { transferId: randomUUID(), merchantId: m.merchantId, feeUsdMicros: 10_000n });
      });
      await holding.promise;
      const otherFee = t.db.tx((c) =>
        postTransferFee(c, { transferId: randomUUID(), merchantId: m.merchantId, feeUsdMicros: 20_000n }),
      );
      await waitingForLocks(t.db, 1, "the other fee waiting for the open settle's locks");
      settled.resolve();
      const outcomes = await Promise.allSettled([finish, otherFee]);
      expect(outcomes.map((o) => (o.status === "rejected" ? String(o.reason) : "posted"))).toEqual([
        "posted",
        "posted",
      ]);

      expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({ available: USD / 2n, reserved: 0n, held: 0n });
      expect(await systemBalance(t.db, "payout_clearing")).toBe(USD / 2n - 30_000n);
      expect(await systemBalance(t.db, "fee_revenue")).toBe(30_000n);
      await linkCreditEntries(t.db);
      expect((await checkLedger(t.db)).problems).toEqual([]);
    });

    /**
     * Fault search over the same order: 2-4 transactions of one merchant at once, each one of the
     * ledger's postings that meet at the system rows (a payout's settle and fee, a fee alone, a
     * deposit credit, a hold placed, a hold released), in random order and timing, some rolled back
     * after posting. Whatever the interleaving: no error but the rollbacks asked for (a deadlock
     * would be one), and the merchant's balances and the system rows moved by exactly the committed
     * postings. Without the gate it finds "deadlock detected". fast-check prints the seed and the
     * shrunk transactions of a failure.
     */
    it("postings that meet at the system rows never deadlock and move balances exactly (fault search)", async () => {
      const HOLD = USD / 10n;
      const NEW_HOLD = USD / 20n;
      const FEE = 5_000n;
      const op = fc.record({
        kind: fc.constantFrom("payout", "fee", "credit", "hold", "release"),
        commit: fc.boolean(),
        jitterMs: fc.nat({ max: 4 }),
      });
      await fc.assert(
        fc.asyncProperty(fc.array(op, { minLength: 2, maxLength: 4 }), async (ops) => {
          const m = await merchantWithOpenAccounts(t.db);
          // Transaction i uses hold i and deposit i only: no two ask for the same thing.
          const holds = ops.map(() => randomUUID());
          for (const holdId of holds) {
            await t.db.tx((c) => placeHold(c, { holdId, merchantId: m.merchantId, amountUsdMicros: HOLD }));
          }
          const deposits = await Promise.all(
            ops.map((_, i) => uncreditedDeposit(t.db, m, { gross: BigInt(i + 1) * HOLD, fee: 1_000n })),
          );
          const before = {
            clearing: await systemBalance(t.db, "payout_clearing"),
            revenue: await systemBalance(t.db, "fee_revenue"),
          };
          const post = async (kind: (typeof ops)[number]["kind"], i: number, c: Parameters<typeof placeHold>[0]) => {
            const merchantId = m.merchantId;
            const holdId = holds[i] as string;
            if (kind === "payout") {
              await settleHold(c, { holdId, merchantId, paidOut: true });
              await postTransferFee(c, { transferId: randomUUID(), merchantId, feeUsdMicros: FEE });
            } else if (kind === "fee") {
              await postTransferFee(c, { transferId: randomUUID(), merchantId, feeUsdMicros: FEE });
            } else if (kind === "credit") {
              await postDepositCredits(c, [deposits[i] as (typeof deposits)[number]]);
            } else if (kind === "hold") {
              await placeHold(c, { holdId: randomUUID(), merchantId, amountUsdMicros: NEW_HOLD });
            } else {
              await releaseHold(c, { holdId, merchantId });
            }
          };
          const outcomes = await Promise.allSettled(
            ops.map(async (o, i) => {
              await new Promise((resolve) => setTimeout(resolve, o.jitterMs));
              await t.db.tx(async (c) => {
                await post(o.kind, i, c);
                if (!o.commit) throw new Error(ROLLED_BACK);
              });
            }),
          );
          const refused = outcomes.flatMap((o) =>
            o.status === "rejected" && String(o.reason) !== `Error: ${ROLLED_BACK}` ? [String(o.reason)] : [],
          );
          expect(refused).toEqual([]);

          const committed = (kind: string) => ops.filter((o) => o.commit && o.kind === kind).length;
          const credited = ops.reduce(
            (sum, o, i) => (o.commit && o.kind === "credit" ? sum + BigInt(i + 1) * HOLD - 1_000n : sum),
            0n,
          );
          const placed = BigInt(ops.length) * HOLD;
          expect(await getMerchantBalance(t.db, m.merchantId)).toEqual({
            available:
              USD - placed + credited + BigInt(committed("release")) * HOLD - BigInt(committed("hold")) * NEW_HOLD,
            reserved:
              placed - BigInt(committed("payout") + committed("release")) * HOLD + BigInt(committed("hold")) * NEW_HOLD,
            held: 0n,
          });
          const fees = BigInt(committed("payout") + committed("fee")) * FEE;
          expect(await systemBalance(t.db, "payout_clearing")).toBe(
            before.clearing + BigInt(committed("payout")) * HOLD - fees,
          );
          expect(await systemBalance(t.db, "fee_revenue")).toBe(
            before.revenue + fees + BigInt(committed("credit")) * 1_000n,
          );
        }),
        { numRuns: 40 },
      );
      await linkCreditEntries(t.db);
      expect((await checkLedger(t.db)).problems).toEqual([]);
    });
  },
);
