import { checkLedger, returnHeldDeposit } from "@mp/ledger";
import { sendDepositReturn, settleDepositReturns } from "@mp/transfers";
import { reconcileChains } from "@mp/treasury";
import { beforeAll, describe, expect, it } from "vitest";
import {
  freshRecipients,
  paidOnChain,
  startBitcoinTreasury,
} from "../../packages/treasury/test/support/bitcoin-treasury.ts";
import { testPipelines } from "../../packages/treasury/test/support/test-pipelines.ts";
import { useTreasuryHarness } from "../../packages/treasury/test/support/use-treasury.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { addWallet, createMerchant, rejectCustomer } from "../indexer/indexer-fixtures.ts";
import { reconcileTarget } from "../support/reconcile-target.ts";

/**
 * Returns on chain (issue 29) on the Bitcoin test node, with the real indexer and send pipeline: a
 * held deposit (its customer rejected) names no one payer, so it stays payable until the operator
 * gives the refund address (`deposits return --to`); then it goes there once, less the network fee
 * (1 USD at the deposit's rate, rounded up); the ledger and `reconcile chains` agree.
 */
describe("deposit returns on the Bitcoin test node", () => {
  const { t: database, h } = useTreasuryHarness(startBitcoinTreasury);
  const pipelines = testPipelines("BITCOIN", () => database.db);
  const [deposit = "", refund = ""] = freshRecipients(2);

  beforeAll(async () => {
    const db = database.db;
    const merchant = await createMerchant(db);
    await addWallet(db, merchant, "BITCOIN", deposit);
    await rejectCustomer(db, merchant);
    await h.fund([20_000_000n, 30_000_000n]);
  }, 120_000);

  it("a held deposit waits for the refund address, then goes there once, less the fee; ledger check and reconcile chains agree", async () => {
    const db = database.db;
    h.node.sendOutputs([{ address: deposit, amount: 1_000_000n }]);
    await h.mine(3);
    const { rows } = await db.query<{ id: string; hold_status: string | null; from_address: string | null }>(
      "SELECT id, hold_status, from_address FROM deposits WHERE to_address = $1",
      [deposit],
    );
    expect(rows).toEqual([expect.objectContaining({ hold_status: "HELD", from_address: null })]);
    const depositId = rows[0]?.id ?? "";

    const ask = (to?: string) =>
      db.tx((c) =>
        sendDepositReturn(c, { treasury: transferTreasury }, { depositId, to, networkFeeUsdMicros: 1_000_000n }),
      );
    await db.tx((c) => returnHeldDeposit(c, { depositId, reason: "KYC rejected" }));
    expect(await ask()).toMatchObject({ state: "payable", to: null });
    const sent = await ask(refund);
    expect(sent).toMatchObject({ state: "sending", to: refund });
    expect(sent.feeRaw).toBeGreaterThan(0n);
    expect(sent.amountRaw).toBe(1_000_000n - sent.feeRaw);
    expect(await ask(refund)).toMatchObject({ state: "sending", sendKey: sent.sendKey });

    const sends = await db.query<{ id: string }>("SELECT id FROM treasury_sends WHERE purpose = 'return'");
    expect(sends.rows).toHaveLength(1);
    await pipelines.runUntilConfirmed(
      h.sender(),
      sends.rows.map((s) => s.id),
      () => h.mine(1),
    );
    expect(await settleDepositReturns(db, transferTreasury, 50)).toBe(1);
    expect(await settleDepositReturns(db, transferTreasury, 50)).toBe(0);
    await h.mine(3);
    const landed = await db.query<{ tx_hash: string }>(
      `SELECT a.tx_hash FROM treasury_sends s JOIN treasury_attempts a ON a.id = s.landed_attempt_id
        WHERE s.purpose = 'return'`,
    );
    expect(await paidOnChain(h.node, landed.rows[0]?.tx_hash ?? "", refund)).toBe(sent.amountRaw);
    expect((await ask(refund)).state).toBe("returned");
    expect((await checkLedger(db)).problems).toEqual([]);
    const report = await reconcileChains(db, [
      reconcileTarget(h.config, [{ asset: "BTC", address: null, decimals: 8 }]),
    ]);
    expect(report.exitCode, JSON.stringify(report.lines)).toBe(0);
  }, 300_000);
});
