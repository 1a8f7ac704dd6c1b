import { executeTransfersOnce } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { PAYER, useReturnsOnBase } from "./returns-on-base-support.ts";
import { returnPolicyMerchant, type TransfersApi } from "./transfers-support.ts";
import { nextKey } from "./verification-fixtures.ts";

/**
 * A merchant's return policy (issue 29, item 2) for crypto that reaches a transfer's funding address
 * after its intent was canceled: `credit` (the default) leaves it in the merchant's available
 * balance; `return` takes it back into returns_payable and sends it to its payer through the
 * treasury's send pipeline (less RETURN_NETWORK_FEE_USD), on a real anvil with the real indexer.
 */
describe("transfers: a late crypto payment under the merchant's return policy", () => {
  const {
    t,
    catchUp,
    usdcOf,
    payConfirmed,
    sendReturns: sendUntil,
    expectReturnSend,
    expectNoReturnSends,
    expectStoredReturn,
    expectReturned,
  } = useReturnsOnBase();

  /** A transfer funded by crypto, canceled, then paid `micros` USDC late: its deposit id. */
  async function latePayment(merchant: Awaited<ReturnType<TransfersApi["api"]["merchant"]>>, micros: bigint) {
    const bank = await t.bankCustomer(merchant);
    const { transfer: canceled, address } = await t.cryptoTransfer(merchant, bank.customerId, { source_amount: "50" });
    const cancel = await t.call(merchant, `/v1/transfers/${canceled.id}/cancel`, {
      method: "POST",
      idempotencyKey: nextKey("cancel"),
    });
    expect(cancel.status, cancel.text).toBe(200);
    return { depositId: await payConfirmed(address, micros), transferId: canceled.id as string };
  }

  const pass = () => executeTransfersOnce(t.api.db, transferTreasury, { returnNetworkFeeUsdMicros: 1_000_000n });

  /** Runs the treasury's send pipeline on BASE until a pass settles a return (its send confirmed). */
  const sendReturns = () => sendUntil(async () => (await pass()).returns > 0);

  it("credit (the default): the late money stays in the merchant's available balance, nothing is sent", async () => {
    const m = await t.api.merchant();
    const { transferId } = await latePayment(m, 20_000_000n);
    expect((await pass()).returns).toBe(0);
    expect(await t.balance(m)).toEqual({ available: "20.000000", reserved: "0.000000" });
    const intent = (await t.call(m, `/v1/transfers/${transferId}/funding`)).body.data.intent;
    expect(intent.flag.message).toContain("it was added to the merchant's available balance");
    await expectNoReturnSends();
    await t.expectLedgerClean();
  }, 300_000);

  it("return: the late money goes back to its payer once, less the network fee; the ledger agrees", async () => {
    const m = await returnPolicyMerchant(t);
    const { depositId, transferId } = await latePayment(m, 30_000_000n);
    const before = await usdcOf(PAYER);
    const first = await pass();
    expect(first.applied).toBe(1);
    expect(first.returns).toBe(1);
    expect((await pass()).returns).toBe(0); // a replay takes nothing back twice
    expect(await t.balance(m)).toEqual({ available: "0.000000", reserved: "0.000000" });
    const intent = (await t.call(m, `/v1/transfers/${transferId}/funding`)).body.data.intent;
    expect(intent.flag.code).toBe("LATE_PAYMENT");
    expect(intent.flag.message).toMatch(/arrived after the intent was CANCELED; it was sent back to its payer/);
    expect(intent.flag.message).toContain(`by the merchant's return policy (deposit ${depositId})`);
    await expectReturnSend(depositId, "29000000");
    await t.expectLedgerClean();

    await sendReturns();
    expect(await usdcOf(PAYER)).toBe(before + 29_000_000n);
    await expectReturned(depositId);
  }, 300_000);

  it("return: the excess of an over-payment goes back to its payer, less the network fee; the transfer keeps what it needs", async () => {
    const m = await returnPolicyMerchant(t);
    const bank = await t.bankCustomer(m);
    const { transfer, address } = await t.cryptoTransfer(m, bank.customerId, { source_amount: "50" });
    const depositId = await payConfirmed(address, 60_000_000n);
    const before = await usdcOf(PAYER);

    const first = await pass();
    expect(first.applied).toBe(1);
    expect(first.returns).toBe(1);
    expect((await pass()).returns).toBe(0);
    // The excess (10 USDC, its deposit fee included) left available; the transfer's 50 did not.
    expect((await t.balance(m)).available).toBe("0.000000");
    const intent = (await t.call(m, `/v1/transfers/${transfer.id}/funding`)).body.data.intent;
    expect(intent.status).toBe("FUNDED");
    expect(intent.flag.code).toBe("AMOUNT_MISMATCH");
    expect(intent.flag.message).toContain(
      `the excess 10 USDC was sent back to its payer by the merchant's return policy (deposit ${depositId})`,
    );
    const sends = await t.api.db.query<{ amount_raw: string; idempotency_key: string }>(
      "SELECT amount_raw::text, idempotency_key FROM treasury_sends WHERE idempotency_key = $1",
      [`deposit-return:${depositId}`],
    );
    expect(sends.rows).toEqual([{ amount_raw: "9000000", idempotency_key: `deposit-return:${depositId}` }]);
    await expectStoredReturn(depositId, "excess", "10000000");
    await t.expectLedgerClean();

    await sendReturns();
    expect(await usdcOf(PAYER)).toBe(before + 9_000_000n);
    await catchUp();
    await t.expectLedgerClean();
  }, 300_000);
});
