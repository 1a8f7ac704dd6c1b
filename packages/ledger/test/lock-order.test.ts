import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { deferred } from "../../../test/support/deferred.ts";
import { useTestDatabase } from "../../../test/support/test-database.ts";
import { getMerchantBalance, placeHold, postTransferFee, settleHold } from "../src/index.ts";
import { linkCreditEntries, merchantWithOpenAccounts, systemBalance, USD, waitingForLocks } from "./ledger-fixtures.ts";

const t = useTestDatabase();

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
  },
);
