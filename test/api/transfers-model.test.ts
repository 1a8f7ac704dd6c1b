import { randomUUID } from "node:crypto";
import { SqlState, sqlState } from "@mp/db";
import { describe, expect, it } from "vitest";
import { insertMerchantWithCustomer } from "../support/db-fixtures.ts";
import { insertBankQuote } from "../support/quote-fixture.ts";
import { useTestDatabase } from "../support/test-database.ts";

/** The tables of migrations 0120-0121 hold their own rules: immutable quotes, checked transitions, a full history. */
/** SQLSTATE restrict_violation, raised by the guards of the append-only and immutable rows. */
const RESTRICT_VIOLATION = "23001";

describe("transfers data model", () => {
  const database = useTestDatabase();

  const quote = (merchantId: string, customerId: string): Promise<string> =>
    insertBankQuote(
      database.db,
      { merchantId, customerId },
      {
        sourceMicros: 100_000_000,
        feeMicros: 1_000_000,
        destinationMicros: 99_000_000,
        destinationAddress: "0x0000000000000000000000000000000000000001",
        rate: "0.99",
        spreadBps: 100,
      },
    );

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
