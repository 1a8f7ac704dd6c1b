import { createSandboxBankingProvider, SANDBOX_PAYOUT_MAGIC } from "@mp/providers";
import { executeTransfersOnce } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { PAYER, useReturnsOnBase } from "./returns-on-base-support.ts";
import { usBank } from "./transfers-bank-support.ts";
import { returnPolicyMerchant } from "./transfers-support.ts";

/**
 * A customer-funded transfer whose payout failed (issue 29, item 1 of the rest): the sandbox bank
 * refuses the payout (account ending in its fail suffix) of a transfer the customer funded in USDC
 * on a real anvil, indexed by the real indexer. Under `credit` the customer's money stays in the
 * merchant's available balance; under `return` the whole payment goes back to its sender, once, less
 * RETURN_NETWORK_FEE_USD, through the treasury's send pipeline.
 */
describe("transfers: the funds of a failed payout under the merchant's return policy", () => {
  const {
    t,
    usdcOf,
    payConfirmed,
    sendReturns,
    expectReturnSend,
    expectNoReturnSends,
    expectStoredReturn,
    expectReturned,
  } = useReturnsOnBase();
  // The sandbox bank answers at once (no payout delay): a refused payout is FAILED on its first check.
  const bank = () => ({
    banking: createSandboxBankingProvider({ payoutDelayMs: 0 }),
    keyring: t.api.deps.encryption,
    returnCheckSeconds: 0,
  });
  const pass = () =>
    executeTransfersOnce(t.api.db, transferTreasury, { bank: bank(), returnNetworkFeeUsdMicros: 1_000_000n });

  /**
   * A transfer of 50 USDC to a bank account the sandbox refuses, paid in full by the customer, run
   * until it is FAILED: its id, its deposit's id and how many returns the passes took back.
   */
  async function failedPayout(m: TestMerchant, end: "FAILED" | "REFUNDED" = "FAILED") {
    const bank = await t.bankCustomer(m);
    // The sandbox bank refuses the fail suffix; it pays the return suffix, then it comes back.
    const suffix = end === "FAILED" ? SANDBOX_PAYOUT_MAGIC.failSuffix : SANDBOX_PAYOUT_MAGIC.returnSuffix;
    const { transfer, address } = await t.cryptoTransfer(m, bank.customerId, {
      source_amount: "50",
      destination: usBank(`98765${suffix}`),
    });
    const depositId = await payConfirmed(address, 50_000_000n);
    let returns = 0;
    for (let i = 0; ; i++) {
      returns += (await pass()).returns;
      const now = await t.call(m, `/v1/transfers/${transfer.id}`);
      if (now.body.data.status === end) break;
      if (i > 10) throw new Error(`transfer ${transfer.id} is ${now.body.data.status}, never ${end}`);
    }
    return { transferId: transfer.id as string, depositId, returns };
  }

  it("credit (the default): the customer's payment stays in the merchant's available balance", async () => {
    const m = await t.api.merchant();
    const { transferId, returns } = await failedPayout(m);
    expect(returns).toBe(0);
    expect((await pass()).returns).toBe(0);
    expect(await t.balance(m)).toEqual({ available: "50.000000", reserved: "0.000000" });
    expect((await t.call(m, `/v1/transfers/${transferId}`)).body.data.returns).toEqual([]);
    await expectNoReturnSends();
    await t.expectLedgerClean();
  }, 300_000);

  it("return: the customer's whole payment goes back to its sender once, less the network fee; the ledger agrees", async () => {
    const m = await returnPolicyMerchant(t);
    const before = await usdcOf(PAYER);
    const { transferId, depositId, returns } = await failedPayout(m);
    expect(returns).toBe(1);
    expect((await pass()).returns).toBe(0); // a replay takes nothing back twice
    expect(await t.balance(m)).toEqual({ available: "0.000000", reserved: "0.000000" });
    const failed = (await t.call(m, `/v1/transfers/${transferId}`)).body.data;
    expect(failed.failure_reason).toContain(SANDBOX_PAYOUT_MAGIC.failReason);
    expect(failed.failure_reason).toContain("the customer's payment was sent back to its payer");
    expect(failed.returns).toEqual([
      {
        deposit_id: depositId,
        origin: "failed_payout",
        state: "sending",
        amount: { asset: "USDC", currency: "USDC", network: "BASE", value: "49" },
        network_fee: { asset: "USDC", currency: "USDC", network: "BASE", value: "1" },
        destination: {
          type: "CRYPTO_ADDRESS",
          network: "BASE",
          address: expect.stringMatching(new RegExp(PAYER, "i")),
        },
        reason: null,
        tx_hash: null,
        created_at: expect.any(String),
        returned_at: null,
      },
    ]);
    await expectReturnSend(depositId, "49000000");
    await expectStoredReturn(depositId, "failed_payout", "50000000");
    await t.expectLedgerClean();

    await sendReturns(async () => (await pass()).returns > 0);
    expect(await usdcOf(PAYER)).toBe(before - 50_000_000n + 49_000_000n);
    await expectReturned(depositId);
    const listed = (await t.call(m, `/v1/transfers?customer_id=${failed.customer_id}`)).body.data.items;
    expect(listed.map((x: { returns: unknown }) => x.returns)).toEqual([
      [expect.objectContaining({ deposit_id: depositId, state: "returned", tx_hash: expect.stringMatching(/^0x/) })],
    ]);
  }, 300_000);

  it("return: a payout the payee's bank sent back after it completed (REFUNDED): the customer's payment goes back too", async () => {
    const m = await returnPolicyMerchant(t);
    const before = await usdcOf(PAYER);
    const { transferId, depositId, returns } = await failedPayout(m, "REFUNDED");
    expect(returns).toBe(1);
    expect((await pass()).returns).toBe(0);
    // The refund gave the merchant everything the transfer cost; the policy took the customer's payment back.
    expect(await t.balance(m)).toEqual({ available: "0.000000", reserved: "0.000000" });
    const refunded = (await t.call(m, `/v1/transfers/${transferId}`)).body.data;
    expect(refunded.failure_reason).toBe(
      `the payee's bank returned the payout after it completed: ${SANDBOX_PAYOUT_MAGIC.returnReason}; the customer's payment was sent back to its payer by the merchant's return policy`,
    );
    expect(refunded.returns).toEqual([
      expect.objectContaining({ deposit_id: depositId, origin: "failed_payout", state: "sending" }),
    ]);
    const kinds = await t.api.db.query<{ kind: string }>(
      "SELECT kind FROM journal_entries WHERE reference = ANY($1::text[]) ORDER BY seq",
      [[transferId, depositId]],
    );
    expect(kinds.rows.map((r) => r.kind)).toEqual(expect.arrayContaining(["transfer_refund", "policy_return"]));
    // The file's other test sent a return already: this deposit's send alone.
    const send = await t.api.db.query<{ amount_raw: string }>(
      "SELECT amount_raw::text FROM treasury_sends WHERE purpose = 'return' AND idempotency_key = $1",
      [`deposit-return:${depositId}`],
    );
    expect(send.rows).toEqual([{ amount_raw: "49000000" }]);
    await expectStoredReturn(depositId, "failed_payout", "50000000");
    await t.expectLedgerClean();

    await sendReturns(async () => (await pass()).returns > 0);
    expect(await usdcOf(PAYER)).toBe(before - 50_000_000n + 49_000_000n);
    await expectReturned(depositId);
    await t.expectLedgerClean();
  }, 300_000);
});
