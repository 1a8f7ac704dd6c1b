import { decimalToUnits } from "@mp/core";
import { tokenBalance } from "@mp/test-nodes/evm";
import { executeTransfersOnce } from "@mp/transfers";
import { encodeAbiParameters, type Hex, keccak256, pad } from "viem";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EvmTreasuryHarness,
  freshAddress,
  startEvmTreasury,
  until,
} from "../../packages/treasury/test/support/evm-treasury.ts";
import { testSendPipeline } from "../../packages/treasury/test/support/test-pipelines.ts";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import type { TestMerchant } from "../support/api-harness.ts";
import { COMPLETED_JIT_STATUSES, startTransfersApi, type TransfersApi, transferStatuses } from "./transfers-support.ts";

/** TestToken's storage slot of balanceOf (name, symbol, totalSupply before it; decimals and owner are immutable). */
const BALANCE_OF_SLOT = 3n;

/**
 * Issue 27, finding 5: a failure is final only as deep as the chain's confirmations. A transfer's
 * USDC payout on anvil (BASE, two confirmations) is mined reverted, the chain reorganises, and the
 * same signed transaction lands successfully: the payee is paid once, the transfer COMPLETED, the
 * merchant's money never handed back.
 */
describe("transfers: a payout reverted at depth 0 and re-included by a reorg", () => {
  let t: TransfersApi;
  let base: EvmTreasuryHarness;
  let a: TestMerchant;
  let customer: { customerId: string; virtualAccountId: string };

  beforeAll(async () => {
    // The treasury's sender gets the API's database below (the harness's own is only used lazily).
    base = await startEvmTreasury(undefined as never);
    t = await startTransfersApi({ chains: { BASE: base.config } });
    a = await t.api.merchant();
    customer = await t.bankCustomer(a);
    expect((await t.credit(a, customer.virtualAccountId, "100")).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    await base?.stop();
  });

  /** Sets the treasury's USDC balance as stored by the token (anvil_setStorageAt). */
  const setTreasuryUsdc = (amount: bigint) =>
    base.node.testClient.setStorageAt({
      address: base.usdc.address,
      index: keccak256(
        encodeAbiParameters([{ type: "address" }, { type: "uint256" }], [base.treasury, BALANCE_OF_SLOT]),
      ),
      value: pad(`0x${amount.toString(16)}` as Hex, { size: 32 }),
    });

  it("is not failed at depth 0: after the reorg it lands, the payee is paid once, COMPLETED, nothing refunded", async () => {
    const payee = freshAddress();
    const quote = await t.quote(a, customer.customerId, {
      source: { method: "BALANCE" },
      destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: payee },
      source_amount: "20.00",
    });
    const transfer = (await t.transfer(a, quote.id)).body.data;
    expect(transfer.status).toBe("FUNDED");
    await executeTransfersOnce(t.api.db, transferTreasury);
    const [send] = (
      await t.api.db.query<{ id: string }>("SELECT id FROM treasury_sends WHERE idempotency_key = $1", [transfer.id])
    ).rows;
    const pipeline = testSendPipeline(t.api.db, "BASE", base.sender({ db: t.api.db }));
    const amount = decimalToUnits(transfer.destination_amount.value, 6) as bigint;
    await base.node.setAutomine(false);
    try {
      // Signed and broadcast: in the mempool.
      await until(t.api.db, [send?.id as string], "broadcast", () => pipeline.tick("BASE"));
      const before = await base.node.snapshot();
      // The treasury's USDC is gone when the block is made: the payout is mined reverted.
      const held = await tokenBalance(base.node, base.usdc, base.treasury);
      await setTreasuryUsdc(0n);
      await base.node.mine(1);
      const [attempt] = (
        await t.api.db.query<{ tx_hash: Hex }>(
          "SELECT a.tx_hash FROM treasury_attempts a JOIN treasury_attempt_sends x ON x.attempt_id = a.id WHERE x.send_id = $1",
          [send?.id],
        )
      ).rows;
      const reverted = await base.node.publicClient.getTransactionReceipt({ hash: attempt?.tx_hash as Hex });
      expect(reverted.status).toBe("reverted");

      // One confirmation of two: the failure is not final, the send stays out, the transfer PROCESSING.
      await pipeline.tick("BASE");
      await pipeline.tick("BASE");
      const sendState = async () =>
        (await t.api.db.query<{ state: string }>("SELECT state FROM treasury_sends WHERE id = $1", [send?.id])).rows[0]
          ?.state;
      expect(await sendState()).toBe("broadcast");
      await executeTransfersOnce(t.api.db, transferTreasury);
      expect((await t.call(a, `/v1/transfers/${transfer.id}`)).body.data.status).toBe("PROCESSING");
      expect(await t.balance(a)).toEqual({ available: "80.000000", reserved: "20.000000" });

      // The chain reorganises back to before that block (the treasury's USDC with it); the same
      // signed transaction lands in the new branch.
      await base.node.revert(before);
      expect(await tokenBalance(base.node, base.usdc, base.treasury)).toBe(held);
      await until(t.api.db, [send?.id as string], "confirmed", async () => {
        await pipeline.tick("BASE");
        await base.node.mine(1);
      });
    } finally {
      await pipeline.stop();
      await base.node.setAutomine(true);
    }
    expect(await tokenBalance(base.node, base.usdc, payee)).toBe(amount);
    const landed = await base.node.publicClient.getTransactionReceipt({
      hash: (
        await t.api.db.query<{ tx_hash: Hex }>(
          "SELECT a.tx_hash FROM treasury_sends s JOIN treasury_attempts a ON a.id = s.landed_attempt_id WHERE s.id = $1",
          [send?.id],
        )
      ).rows[0]?.tx_hash as Hex,
    });
    expect(landed.status).toBe("success");

    await executeTransfersOnce(t.api.db, transferTreasury);
    const done = (await t.call(a, `/v1/transfers/${transfer.id}`)).body.data;
    expect(done).toMatchObject({ status: "COMPLETED", failure_reason: null });
    // Paid once from the merchant's 20 USD: nothing came back to available.
    expect(await t.balance(a)).toEqual({ available: "80.000000", reserved: "0.000000" });
    expect(await transferStatuses(t.api.db, transfer.id)).toEqual(COMPLETED_JIT_STATUSES);
    await t.expectLedgerClean();
  }, 120_000);
});
