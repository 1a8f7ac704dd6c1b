import { describe, expect, it } from "vitest";
import { useTransfersApi } from "./transfers-support.ts";
import { nextKey } from "./verification-fixtures.ts";

describe("transfers under concurrency", () => {
  const { t, a, customer } = useTransfersApi();

  it("20 concurrent identical POST /v1/transfers make one transfer and give every caller the same answer", async () => {
    const quote = await t.quote(a, customer.customerId);
    const key = nextKey("transfer");
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.transfer(a, quote.id, key)));
    // The first claims the key; the others wait for its commit and replay its answer.
    for (const r of answers) expect(r.status, r.text).toBe(201);
    expect(new Set(answers.map((r) => r.text)).size).toBe(1);
    const rows = await t.api.db.query("SELECT id FROM transfers WHERE quote_id = $1", [quote.id]);
    expect(rows.rowCount).toBe(1);
    // The retry of any of them answers the same.
    const retried = await t.transfer(a, quote.id, key);
    expect(retried.text).toBe(answers[0]?.text);
  });

  it("20 concurrent POST /v1/transfers of one quote under different keys: exactly one transfer, the rest 409", async () => {
    const quote = await t.quote(a, customer.customerId);
    const answers = await Promise.all(Array.from({ length: 20 }, () => t.transfer(a, quote.id)));
    expect(answers.filter((r) => r.status === 201)).toHaveLength(1);
    expect(answers.filter((r) => r.status === 409)).toHaveLength(19);
  });

  it("cancel racing the funding credit: exactly one wins, and the money is exactly once somewhere", async () => {
    for (let round = 0; round < 6; round += 1) {
      const before = await t.balance(a);
      const transfer = (await t.transfer(a, (await t.quote(a, customer.customerId)).id)).body.data;
      const funding = (await t.call(a, `/v1/transfers/${transfer.id}/funding`)).body.data;
      const [cancel, credit] = await Promise.all([
        t.call(a, `/v1/transfers/${transfer.id}/cancel`, { method: "POST", idempotencyKey: nextKey("cancel") }),
        t.credit(a, customer.virtualAccountId, "100", funding.intent.bank_transfer.reference),
      ]);
      expect(credit.status, credit.text).toBe(201);
      const after = (await t.call(a, `/v1/transfers/${transfer.id}/funding`)).body.data;
      const balance = await t.balance(a);
      if (cancel.status === 200) {
        // Cancel first: the credit came late and is the merchant's.
        expect(after.transfer_status).toBe("CANCELED");
        expect(after.intent.flag.code).toBe("LATE_PAYMENT");
        expect(balance.reserved).toBe(before.reserved);
      } else {
        // The credit first: funded, and the cancel refused.
        expect(cancel.status, cancel.text).toBe(409);
        expect(after.transfer_status).toBe("FUNDED");
        expect(balance.available).toBe(before.available);
      }
    }
    await t.expectLedgerClean();
  });
});
