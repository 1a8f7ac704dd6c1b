import type { Queryable } from "@mp/db";
import { z } from "zod";
import { LEDGER_CURRENCY } from "./accounts.ts";
import { idSchema, parseInput } from "./inputs.ts";

/**
 * The merchant's USD balances from the derived balance rows (no lock: a read for display): available
 * (spendable), reserved (payout holds) and held (deposits held out of available, docs/operating.md
 * "Held deposits"). A merchant that never had a posting has zero of each.
 */
export async function getMerchantBalance(
  q: Queryable,
  merchantId: string,
): Promise<{ available: bigint; reserved: bigint; held: bigint }> {
  const id = parseInput(z.object({ merchantId: idSchema }), { merchantId }).merchantId;
  const result = await q.query<{ kind: string; balance: string }>(
    `SELECT a.kind, b.balance::text AS balance
       FROM ledger_accounts a JOIN account_balances b ON b.account_id = a.id
      WHERE a.merchant_id = $1 AND a.currency = $2`,
    [id, LEDGER_CURRENCY],
  );
  let available = 0n;
  let reserved = 0n;
  let held = 0n;
  for (const row of result.rows) {
    if (row.kind === "merchant_available") available = BigInt(row.balance);
    if (row.kind === "merchant_reserved") reserved = BigInt(row.balance);
    if (row.kind === "merchant_held") held = BigInt(row.balance);
  }
  return { available, reserved, held };
}
