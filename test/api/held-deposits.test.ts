import { postDepositCredits, releaseHeldDeposit } from "@mp/ledger";
import { beforeAll, describe, expect, it } from "vitest";
import { useApiHarness } from "../support/api-harness.ts";

/** A held deposit as the merchant sees it: flagged on the deposit, in `held` of the balance, not available. */
describe("held deposits in the API", () => {
  const { api, merchant: m } = useApiHarness();
  let walletId: string;

  beforeAll(async () => {
    const post = (path: string, json: unknown, idempotencyKey: string) =>
      api.call(m.apiKey, path, { method: "POST", idempotencyKey, json });
    const customer = (await post("/v1/customers", { type: "INDIVIDUAL", first_name: "R", last_name: "R" }, "c")).body
      .data.id;
    walletId = (await post("/v1/wallets", { customer_id: customer, label: "main" }, "w")).body.data.id;
  });

  it("shows held: true and hold_status on the deposit, and the amount in the balance's held, until released", async () => {
    const depositId = await api.db.tx(async (c) => {
      const { rows } = await c.query<{ id: string }>(
        `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, to_address,
           tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations, status,
           usd_rate, amount_usd_micros, fee_usd_micros, net_amount_usd_micros, confirmed_at, hold_status, held_reason)
         SELECT gen_random_uuid(), w.merchant_id, w.id, d.id, w.customer_id, 'BASE', 'USDC', d.address,
           '0x' || md5(random()::text) || md5(random()::text), 'log:0', 1, '0xblock', 6, 12500000, 3, 'CONFIRMED',
           '1', 12500000, 0, 12500000, now(), 'HELD', 'customer_rejected'
           FROM wallets w JOIN destinations d ON d.wallet_id = w.id AND d.chain = 'BASE' WHERE w.id = $1
         RETURNING id`,
        [walletId],
      );
      const id = rows[0]?.id ?? "";
      const [posted] = await postDepositCredits(c, [
        { depositId: id, merchantId: m.merchantId, amountUsdMicros: 12_500_000n, feeUsdMicros: 0n, held: true },
      ]);
      await c.query("UPDATE deposits SET credit_entry_id = $2 WHERE id = $1", [id, posted?.entryId]);
      return id;
    });
    const deposit = async () => (await api.call(m.apiKey, `/v1/deposits?wallet_id=${walletId}`)).body.data.items[0];
    expect(await deposit()).toMatchObject({
      id: depositId,
      status: "CONFIRMED",
      held: true,
      hold_status: "HELD",
      held_reason: "customer_rejected",
    });
    expect((await api.call(m.apiKey, "/v1/balance")).body.data).toEqual({
      currency: "USD",
      available: "0.000000",
      reserved: "0.000000",
      held: "12.500000",
      pending: "0.000000",
    });

    await api.db.tx((c) => releaseHeldDeposit(c, { depositId }));
    expect(await deposit()).toMatchObject({ held: false, hold_status: "RELEASED" });
    expect((await api.call(m.apiKey, "/v1/balance")).body.data).toMatchObject({
      available: "12.500000",
      held: "0.000000",
    });
  });
});
