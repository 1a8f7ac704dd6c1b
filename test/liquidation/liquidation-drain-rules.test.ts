import { postDepositReversal } from "@mp/ledger";
import { createSandboxBankingProvider, type RateProvider } from "@mp/providers";
import { executeTransfersOnce, openTransferBeneficiary } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { usBank } from "../api/transfers-bank-support.ts";
import { PAYEE, useTransfersApi } from "../api/transfers-support.ts";
import { drainerOf, liquidationSteps } from "./drain-support.ts";

const USD = 1_000_000n;
const ADA = { type: "INDIVIDUAL", name: "Ada Lovelace" } as const;

/**
 * Issue 30's rules for drains: the travel rule carried from the address to each payout, a bound and
 * a terminal state for a drain no transfer can be made for, the product's own fee, and a deposit
 * reversed after its drain paid.
 */
describe("liquidation drains: travel rule, failures, the product's fee, reorg after payout", () => {
  const { t, a, customer } = useTransfersApi();
  const steps = () => liquidationSteps(t, a, customer.customerId);
  const toPayee = (beneficiary?: typeof ADA) => ({
    type: "CRYPTO_ADDRESS",
    network: "BASE",
    asset: "USDC",
    address: PAYEE,
    ...(beneficiary ? { beneficiary } : {}),
  });
  /** The drainer with a 50 USD travel rule threshold. */
  const drain = () => drainerOf(t.api, { travelRuleThresholdUsdMicros: 50n * USD })();
  const quoteOf = async (transferId: string) =>
    (
      await t.api.db.query<{ sealed: boolean; usd: string }>(
        `SELECT q.beneficiary_ciphertext IS NOT NULL AS sealed, q.destination_usd_micros::text AS usd
           FROM transfers tr JOIN transfer_quotes q ON q.id = tr.quote_id WHERE tr.id = $1`,
        [transferId],
      )
    ).rows[0];

  it("travel rule: the address's beneficiary, sealed, goes on each payout at or above the threshold; without one such a drain fails", async () => {
    const { create, deposit, confirm, drains } = steps();
    const named = await create(toPayee(ADA));
    expect(named.destination).toMatchObject({ type: "CRYPTO_ADDRESS", beneficiary_on_file: true });
    const stored = await t.api.db.query<{ c: Buffer }>(
      "SELECT beneficiary_ciphertext AS c FROM liquidation_addresses WHERE id = $1",
      [named.id],
    );
    expect(stored.rows[0]?.c.toString("latin1")).not.toContain("Lovelace");
    const anonymous = await create(toPayee());
    expect(anonymous.destination.beneficiary_on_file).toBe(false);

    const big = await deposit(named, 80n * USD);
    const small = await deposit(anonymous, 20n * USD);
    const refused = await deposit(anonymous, 80n * USD);
    await confirm();
    const before = await t.balance(a);
    expect(await drain()).toMatchObject({ submitted: 2, failed: 1 });

    const [paid] = await drains(named.id);
    expect(paid).toMatchObject({ deposit_id: big, state: "payment_submitted", failure_reason: null });
    expect(await quoteOf(paid?.transfer_id)).toMatchObject({ sealed: true });
    const opened = await openTransferBeneficiary(t.api.db, t.api.deps.encryption, paid?.transfer_id, "test");
    expect(opened.beneficiary).toEqual(ADA);

    const byDeposit = new Map((await drains(anonymous.id)).map((d) => [d.deposit_id, d]));
    // Below the threshold nothing is needed, and nothing kept.
    expect(byDeposit.get(small)).toMatchObject({ state: "payment_submitted" });
    expect(await quoteOf(byDeposit.get(small)?.transfer_id)).toMatchObject({ sealed: false });
    expect(byDeposit.get(refused)).toMatchObject({
      state: "failed",
      failure_reason: "beneficiary_required",
      transfer_id: null,
    });
    expect(byDeposit.get(refused)?.states.map((s: { state: string }) => s.state)).toEqual(["awaiting_funds", "failed"]);
    // The failed drain's 80 USD stays on the available balance; the two paid ones are held.
    expect(Number(before.available) - Number((await t.balance(a)).available)).toBeCloseTo(80 + 20, 6);
    expect(await drain()).toMatchObject({ submitted: 0, failed: 0, retried: 0 });
    await t.expectLedgerClean();
  });

  it("a drain that cannot be made into a transfer is tried a bounded number of times, then failed with its reason and event", async () => {
    const { create, deposit, confirm, drains } = steps();
    const address = await create(toPayee());
    const down: RateProvider = {
      name: "down",
      listRates: async () => [],
      rateFor: async () => {
        throw new Error("rates unavailable");
      },
    };
    const failing = drainerOf(t.api, { maxAttempts: 3 }, down);
    await deposit(address, 10n * USD);
    await confirm();
    const before = await t.balance(a);
    const again = () =>
      t.api.db.query("UPDATE liquidation_drains SET next_attempt_at = now() WHERE liquidation_address_id = $1", [
        address.id,
      ]);
    expect(await failing()).toMatchObject({ retried: 1, failed: 0 });
    // Not before its backoff.
    expect(await failing()).toMatchObject({ retried: 0, failed: 0 });
    await again();
    expect(await failing()).toMatchObject({ retried: 1, failed: 0 });
    await again();
    expect(await failing()).toMatchObject({ retried: 0, failed: 1 });
    const [d] = await drains(address.id);
    expect(d).toMatchObject({ state: "failed", failure_reason: "retries_exhausted", transfer_id: null });
    const events = await t.api.db.query<{ type: string }>("SELECT type FROM events WHERE object_id = $1", [d?.id]);
    expect(events.rows.map((e) => e.type)).toEqual(["liquidation_address.drain.failed"]);
    // Nothing moved: the 10 USD credited at confirmation stay available, flagged by the drain.
    expect(await t.balance(a)).toEqual(before);
    await again();
    expect(await failing()).toMatchObject({ retried: 0, failed: 0, submitted: 0 });
    await t.expectLedgerClean();
  });

  it("the product's own fee: LIQUIDATION_FEE_* by default (not the transfer fee), the merchant's liquidation override when set; exact", async () => {
    const { create, deposit, confirm, drains } = steps();
    await t.api.db.query(
      "INSERT INTO transfer_fee_overrides (merchant_id, fixed_usd_micros, basis_points) VALUES ($1, 5000000, 500)",
      [a.merchantId],
    );
    const priced = drainerOf(t.api, { feeFixedUsdMicros: 500_000n, feeBps: 20 });
    const address = await create(usBank("000333344445"));
    /** A deposit of `micros`, confirmed and drained: its drain's source, fee and paid amounts (USD). */
    const drained = async (micros: bigint) => {
      await deposit(address, micros);
      await confirm();
      expect(await priced()).toMatchObject({ submitted: 1 });
      const [d] = await drains(address.id);
      return [d?.source_amount.value, d?.fee.value, d?.destination_amount.value];
    };
    // 0.50 + 0.20% of 100.00 = 0.70; (100.00 - 0.70) at 1 less the 50 bp spread = 98.8035, down to 98.80.
    expect(await drained(100n * USD)).toEqual(["100.00", "0.70", "98.80"]);
    await t.api.db.query(
      "INSERT INTO liquidation_fee_overrides (merchant_id, fixed_usd_micros, basis_points) VALUES ($1, 0, 125)",
      [a.merchantId],
    );
    // 1.25% of 33.33 = 0.416625, up to 0.42; 32.91 * 0.995 = 32.74545, down to 32.74.
    expect(await drained(33_330_000n)).toEqual(["33.33", "0.42", "32.74"]);
    await t.expectLedgerClean();
  });

  it("a deposit reversed after its drain paid out: the drain stays paid, the merchant's balance carries the reversal", async () => {
    const { create, deposit, confirm, drains } = steps();
    const address = await create(usBank("000444455556"));
    const before = await t.balance(a);
    const id = await deposit(address, 40n * USD);
    await confirm();
    const paidOut = drainerOf(t.api);
    expect(await paidOut()).toMatchObject({ submitted: 1 });
    const bank = { banking: createSandboxBankingProvider({ payoutDelayMs: 0 }), keyring: t.api.deps.encryption };
    for (let pass = 0; (await drains(address.id))[0]?.state !== "payment_processed"; pass += 1) {
      if (pass > 10) throw new Error("the drain was never paid");
      await executeTransfersOnce(t.api.db, transferTreasury, { bank: { ...bank, returnCheckSeconds: 0 } });
      await paidOut();
    }
    const paid = await t.balance(a);
    // The reorg, as the indexer's roll-back does it: the credit reversed, the deposit REVERSED.
    await t.api.db.tx(async (sql) => {
      const reversal = await postDepositReversal(sql, { depositId: id, merchantId: a.merchantId });
      await sql.query(
        "UPDATE deposits SET status = 'REVERSED', reversed_at = now(), reversal_entry_id = $2 WHERE id = $1",
        [id, reversal?.entryId ?? null],
      );
    });
    expect(await paidOut()).toMatchObject({ canceled: 0, synced: 0 });
    const [d] = await drains(address.id);
    expect(d).toMatchObject({ state: "payment_processed" });
    const after = await t.balance(a);
    expect(Number(paid.available) - Number(after.available)).toBeCloseTo(40, 6);
    expect(Number(before.available) - Number(after.available)).toBeCloseTo(40, 6);
    await t.expectLedgerClean();
  });
});
