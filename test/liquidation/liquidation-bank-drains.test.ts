import { executeTransfersOnce } from "@mp/transfers";
import { beforeAll, describe, expect, it } from "vitest";
import { transferTreasury } from "../../services/payments/src/transfer-treasury.ts";
import { usBank } from "../api/transfers-bank-support.ts";
import { useTransfersApi } from "../api/transfers-support.ts";
import { nextKey } from "../api/verification-fixtures.ts";
import { drainerOf, expectThreeBankDrainsPaid, liquidationSteps, sandboxPayoutBank } from "./drain-support.ts";

/** The sandbox bank's payouts complete after PAYOUT_DELAY_MS of its clock, which the test moves. */
const PAYOUT_DELAY_MS = 60_000;
let skew = 0;

describe("liquidation addresses: deposits drained to a US bank account (sandbox bank)", () => {
  const { t, a, customer } = useTransfersApi();
  const bank = () => sandboxPayoutBank(t.api, PAYOUT_DELAY_MS, () => new Date(Date.now() + skew));
  const drain = () => drainerOf(t.api)();
  const steps = () => liquidationSteps(t, a, customer.customerId);
  const create = (destination: unknown) => steps().create(destination);
  const deposit = (address: { id: string }, micros: bigint) => steps().deposit(address, micros);
  const confirm = () => steps().confirm();
  const drains = (addressId: string) => steps().drains(addressId);

  beforeAll(async () => {
    // The merchant's liquidation fee: 0.25 USD + 1% (its override); the deposit fee would be 1% too, never taken on drains.
    await t.api.db.query(
      "INSERT INTO liquidation_fee_overrides (merchant_id, fixed_usd_micros, basis_points) VALUES ($1, 250000, 100)",
      [a.merchantId],
    );
    await t.api.db.query("UPDATE merchants SET fee_bps = 100 WHERE id = $1", [a.merchantId]);
  });

  it("three USDC deposits become three drains paid to the bank at exact amounts (rate, spread, fee)", async () => {
    expect(t.api.deps.transfers.spreadBps).toBe(50);
    const address = await create(usBank("000123456789"));
    expect(address).toMatchObject({
      network: "BASE",
      asset: "USDC",
      status: "active",
      destination: { type: "US_BANK_ACCOUNT", bank_account: { account_number: "****6789" } },
    });
    const again = await t.call(a, `/v1/liquidation-addresses/${address.id}`);
    expect(again.body.data).toEqual(address);
    const before = await t.balance(a);

    const ids = [
      await deposit(address, 100_000_000n),
      await deposit(address, 25_500_000n),
      await deposit(address, 10_123_456n),
    ];
    const seen = await drains(address.id);
    expect(seen.map((d) => d.state)).toEqual(["awaiting_funds", "awaiting_funds", "awaiting_funds"]);
    // Not confirmed: nothing moves.
    expect(await drain()).toMatchObject({ submitted: 0 });

    await confirm();
    const fees = await t.api.db.query<{ fee: string }>(
      "SELECT fee_usd_micros::text AS fee FROM deposits WHERE id = ANY($1::uuid[])",
      [ids],
    );
    expect(fees.rows.map((r) => r.fee)).toEqual(["0", "0", "0"]);
    expect(await drain()).toMatchObject({ submitted: 3 });
    // A second pass (a second worker, a crash and a restart) drains nothing again.
    expect(await drain()).toMatchObject({ submitted: 0, notPaid: 0 });

    for (let pass = 0; ; pass += 1) {
      await executeTransfersOnce(t.api.db, transferTreasury, { bank: bank() });
      skew += PAYOUT_DELAY_MS / 2;
      await drain();
      const states = (await drains(address.id)).map((d) => d.state);
      if (states.every((s) => s === "payment_processed")) break;
      if (pass > 10) throw new Error(`drains never all paid: ${states.join(", ")}`);
    }

    const byDeposit = await expectThreeBankDrainsPaid(t, a, {
      addressId: address.id,
      drains: await drains(address.id),
      depositIds: ids,
      before,
    });
    for (const d of byDeposit.values()) {
      expect(d.states.map((s: { state: string }) => s.state)).toEqual([
        "awaiting_funds",
        "payment_submitted",
        "payment_processed",
      ]);
    }
    const events = await t.api.db.query<{ type: string }>(
      "SELECT type FROM events WHERE object_type = 'liquidation_drain' AND object_id = ANY($1::text[])",
      [[...byDeposit.values()].map((d) => d.id)],
    );
    expect(events.rows.filter((e) => e.type === "liquidation_address.drain.payment_processed")).toHaveLength(3);
    await t.expectLedgerClean();
  });

  it("a deposit below the minimum is not paid, said so, and stays on the balance; after disable deposits are ordinary", async () => {
    const address = await create(usBank("000555566667"));
    const before = await t.balance(a);
    await deposit(address, 200_000n); // 0.20 USDC: less than the 0.25 fee
    await confirm();
    expect(await drain()).toMatchObject({ notPaid: 1, submitted: 0 });
    const [small] = await drains(address.id);
    expect(small).toMatchObject({ state: "not_paid", not_paid_reason: "below_minimum", transfer_id: null });
    expect(Number((await t.balance(a)).available) - Number(before.available)).toBeCloseTo(0.2, 6);

    const disabled = await t.call(a, `/v1/liquidation-addresses/${address.id}/disable`, {
      method: "POST",
      idempotencyKey: nextKey("disable"),
    });
    expect(disabled.status, disabled.text).toBe(200);
    expect(disabled.body.data.status).toBe("disabled");
    const twice = await t.call(a, `/v1/liquidation-addresses/${address.id}/disable`, {
      method: "POST",
      idempotencyKey: nextKey("disable"),
    });
    expect(twice.status).toBe(409);
    const later = await deposit(address, 50_000_000n);
    await confirm();
    await drain();
    expect(await drains(address.id)).toHaveLength(1);
    const fee = await t.api.db.query<{ fee: string }>(
      "SELECT fee_usd_micros::text AS fee FROM deposits WHERE id = $1",
      [later],
    );
    expect(fee.rows[0]?.fee).toBe("500000");
    const list = await t.call(a, "/v1/liquidation-addresses?status=disabled");
    expect(list.body.data.items.map((x: { id: string }) => x.id)).toContain(address.id);
    await t.expectLedgerClean();
  });

  it("several workers at once drain each deposit once: one transfer per deposit, no second hold", async () => {
    const address = await create(usBank("000999900001"));
    const ids: string[] = [];
    for (let i = 0; i < 8; i += 1) ids.push(await deposit(address, 3_000_000n + BigInt(i) * 10_000n));
    await confirm();
    const before = await t.balance(a);
    const passes = await Promise.all([drain(), drain(), drain(), drain()]);
    let submitted = passes.reduce((n, p) => n + p.submitted, 0);
    // A drain another worker held (SKIP LOCKED) is taken by a later pass, never twice.
    for (let pass = 0; submitted < ids.length && pass < 10; pass += 1) submitted += (await drain()).submitted;
    expect(submitted).toBe(ids.length);
    const transfers = await t.api.db.query<{ deposit_id: string; n: string }>(
      `SELECT ld.deposit_id, count(t.id) AS n FROM liquidation_drains ld JOIN transfers t ON t.id = ld.transfer_id
        WHERE ld.deposit_id = ANY($1::uuid[]) GROUP BY ld.deposit_id`,
      [ids],
    );
    expect(transfers.rows.map((r) => r.n)).toEqual(ids.map(() => "1"));
    // 3.00 .. 3.07 USD held, once each.
    const held = ids.reduce((n, _, i) => n + 3 + i * 0.01, 0);
    expect(Number(before.available) - Number((await t.balance(a)).available)).toBeCloseTo(held, 6);
    await t.expectLedgerClean();
  });

  it("a deposit reversed by a reorg before its payout cancels its drain", async () => {
    const address = await create(usBank("000777788889"));
    const id = await deposit(address, 5_000_000n);
    await t.api.db.query("UPDATE deposits SET status = 'REVERSED', reversed_at = now() WHERE id = $1", [id]);
    expect(await drain()).toMatchObject({ canceled: 1 });
    const [d] = await drains(address.id);
    expect(d).toMatchObject({ state: "canceled", transfer_id: null });
  });
});
