import { randomUUID } from "node:crypto";
import { SqlState, sqlState } from "@mp/db";
import { describe, expect, it } from "vitest";
import { insertMerchantWithCustomer } from "../support/db-fixtures.ts";
import { useTestDatabase } from "../support/test-database.ts";

/** The tables of migrations 0120-0121 hold their own rules: immutable quotes, checked transitions, a full history. */
/** SQLSTATE restrict_violation, raised by the guards of the append-only and immutable rows. */
const RESTRICT_VIOLATION = "23001";

describe("transfers data model", () => {
  const database = useTestDatabase();

  async function quote(merchantId: string, customerId: string): Promise<string> {
    const id = randomUUID();
    await database.db.query(
      `INSERT INTO transfer_quotes (id, merchant_id, customer_id, source_method, source_asset, source_network,
         source_decimals, source_amount, fee_amount, destination_kind, destination_asset, destination_network,
         destination_decimals, destination_amount, destination_address, rate_value, source_usd_rate,
         destination_usd_rate, spread_bps, fee_fixed_usd_micros, fee_bps, source_usd_micros, fee_usd_micros, expires_at)
       VALUES ($1, $2, $3, 'BANK_TRANSFER', 'USD', 'ACH', 6, 100000000, 1000000, 'CRYPTO_ADDRESS', 'USDC', 'BASE',
         6, 99000000, '0x0000000000000000000000000000000000000001', '0.99', '1', '1', 100, 1000000, 0,
         100000000, 1000000, now() + interval '15 minutes')`,
      [id, merchantId, customerId],
    );
    return id;
  }

  async function refused(statement: Promise<unknown>, state: string): Promise<void> {
    const error = await statement.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(sqlState(error)).toBe(state);
  }

  it("keeps quotes immutable but for used_at, set once", async () => {
    const { merchantId, customerId } = await insertMerchantWithCustomer(database.db, "m1");
    const id = await quote(merchantId, customerId);
    await refused(
      database.db.query("UPDATE transfer_quotes SET destination_amount = 1 WHERE id = $1", [id]),
      RESTRICT_VIOLATION,
    );
    await database.db.query("UPDATE transfer_quotes SET used_at = now() WHERE id = $1", [id]);
    await refused(
      database.db.query("UPDATE transfer_quotes SET used_at = now() + interval '1 second' WHERE id = $1", [id]),
      RESTRICT_VIOLATION,
    );
    await refused(database.db.query("DELETE FROM transfer_quotes WHERE id = $1", [id]), RESTRICT_VIOLATION);
  });

  it("records every transition, refuses skipped, backward and repeated ones", async () => {
    const { merchantId, customerId } = await insertMerchantWithCustomer(database.db, "m2");
    const quoteId = await quote(merchantId, customerId);
    const insertTransfer = (transferId: string, status: string) =>
      database.db.query(
        `INSERT INTO transfers (id, merchant_id, customer_id, quote_id, status, funding_mode, expires_at)
         VALUES ($1, $2, $3, $4, $5, 'TRANSFER_JIT', now() + interval '1 hour')`,
        [transferId, merchantId, customerId, quoteId, status],
      );
    const id = randomUUID();
    await refused(insertTransfer(id, "FUNDED"), SqlState.checkViolation);
    await insertTransfer(id, "AWAITING_MERCHANT_FUNDING");
    const set = (status: string) => database.db.query("UPDATE transfers SET status = $2 WHERE id = $1", [id, status]);
    await refused(set("COMPLETED"), SqlState.checkViolation);
    await set("FUNDED");
    await refused(set("AWAITING_MERCHANT_FUNDING"), SqlState.checkViolation);
    await refused(set("CANCELED"), SqlState.checkViolation);
    await set("PROCESSING");
    await set("COMPLETED");
    const history = await database.db.query<{ from_status: string | null; to_status: string }>(
      "SELECT from_status, to_status FROM transfer_transitions WHERE object_id = $1 ORDER BY id",
      [id],
    );
    expect(history.rows).toEqual([
      { from_status: null, to_status: "AWAITING_MERCHANT_FUNDING" },
      { from_status: "AWAITING_MERCHANT_FUNDING", to_status: "FUNDED" },
      { from_status: "FUNDED", to_status: "PROCESSING" },
      { from_status: "PROCESSING", to_status: "COMPLETED" },
    ]);
    await refused(database.db.query("DELETE FROM transfer_transitions WHERE object_id = $1", [id]), RESTRICT_VIOLATION);
    // A second quote for the same transfer is refused: a quote is used once, a transfer has one quote.
    const other = randomUUID();
    await refused(insertTransfer(other, "AWAITING_MERCHANT_FUNDING"), SqlState.uniqueViolation);
  });
});
