import { randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";

/**
 * A sandbox merchant on the next free derivation account, with one approved individual customer,
 * written straight to the tables (for suites that do not go through the API); no fees unless given. Callers creating
 * merchants concurrently serialise the call themselves: two could take the same account.
 */
export async function insertMerchantWithCustomer(
  sql: Queryable,
  name: string,
  fees: { feeBps: number; feeFixedMicros: bigint } = { feeBps: 0, feeFixedMicros: 0n },
): Promise<{ merchantId: string; customerId: string }> {
  const merchantId = randomUUID();
  const customerId = randomUUID();
  await sql.query(
    `INSERT INTO merchants (id, name, environment, derivation_account, fee_bps, fee_fixed_micros)
     SELECT $1, $2, 'sandbox', coalesce(max(derivation_account) + 1, 0), $3, $4 FROM merchants`,
    [merchantId, name, fees.feeBps, fees.feeFixedMicros.toString()],
  );
  await sql.query("INSERT INTO customers (id, merchant_id, type, status) VALUES ($1, $2, 'INDIVIDUAL', 'APPROVED')", [
    customerId,
    merchantId,
  ]);
  return { merchantId, customerId };
}
