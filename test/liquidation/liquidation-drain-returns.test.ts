import { SANDBOX_PAYOUT_MAGIC } from "@mp/providers";
import { executeTransfersOnce, sendDepositReturn } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { usBank } from "../api/transfers-bank-support.ts";
import { useTransfersApi } from "../api/transfers-support.ts";
import { nextKey } from "../api/verification-fixtures.ts";
import { drainerOf, liquidationSteps, sandboxPayoutBank } from "./drain-support.ts";

const USD = 1_000_000n;
/** The payer's refund address named on the liquidation address. */
const RETURN_TO = "0x00000000000000000000000000000000000000cc";
const PAYEE = "0x00000000000000000000000000000000000000dd";

/**
 * Issue 30, return_address: money a drain cannot pay out goes back to the address's return_address
 * through the returns pipeline (taken back from available into returns_payable, one treasury send of
 * purpose `return` less the network fee), once; the drain moves failed -> refunded.
 */
describe("liquidation drains: a failed drain's money goes to the address's return_address", () => {
  const { t, a, customer } = useTransfersApi();
  const withReturnAddress = async (
    destination: unknown = { type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: PAYEE },
  ): Promise<{ id: string }> => {
    const res = await t.call(a, "/v1/liquidation-addresses", {
      method: "POST",
      idempotencyKey: nextKey("liq-return"),
      json: {
        customer_id: customer.customerId,
        network: "BASE",
        asset: "USDC",
        destination,
        return_address: RETURN_TO,
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string };
  };
  /** The drainer with the returns pipeline (a 1 USD network fee), `settings` over the defaults. */
  const returningDrainer = (settings: Parameters<typeof drainerOf>[1] = {}) =>
    drainerOf(t.api, { ...settings, returns: { treasury: transferTreasury, networkFeeUsdMicros: 1n * USD } });
  const returnSends = async (depositId: string) =>
    (
      await t.api.db.query<{ to_address: string; amount_raw: string; purpose: string }>(
        "SELECT to_address, amount_raw::text, purpose FROM treasury_sends WHERE idempotency_key = $1",
        [`deposit-return:${depositId}`],
      )
    ).rows;

  it("a drain refused (beneficiary required) is sent back once to return_address, less the fee; ledger clean", async () => {
    const { create, deposit, confirm, drains } = liquidationSteps(t, a, customer.customerId);
    const address = await withReturnAddress();
    const plain = await create({ type: "CRYPTO_ADDRESS", network: "BASE", asset: "USDC", address: PAYEE });
    const refused = await deposit(address, 80n * USD);
    const kept = await deposit(plain, 70n * USD);
    await confirm();
    const before = await t.balance(a);
    // A 50 USD travel rule threshold.
    const drain = returningDrainer({ travelRuleThresholdUsdMicros: 50n * USD });
    expect(await drain()).toMatchObject({ failed: 2, refunded: 1 });
    expect(await drain()).toMatchObject({ failed: 0, refunded: 0, submitted: 0 });

    const [back] = await drains(address.id);
    expect(back).toMatchObject({ deposit_id: refused, state: "refunded", failure_reason: "beneficiary_required" });
    expect(back?.states.map((s: { state: string }) => s.state)).toEqual(["awaiting_funds", "failed", "refunded"]);
    expect(back?.return).toMatchObject({ state: "sending", address: RETURN_TO, reason: null });
    expect(back?.return.amount).not.toBeNull();
    const [flagged] = await drains(plain.id);
    expect(flagged).toMatchObject({ deposit_id: kept, state: "failed", failure_reason: "beneficiary_required" });

    expect(await returnSends(refused)).toEqual([{ to_address: RETURN_TO, amount_raw: "79000000", purpose: "return" }]);
    const returned = await t.api.db.query<{ origin: string; state: string }>(
      "SELECT origin, state FROM deposit_returns WHERE deposit_id = $1",
      [refused],
    );
    expect(returned.rows).toEqual([{ origin: "liquidation", state: "sending" }]);
    // The refused deposit left the available balance (owed to its payer); the other one stays, flagged.
    expect(Number(before.available) - Number((await t.balance(a)).available)).toBeCloseTo(80, 6);
    const events = await t.api.db.query<{ type: string }>("SELECT type FROM events WHERE object_id = $1 ORDER BY seq", [
      back?.id,
    ]);
    expect(events.rows.map((e) => e.type)).toEqual([
      "liquidation_address.drain.failed",
      "liquidation_address.drain.refunded",
    ]);
    const depositEvents = await t.api.db.query<{ type: string }>(
      "SELECT type FROM events WHERE object_id = $1 AND type = 'deposit.returned'",
      [refused],
    );
    expect(depositEvents.rows).toHaveLength(1);
    await t.expectLedgerClean();
  });

  it("a drain not paid below the minimum goes back too (not_paid -> refunded); one not more than its fee stays payable, said on the drain", async () => {
    const { deposit, confirm, drains } = liquidationSteps(t, a, customer.customerId);
    const address = await withReturnAddress();
    const sent = await deposit(address, 2n * USD);
    const dust = await deposit(address, 500_000n);
    await confirm();
    const before = await t.balance(a);
    // A 5 USD product fee leaves nothing to pay out of either; the return's network fee is 1 USD.
    const drain = returningDrainer({ feeFixedUsdMicros: 5n * USD });
    expect(await drain()).toMatchObject({ notPaid: 2, refunded: 1 });
    expect(await drain()).toMatchObject({ notPaid: 0, refunded: 0, submitted: 0 });

    const byDeposit = new Map((await drains(address.id)).map((d) => [d.deposit_id, d]));
    expect(byDeposit.get(sent)).toMatchObject({
      state: "refunded",
      not_paid_reason: "below_minimum",
      transfer_id: null,
    });
    expect(byDeposit.get(sent)?.states.map((s: { state: string }) => s.state)).toEqual([
      "awaiting_funds",
      "not_paid",
      "refunded",
    ]);
    expect(await returnSends(sent)).toEqual([{ to_address: RETURN_TO, amount_raw: "1000000", purpose: "return" }]);
    // The dust is owed to its payer (returns_payable) but not more than its fee: payable, said on the drain.
    expect(byDeposit.get(dust)).toMatchObject({ state: "not_paid", not_paid_reason: "below_minimum" });
    expect(byDeposit.get(dust)?.return).toMatchObject({ state: "payable", address: RETURN_TO, amount: null });
    expect(byDeposit.get(dust)?.return.reason).toContain("not more than its network fee");
    expect(await returnSends(dust)).toEqual([]);
    const dustDrain = await t.api.db.query<{ last_error: string }>(
      "SELECT last_error FROM liquidation_drains WHERE deposit_id = $1",
      [dust],
    );
    expect(dustDrain.rows[0]?.last_error).toContain("not more than its network fee");
    const dustReturn = await t.api.db.query<{ state: string }>(
      "SELECT state FROM deposit_returns WHERE deposit_id = $1",
      [dust],
    );
    expect(dustReturn.rows).toEqual([{ state: "payable" }]);
    // Both left the available balance: 2.5 USD owed to the payer.
    expect(Number(before.available) - Number((await t.balance(a)).available)).toBeCloseTo(2.5, 6);
    // An operator sends the dust later at a lower fee (as `deposits return` does): it goes to the
    // return_address, and the next pass moves its drain to refunded.
    const later = await t.api.db.tx((c) =>
      sendDepositReturn(c, { treasury: transferTreasury }, { depositId: dust, networkFeeUsdMicros: 100_000n }),
    );
    expect(later).toMatchObject({ state: "sending", to: RETURN_TO, amountRaw: 400_000n });
    expect(await drain()).toMatchObject({ refunded: 1 });
    expect((await drains(address.id)).find((d) => d.deposit_id === dust)).toMatchObject({ state: "refunded" });
    await t.expectLedgerClean();
  });

  it("a drain whose bank payout failed goes back too (failed payout_failed -> refunded), once", async () => {
    const { deposit, confirm, drains } = liquidationSteps(t, a, customer.customerId);
    const address = await withReturnAddress(usBank(`98765${SANDBOX_PAYOUT_MAGIC.failSuffix}`));
    const id = await deposit(address, 30n * USD);
    await confirm();
    const before = await t.balance(a);
    const drain = returningDrainer();
    expect(await drain()).toMatchObject({ submitted: 1 });
    // The sandbox bank answers at once: the refused payout is FAILED within a few executor passes.
    for (let pass = 0; ; pass += 1) {
      await executeTransfersOnce(t.api.db, transferTreasury, { bank: sandboxPayoutBank(t.api, 0, () => new Date()) });
      const done = await drain();
      if (done.refunded === 1) break;
      if (pass > 10) throw new Error(`drain never refunded: ${JSON.stringify(await drains(address.id))}`);
    }
    expect(await drain()).toMatchObject({ refunded: 0, synced: 0 });
    const [d] = await drains(address.id);
    expect(d).toMatchObject({ deposit_id: id, state: "refunded", failure_reason: "payout_failed" });
    expect(d?.states.map((s: { state: string }) => s.state)).toEqual([
      "awaiting_funds",
      "payment_submitted",
      "failed",
      "refunded",
    ]);
    expect(await returnSends(id)).toEqual([{ to_address: RETURN_TO, amount_raw: "29000000", purpose: "return" }]);
    // The failure released the hold to available; the return took the deposit's 30 USD from there.
    expect(Number(before.available) - Number((await t.balance(a)).available)).toBeCloseTo(30, 6);
    await t.expectLedgerClean();
  });
});
