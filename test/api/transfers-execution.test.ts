import { executeTransfersOnce } from "@mp/transfers";
import { beforeAll, describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { COMPLETED_JIT_STATUSES, PAYEE, transferStatuses, useTransfersApi } from "./transfers-support.ts";

/**
 * Execution of FUNDED crypto transfers through the treasury's send requests. The signer's pipeline
 * (tested in packages/treasury) is not running here: the test ends each send the way the pipeline
 * records it (treasury_sends.state confirmed or failed) and checks what the transfer does then.
 */
describe("transfers: execution through the treasury", () => {
  const { t, a, customer } = useTransfersApi();
  beforeAll(async () => {
    await t.api.db.query(
      "INSERT INTO transfer_fee_overrides (merchant_id, fixed_usd_micros, basis_points) VALUES ($1, 1000000, 0)",
      [a.merchantId],
    );
  });

  const send = async (transferId: string) =>
    (
      await t.api.db.query<{ id: string; chain: string; asset: string; to_address: string; amount_raw: string }>(
        "SELECT id, chain, asset, to_address, amount_raw::text AS amount_raw FROM treasury_sends WHERE idempotency_key = $1 AND purpose = 'transfer'",
        [transferId],
      )
    ).rows;

  it("FUNDED -> one treasury send and PROCESSING -> COMPLETED when it confirms: holds settled, fee earned", async () => {
    await t.credit(a, customer.virtualAccountId, "200");
    const quote = await t.quote(a, customer.customerId, { source: { method: "BALANCE" } });
    const transfer = (await t.transfer(a, quote.id)).body.data;
    expect(transfer.status).toBe("FUNDED");
    expect(transfer.fee.value).toBe("1.00");

    expect(await executeTransfersOnce(t.api.db, transferTreasury)).toMatchObject({ started: 1 });
    // Again: nothing more is sent.
    expect(await executeTransfersOnce(t.api.db, transferTreasury)).toMatchObject({ started: 0, finished: 0 });
    const sends = await send(transfer.id);
    expect(sends).toEqual([
      // 99.00 USD net at 0.995 = 98.505 USDC
      { id: expect.any(String), chain: "BASE", asset: "USDC", to_address: PAYEE, amount_raw: "98505000" },
    ]);
    expect((await t.call(a, `/v1/transfers/${transfer.id}`)).body.data.status).toBe("PROCESSING");
    const cancel = await t.cancel(a, transfer.id);
    expect(cancel.status).toBe(409);

    await t.api.db.query("UPDATE treasury_sends SET state = 'confirmed', confirmed_at = now() WHERE id = $1", [
      sends[0]?.id,
    ]);
    expect(await executeTransfersOnce(t.api.db, transferTreasury)).toMatchObject({ started: 0, finished: 1 });
    expect((await t.call(a, `/v1/transfers/${transfer.id}`)).body.data.status).toBe("COMPLETED");
    expect(await t.balance(a)).toEqual({ available: "100.000000", reserved: "0.000000" });
    const fee = await t.api.db.query("SELECT 1 FROM journal_entries WHERE kind = 'transfer_fee' AND reference = $1", [
      transfer.id,
    ]);
    expect(fee.rowCount).toBe(1);
    expect(await transferStatuses(t.api.db, transfer.id)).toEqual(COMPLETED_JIT_STATUSES);
    await t.expectLedgerClean();
  });

  it("a bank-funded transfer whose send fails ends FAILED with its holds released to available", async () => {
    const before = await t.balance(a);
    const transfer = (await t.transfer(a, (await t.quote(a, customer.customerId)).id)).body.data;
    const { reference } = (await t.call(a, `/v1/transfers/${transfer.id}/funding`)).body.data.intent.bank_transfer;
    await t.credit(a, customer.virtualAccountId, "60", reference);
    await t.credit(a, customer.virtualAccountId, "40", reference);
    expect(await executeTransfersOnce(t.api.db, transferTreasury)).toMatchObject({ started: 1 });
    const [sent] = await send(transfer.id);
    await t.api.db.query("UPDATE treasury_sends SET state = 'failed', reason = 'test' WHERE id = $1", [sent?.id]);
    expect(await executeTransfersOnce(t.api.db, transferTreasury)).toMatchObject({ started: 0, finished: 1 });
    expect((await t.call(a, `/v1/transfers/${transfer.id}`)).body.data.status).toBe("FAILED");
    // The customer's 100 USD is in the merchant's available balance, nothing reserved, nothing lost.
    expect(await t.balance(a)).toEqual({
      available: (Number(before.available) + 100).toFixed(6),
      reserved: before.reserved,
    });
    await t.expectLedgerClean();
  });
});
