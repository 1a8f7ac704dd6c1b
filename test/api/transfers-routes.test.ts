import { expireDueTransfers } from "@mp/transfers";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestMerchant } from "../support/api-harness.ts";
import { expectBankFundingShape, PAYEE, useTransfersApi } from "./transfers-support.ts";
import { createCustomer, nextKey } from "./verification-fixtures.ts";

describe("transfers: quotes, transfers, bank funding just in time", () => {
  const { t, a, customer } = useTransfersApi();
  /** Another merchant: none of `a`'s transfers is visible to it. */
  let b: TestMerchant;
  beforeAll(async () => {
    b = await t.api.merchant();
  });

  const funding = async (m: TestMerchant, id: string) => (await t.call(m, `/v1/transfers/${id}/funding`)).body.data;

  it("quotes bank USD -> USDC on BASE exactly: spread off the rate, fee, amounts, expiry; replays the same quote", async () => {
    const key = nextKey("quote");
    const json = {
      customer_id: customer.customerId,
      source: { method: "BANK_TRANSFER" },
      destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE },
      destination_amount: "50",
    };
    const res = await t.call(a, "/v1/quotes", { method: "POST", idempotencyKey: key, json });
    expect(res.status, res.text).toBe(201);
    const quote = res.body.data;
    expect(quote).toMatchObject({
      customer_id: customer.customerId,
      source: { method: "BANK_TRANSFER", asset: "USD", network: "ACH" },
      destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE, bank_account: null },
      rate: { base_currency: "USD", quote_currency: "USDC", value: "0.995" },
      destination_amount: { asset: "USDC", currency: "USDC", network: "BASE", value: "50" },
      fee: { asset: "USD", currency: "USD", network: "ACH", value: "0.00" },
      used: false,
    });
    // 50 / 0.995 = 50.2512... -> 50.26 USD (rounded up to the cent, the service's way).
    expect(quote.source_amount).toEqual({ asset: "USD", currency: "USD", network: "ACH", value: "50.26" });
    const ttl = Date.parse(quote.expires_at) - Date.parse(quote.created_at);
    expect(ttl).toBe(300_000);
    const replay = await t.call(a, "/v1/quotes", { method: "POST", idempotencyKey: key, json });
    expect(replay.body.data.id).toBe(quote.id);
    expect((await t.call(a, `/v1/quotes/${quote.id}`)).body.data).toEqual(quote);
    expect((await t.call(b, `/v1/quotes/${quote.id}`)).status).toBe(404);
  });

  it("refuses bad quote requests (400 naming the field) and customers below the KYC gate (422)", async () => {
    const base = {
      customer_id: customer.customerId,
      source: { method: "BANK_TRANSFER" },
      destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address: PAYEE },
      source_amount: "100.00",
    };
    const bad: Array<[Record<string, unknown>, string]> = [
      [{ ...base, destination: { ...base.destination, address: "0x1234" } }, "destination.address"],
      [{ ...base, destination: { ...base.destination, asset: "DOGE" } }, "destination.asset"],
      [{ ...base, destination: { ...base.destination, network: "TRON" } }, "destination.network"],
      [{ ...base, destination_amount: "5" }, "source_amount"],
      [{ ...base, source_amount: "100.001" }, "amount"],
      [{ ...base, source_amount: "0.00" }, "amount"],
      [{ ...base, source: { method: "CRYPTO_DEPOSIT", asset: "USDT", network: "TRON" } }, "source.network"],
      [{ ...base, source: { method: "CRYPTO_DEPOSIT", asset: "DOGE", network: "BASE" } }, "source.asset"],
    ];
    for (const [json, field] of bad) {
      const res = await t.call(a, "/v1/quotes", { method: "POST", idempotencyKey: nextKey("q"), json });
      expect(res.status, `${field}: ${res.text}`).toBe(400);
      expect(res.body.message).toContain(field);
    }
    const unverified = await createCustomer(t.api, a);
    const refused = await t.call(a, "/v1/quotes", {
      method: "POST",
      idempotencyKey: nextKey("q"),
      json: { ...base, customer_id: unverified },
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toBe("customer_not_verified");
    // Tier 1 is enough for a merchant-funded crypto payout, not for bank funding.
    await t.api.db.query("UPDATE customers SET tier_1_complete = true, status = 'APPROVED' WHERE id = $1", [
      unverified,
    ]);
    const tier1Bank = await t.call(a, "/v1/quotes", {
      method: "POST",
      idempotencyKey: nextKey("q"),
      json: { ...base, customer_id: unverified },
    });
    expect(tier1Bank.status).toBe(422);
    await t.quote(a, unverified, { source: { method: "BALANCE" } });
    // Another merchant's customer is not found.
    const foreign = await t.call(b, "/v1/quotes", { method: "POST", idempotencyKey: nextKey("q"), json: base });
    expect(foreign.status).toBe(404);
  });

  it("creates a transfer from a quote once; the funding answer has exactly the fields of spec 2.9", async () => {
    const quote = await t.quote(a, customer.customerId);
    const created = await t.transfer(a, quote.id, "transfer-once");
    expect(created.status, created.text).toBe(201);
    const transfer = created.body.data;
    expect(transfer).toMatchObject({
      quote_id: quote.id,
      status: "AWAITING_MERCHANT_FUNDING",
      funding_mode: "TRANSFER_JIT",
    });
    expect((await t.transfer(a, quote.id, "transfer-once")).body.data.id).toBe(transfer.id);
    const reused = await t.transfer(a, quote.id);
    expect(reused.status).toBe(409);
    expect(reused.body.error).toBe("conflict");
    expect((await t.call(a, `/v1/quotes/${quote.id}`)).body.data.used).toBe(true);

    const f = await funding(a, transfer.id);
    expectBankFundingShape(f);
    expect(f).toMatchObject({
      transfer_id: transfer.id,
      transfer_status: "AWAITING_MERCHANT_FUNDING",
      customer_id: customer.customerId,
      funding: {
        mode: "TRANSFER_JIT",
        method: "BANK_TRANSFER",
        payer: { type: "CUSTOMER", customer_id: customer.customerId },
        rate: { base_currency: "USD", quote_currency: "USDC", value: "0.995" },
        required_amount: { asset: "USD", currency: "USD", network: "ACH", value: "100.00" },
        fee: { asset: "USD", currency: "USD", network: "ACH", value: "0.00" },
      },
      intent: {
        status: "PENDING",
        purpose: "TRANSFER_JIT",
        method: "BANK_TRANSFER",
        reusable: false,
        crypto_deposit: null,
        flag: null,
      },
    });
    expect(f.funding.expires_at).toBe(transfer.expires_at);

    for (const path of [`/v1/transfers/${transfer.id}`, `/v1/transfers/${transfer.id}/funding`]) {
      expect((await t.call(b, path)).status, path).toBe(404);
    }
    const foreignCancel = await t.cancel(b, transfer.id);
    expect(foreignCancel.status).toBe(404);
    expect((await t.transfer(b, quote.id)).status).toBe(404);
  });

  it("refuses an expired quote with 409 quote_expired", async () => {
    const saved = t.api.deps.transfers;
    t.api.deps.transfers = { ...saved, quoteTtlSeconds: 1 };
    const quote = await t.quote(a, customer.customerId).finally(() => {
      t.api.deps.transfers = saved;
    });
    await new Promise((r) => setTimeout(r, 1_200));
    const res = await t.transfer(a, quote.id);
    expect(res.status).toBe(409);
    expect(res.body.error).toBe("quote_expired");
    expect((await t.call(a, `/v1/quotes/${quote.id}`)).body.data.used).toBe(false);
  });

  it("funds by bank credits naming the reference: short stays PENDING flagged, enough funds it, excess and late money go to available", async () => {
    const before = await t.balance(a);
    const quote = await t.quote(a, customer.customerId);
    const transfer = (await t.transfer(a, quote.id)).body.data;
    const { reference } = (await funding(a, transfer.id)).intent.bank_transfer;

    expect((await t.credit(a, customer.virtualAccountId, "40", reference.toLowerCase())).status).toBe(201);
    let f = await funding(a, transfer.id);
    expect(f.transfer_status).toBe("AWAITING_MERCHANT_FUNDING");
    expect(f.intent.status).toBe("PENDING");
    expect(f.intent.flag).toEqual({
      code: "AMOUNT_MISMATCH",
      message: "Received 40.00 USD of 100.00 USD; 60.00 USD still due",
    });
    expect(await t.balance(a)).toEqual({ available: before.available, reserved: addUsd(before.reserved, "40") });

    // The same credit sent again with its idempotency key is one credit.
    const key = nextKey("credit");
    await t.credit(a, customer.virtualAccountId, "70", reference, key);
    await t.credit(a, customer.virtualAccountId, "70", reference, key);
    f = await funding(a, transfer.id);
    expect(f.transfer_status).toBe("FUNDED");
    expect(f.intent.status).toBe("FUNDED");
    expect(f.intent.flag.code).toBe("AMOUNT_MISMATCH");
    expect(f.intent.flag.message).toContain("the excess 10.00 USD");
    expect(await t.balance(a)).toEqual({
      available: addUsd(before.available, "10"),
      reserved: addUsd(before.reserved, "100"),
    });

    // Late: the intent is funded; the money is the merchant's, flagged, with an event.
    await t.credit(a, customer.virtualAccountId, "5", reference);
    f = await funding(a, transfer.id);
    expect(f.intent.flag).toEqual({
      code: "LATE_PAYMENT",
      message:
        "A payment of 5.00 USD arrived after the intent was FUNDED; it was added to the merchant's available balance",
    });
    expect((await t.balance(a)).available).toBe(addUsd(before.available, "15"));
    const events = await t.call(a, `/v1/events?object_id=${transfer.id}&limit=200`);
    expect(events.body.data.items.map((e: { type: string }) => e.type).reverse()).toEqual([
      "transfer.created",
      "transfer.funding_received",
      "transfer.funded",
      "transfer.late_funding",
    ]);
    const history = await t.api.db.query<{ from_status: string | null; to_status: string }>(
      "SELECT from_status, to_status FROM transfer_transitions WHERE object_id = $1 ORDER BY id",
      [transfer.id],
    );
    expect(history.rows.map((r) => r.to_status)).toEqual(["AWAITING_MERCHANT_FUNDING", "FUNDED"]);
    const cancel = await t.cancel(a, transfer.id);
    expect(cancel.status).toBe(409);
    await t.expectLedgerClean();
  });

  it("cancels before funds arrive: the partial payment goes back to available; a later credit is late", async () => {
    const before = await t.balance(a);
    const transfer = (await t.transfer(a, (await t.quote(a, customer.customerId)).id)).body.data;
    const { reference } = (await funding(a, transfer.id)).intent.bank_transfer;
    await t.credit(a, customer.virtualAccountId, "25.50", reference);
    const canceled = await t.cancel(a, transfer.id);
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body.data.status).toBe("CANCELED");
    const f = await funding(a, transfer.id);
    expect(f.intent.status).toBe("CANCELED");
    expect(f.intent.flag.message).toContain("Received 25.50 USD of 100.00 USD before the intent was CANCELED");
    expect(await t.balance(a)).toEqual({ available: addUsd(before.available, "25.5"), reserved: before.reserved });
    await t.credit(a, customer.virtualAccountId, "74.50", reference);
    expect((await funding(a, transfer.id)).intent.flag.code).toBe("LATE_PAYMENT");
    expect((await t.balance(a)).available).toBe(addUsd(before.available, "100"));
    const again = await t.cancel(a, transfer.id);
    expect(again.status).toBe(409);
    await t.expectLedgerClean();
  });

  it("expires an unfunded transfer (never funded at the stale rate): what arrives later goes to available", async () => {
    const saved = t.api.deps.transfers;
    t.api.deps.transfers = { ...saved, fundingTtlSeconds: 1 };
    const transfer = await t.transfer(a, (await t.quote(a, customer.customerId)).id).finally(() => {
      t.api.deps.transfers = saved;
    });
    const { reference } = (await funding(a, transfer.body.data.id)).intent.bank_transfer;
    await new Promise((r) => setTimeout(r, 1_200));
    const before = await t.balance(a);
    await t.credit(a, customer.virtualAccountId, "100", reference);
    const f = await funding(a, transfer.body.data.id);
    expect(f.transfer_status).toBe("EXPIRED");
    expect(f.intent.status).toBe("EXPIRED");
    expect(f.intent.flag.code).toBe("LATE_PAYMENT");
    expect(await t.balance(a)).toEqual({ available: addUsd(before.available, "100"), reserved: before.reserved });

    // Shown expired by reads too, with no credit at all; reads write nothing: the executor's pass records it.
    t.api.deps.transfers = { ...saved, fundingTtlSeconds: 1 };
    const idle = await t.transfer(a, (await t.quote(a, customer.customerId)).id).finally(() => {
      t.api.deps.transfers = saved;
    });
    await new Promise((r) => setTimeout(r, 1_200));
    const idleId = idle.body.data.id;
    expect((await t.call(a, `/v1/transfers/${idleId}`)).body.data.status).toBe("EXPIRED");
    expect(
      (await t.call(a, "/v1/transfers?status=EXPIRED&limit=200")).body.data.items.map((x: { id: string }) => x.id),
    ).toContain(idleId);
    expect((await funding(a, idleId)).intent.status).toBe("EXPIRED");
    const stored = () =>
      t.api.db
        .query<{ status: string }>("SELECT status FROM transfers WHERE id = $1", [idleId])
        .then((r) => r.rows[0]?.status);
    expect(await stored()).toBe("AWAITING_MERCHANT_FUNDING");
    // The transfer executor's first step (executeTransfersOnce), alone: the suite's FUNDED transfers stay so.
    expect(await expireDueTransfers(t.api.db, 100)).toBeGreaterThanOrEqual(1);
    expect(await stored()).toBe("EXPIRED");
    expect((await t.call(a, `/v1/transfers/${idleId}`)).body.data.status).toBe("EXPIRED");
    await t.expectLedgerClean();
  });

  it("BALANCE: holds the merchant's available USD at once (422 insufficient_funds when short); cancel releases it", async () => {
    const poor = await t.api.merchant();
    const poorCustomer = await t.bankCustomer(poor);
    const quote = await t.quote(poor, poorCustomer.customerId, { source: { method: "BALANCE" } });
    expect(quote.source).toEqual({ method: "BALANCE", asset: "USD", network: "LEDGER" });
    const short = await t.transfer(poor, quote.id);
    expect(short.status).toBe(422);
    expect(short.body.error).toBe("insufficient_funds");
    expect((await t.call(poor, `/v1/quotes/${quote.id}`)).body.data.used).toBe(false);

    await t.credit(poor, poorCustomer.virtualAccountId, "150");
    const created = await t.transfer(poor, quote.id);
    expect(created.status, created.text).toBe(201);
    expect(created.body.data).toMatchObject({ status: "FUNDED", funding_mode: "BALANCE" });
    expect(await t.balance(poor)).toEqual({ available: "50.000000", reserved: "100.000000" });
    const f = await funding(poor, created.body.data.id);
    expect(f.funding).toMatchObject({
      mode: "BALANCE",
      method: "BALANCE",
      payer: { type: "MERCHANT", customer_id: null },
    });
    expect(f.intent).toMatchObject({ status: "FUNDED", bank_transfer: null, crypto_deposit: null });

    const canceled = await t.cancel(poor, created.body.data.id);
    expect(canceled.body.data.status).toBe("CANCELED");
    expect(await t.balance(poor)).toEqual({ available: "150.000000", reserved: "0.000000" });
    await t.expectLedgerClean();
  });

  it("lists transfers newest first with filters; refuses bad filters", async () => {
    const all = await t.call(a, "/v1/transfers?limit=200");
    expect(all.status).toBe(200);
    expect(all.body.data.total).toBeGreaterThanOrEqual(5);
    const funded = await t.call(a, "/v1/transfers?status=FUNDED");
    expect(funded.body.data.items.every((x: { status: string }) => x.status === "FUNDED")).toBe(true);
    expect(funded.body.data.total).toBeGreaterThanOrEqual(1);
    const mine = await t.call(a, `/v1/transfers?customer_id=${customer.customerId}&created_from=2020-01-01T00:00:00Z`);
    expect(mine.body.data.total).toBe(all.body.data.total);
    expect((await t.call(a, "/v1/transfers?created_to=2020-01-01T00:00:00Z")).body.data.total).toBe(0);
    expect((await t.call(b, "/v1/transfers")).body.data.total).toBe(0);
    await t.api.expectQueriesRefused(a.apiKey, "/v1/transfers", [
      "status=DONE",
      "customer_id=x",
      "created_from=yesterday",
    ]);
  });
});

/** a + b, both decimal USD strings, as the balance shows it (6 digits). */
function addUsd(a: string, b: string): string {
  const micros = (v: string) => {
    const [whole = "0", fraction = ""] = v.split(".");
    return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
  };
  const sum = micros(a) + micros(b);
  return `${sum / 1_000_000n}.${(sum % 1_000_000n).toString().padStart(6, "0")}`;
}
