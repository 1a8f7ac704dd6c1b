import { describe, expect, it } from "vitest";
import { PAYEE, useTransfersApi } from "./transfers-support.ts";
import { createCustomer, nextKey } from "./verification-fixtures.ts";

/**
 * Issue 27 finding 4, the API's side: a merchant's payout to an address of ours (another merchant's
 * customer's deposit address, its own, a treasury address) is refused when quoting, 422
 * destination_internal in the spec's error shape (every answer is checked against /openapi.json).
 * Paid on chain it would only move money inside our custody; the operator's own sends there are
 * credited to the address's owner by the indexer (test/treasury/reconcile-evm-payout-to-deposit.test.ts).
 */
describe("transfers: no payout to an address of ours", () => {
  const { t, a, customer } = useTransfersApi();

  async function depositAddressOf(m: typeof a): Promise<string> {
    const customerId = await createCustomer(t.api, m);
    const wallet = await t.call(m, "/v1/wallets", {
      method: "POST",
      idempotencyKey: nextKey("wallet"),
      json: { customer_id: customerId, label: "payee" },
    });
    expect(wallet.status, wallet.text).toBe(201);
    return wallet.body.data.destinations.find((d: { chain: string }) => d.chain === "BASE").address;
  }

  const quoteTo = (address: string) =>
    t.requestQuote(a, customer.customerId, {
      source: { method: "BALANCE" },
      destination: { type: "CRYPTO_ADDRESS", asset: "USDC", network: "BASE", address },
      source_amount: "10.00",
    });

  it("refuses another merchant's customer's deposit address, the merchant's own and a treasury address with 422 destination_internal", async () => {
    const b = await t.api.merchant();
    const ofB = await depositAddressOf(b);
    const ofA = await depositAddressOf(a);
    const treasury = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";
    await t.api.db.query(
      "INSERT INTO treasury_addresses (chain, purpose, path, address, address_key) VALUES ('BASE', 'send', 'm/test', $1, $2)",
      [treasury, treasury.toLowerCase()],
    );
    const before = await t.api.db.query("SELECT count(*)::int AS n FROM transfer_quotes");
    for (const address of [ofB, ofB.toLowerCase(), ofA, treasury]) {
      const refused = await quoteTo(address);
      expect(refused.status, address).toBe(422);
      expect(refused.body).toEqual({
        status: "error",
        error: "destination_internal",
        message: expect.stringMatching(/^destination\.address: this BASE address is a (deposit|treasury) address/),
        data: {},
      });
    }
    const after = await t.api.db.query("SELECT count(*)::int AS n FROM transfer_quotes");
    expect(after.rows).toEqual(before.rows);
    // An address outside the service is quoted as ever.
    expect((await quoteTo(PAYEE)).status).toBe(201);
  });
});
