import { openTransferBeneficiary, transferBeneficiaryJson } from "@mp/transfers";
import { describe, expect, it } from "vitest";
import { usBank } from "./transfers-bank-support.ts";
import { PAYEE, useTransfersApi } from "./transfers-support.ts";

/**
 * Issue 29 item 5, travel rule: a payout to a crypto address worth TRAVEL_RULE_THRESHOLD_USD (3,000
 * USD by default, valued as the quote values the payout) or more needs its beneficiary; without it
 * the quote is 422 beneficiary_required. The data is sealed on the quote, opened for operators only
 * (each reading audited) and not kept below the threshold. Every answer is checked against /openapi.json.
 */
describe("transfers: travel rule data", () => {
  const { t, a, customer } = useTransfersApi();
  const person = { type: "INDIVIDUAL", name: "Ada Lovelace" };
  const business = { type: "BUSINESS", name: "Acme", legal_name: "Acme Widgets GmbH", country: "DE" };

  const quoteTo = (amount: string, beneficiary?: unknown) =>
    t.requestQuote(a, customer.customerId, {
      source: { method: "BANK_TRANSFER" },
      destination: {
        type: "CRYPTO_ADDRESS",
        asset: "USDC",
        network: "BASE",
        address: PAYEE,
        ...(beneficiary ? { beneficiary } : {}),
      },
      destination_amount: amount,
    });

  const sealedOf = async (quoteId: string) =>
    (
      await t.api.db.query<{ ciphertext: Buffer | null; usd: string | null }>(
        "SELECT beneficiary_ciphertext AS ciphertext, destination_usd_micros::text AS usd FROM transfer_quotes WHERE id = $1",
        [quoteId],
      )
    ).rows[0];

  it("refuses a 5,000 USD crypto payout without its beneficiary: 422 beneficiary_required, nothing stored", async () => {
    const before = await t.api.db.query("SELECT count(*)::int AS n FROM transfer_quotes");
    const refused = await quoteTo("5000");
    expect(refused.status, refused.text).toBe(422);
    expect(refused.body).toEqual({
      status: "error",
      error: "beneficiary_required",
      message: expect.stringMatching(/^destination\.beneficiary: a payout worth 3000\.00 USD or more/),
      data: {},
    });
    // Exactly the threshold counts; a business without its legal name and country is a 400.
    expect((await quoteTo("3000")).status).toBe(422);
    const incomplete = await quoteTo("5000", { type: "BUSINESS", name: "Acme" });
    expect(incomplete.status, incomplete.text).toBe(400);
    expect(incomplete.body.error).toBe("validation_error");
    const badCountry = await quoteTo("5000", { ...business, country: "Germany" });
    expect(badCountry.status, badCountry.text).toBe(400);
    const after = await t.api.db.query("SELECT count(*)::int AS n FROM transfer_quotes");
    expect(after.rows).toEqual(before.rows);
  });

  it("seals the beneficiary at or above the threshold and opens it for operators only, audited", async () => {
    for (const beneficiary of [person, business]) {
      const quoted = await quoteTo("5000", beneficiary);
      expect(quoted.status, quoted.text).toBe(201);
      const quote = quoted.body.data;
      expect(quote.destination.beneficiary_on_file).toBe(true);
      // The merchant's answers never carry the data back.
      expect(quoted.text).not.toContain(beneficiary.name);
      const stored = await sealedOf(quote.id);
      expect(stored?.usd).toBe("5000000000");
      expect(stored?.ciphertext).toBeInstanceOf(Buffer);
      expect(stored?.ciphertext?.toString("latin1")).not.toContain(beneficiary.name);

      const created = await t.transfer(a, quote.id);
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.destination.beneficiary_on_file).toBe(true);
      const read = await t.call(a, `/v1/transfers/${created.body.data.id}`);
      expect(read.text).not.toContain(beneficiary.name);

      const view = await openTransferBeneficiary(t.api.db, t.api.deps.encryption, created.body.data.id, "ops-ada");
      expect(transferBeneficiaryJson(view)).toEqual({
        transfer_id: created.body.data.id,
        merchant_id: a.merchantId,
        destination_usd: "5000.00",
        beneficiary,
      });
      const audit = await t.api.db.query(
        "SELECT actor, action, object_type FROM operator_audit_log WHERE object_id = $1",
        [created.body.data.id],
      );
      expect(audit.rows).toEqual([
        { actor: "ops-ada", action: "transfer.beneficiary_viewed", object_type: "transfer" },
      ]);
    }
  });

  it("keeps nothing below the threshold, requires nothing of a bank payout, and follows TRAVEL_RULE_THRESHOLD_USD", async () => {
    const small = await quoteTo("2999.99", person);
    expect(small.status, small.text).toBe(201);
    expect(small.body.data.destination.beneficiary_on_file).toBe(false);
    expect((await sealedOf(small.body.data.id))?.ciphertext).toBeNull();
    const transfer = await t.transfer(a, small.body.data.id);
    const view = await openTransferBeneficiary(t.api.db, t.api.deps.encryption, transfer.body.data.id, "ops-ada");
    expect(view.beneficiary).toBeNull();

    // A bank payout (from the merchant's balance) needs no travel rule data.
    const bank = await t.requestQuote(a, customer.customerId, {
      source: { method: "BALANCE" },
      destination: { ...usBank("123456789"), account_holder_name: "Ada Lovelace" },
      destination_amount: "5000",
    });
    expect(bank.status, bank.text).toBe(201);
    expect(bank.body.data.destination.beneficiary_on_file).toBe(false);

    const saved = t.api.deps.transfers;
    t.api.deps.transfers = { ...saved, travelRuleThresholdUsdMicros: 1_000_000_000n };
    try {
      const refused = await quoteTo("1000");
      expect(refused.status, refused.text).toBe(422);
      expect(refused.body.message).toContain("1000.00 USD");
      expect((await quoteTo("999.99")).status).toBe(201);
    } finally {
      t.api.deps.transfers = saved;
    }
  });
});
