import { AppError } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { appendDepositEvents } from "@mp/events";
import { postPolicyReturn } from "@mp/ledger";
import { type AddressScreening, recordSanctionsMatch, type SanctionsMatchInput } from "@mp/providers";
import { sendDepositReturnTo, type TransferTreasury } from "@mp/transfers";
import { moveDrain } from "./drain-events.ts";

/** What the drain pass needs to send failed drains' money to their address's return_address. */
export interface DrainReturnDeps {
  treasury: TransferTreasury;
  screening?: AddressScreening | undefined;
  /** RETURN_NETWORK_FEE_USD. */
  networkFeeUsdMicros: bigint;
}

/**
 * In the transaction that fails drain `drainId`, or marks it not_paid below_minimum (locked by the
 * caller; a held deposit's money stays held, it is not credited): when its address has a
 * return_address, its deposit's credit is taken back from the merchant's available balance into
 * returns_payable (postPolicyReturn: the net from available, the fee from fee_revenue) and
 * `deposit.returned` is appended, so the return pass sends it there. Under a savepoint: when the merchant has spent the net already
 * (insufficient_funds) the money stays credited, flagged by the failed drain, as without an address.
 * Returns whether the deposit is now owed back.
 */
export async function oweFailedDrainBack(sql: Queryable, drainId: string): Promise<boolean> {
  const { rows } = await sql.query<{ deposit_id: string; merchant_id: string; net: string; fee: string }>(
    `SELECT d.id AS deposit_id, d.merchant_id, d.net_amount_usd_micros::text AS net, d.fee_usd_micros::text AS fee
       FROM liquidation_drains ld JOIN liquidation_addresses a ON a.id = ld.liquidation_address_id
       JOIN deposits d ON d.id = ld.deposit_id
      WHERE ld.id = $1 AND a.return_address IS NOT NULL AND d.status = 'CONFIRMED' AND d.hold_status IS NULL
        AND d.reversal_entry_id IS NULL AND d.credit_entry_id IS NOT NULL
      FOR UPDATE OF d`,
    [drainId],
  );
  const owed = rows[0];
  if (!owed) return false;
  await sql.query("SAVEPOINT drain_return");
  try {
    await postPolicyReturn(sql, {
      depositId: owed.deposit_id,
      merchantId: owed.merchant_id,
      netUsdMicros: BigInt(owed.net),
      feeUsdMicros: BigInt(owed.fee),
    });
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    await sql.query("ROLLBACK TO SAVEPOINT drain_return");
    return false;
  }
  await sql.query("RELEASE SAVEPOINT drain_return");
  await appendDepositEvents(sql, [{ type: "deposit.returned", depositId: owed.deposit_id }]);
  return true;
}

/**
 * Failed and not_paid drains whose deposit is owed back (a `policy_return` entry) and has no return yet: each, in
 * its own transaction under the drain's lock (SKIP LOCKED), is sent to its address's return_address
 * (sendDepositReturnTo: once per deposit, the network fee taken, screened) and the drain moves to
 * `refunded`. A return not more than its fee stays payable, as returns do, its reason on the drain
 * (last_error), and is not tried again by this pass; sent later by an operator (`deposits return`,
 * which keeps the return_address), the drain follows it to `refunded` on the next pass. Returns how
 * many drains were refunded.
 */
export async function returnFailedDrains(db: Database, deps: DrainReturnDeps, batch: number): Promise<number> {
  const { rows } = await db.query<{ id: string }>(
    `SELECT ld.id FROM liquidation_drains ld
       JOIN liquidation_addresses a ON a.id = ld.liquidation_address_id
      WHERE ld.state IN ('failed', 'not_paid') AND a.return_address IS NOT NULL
        AND EXISTS (SELECT 1 FROM journal_entries e WHERE e.kind = 'policy_return' AND e.reference = ld.deposit_id::text)
        AND NOT EXISTS (SELECT 1 FROM deposit_returns r WHERE r.deposit_id = ld.deposit_id AND r.state = 'payable')
        AND NOT EXISTS (SELECT 1 FROM sanctions_matches s WHERE s.context = 'return' AND s.reference = ld.deposit_id::text)
      ORDER BY ld.updated_at, ld.id LIMIT $1`,
    [batch],
  );
  let refunded = 0;
  for (const { id } of rows) {
    const refused: SanctionsMatchInput[] = [];
    try {
      refunded += await db.tx((sql) => returnDrain(sql, { ...deps, refused }, id));
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
    } finally {
      for (const match of refused) await db.tx((client) => recordSanctionsMatch(client, match));
    }
  }
  return refunded;
}

async function returnDrain(
  sql: Queryable,
  deps: DrainReturnDeps & { refused: SanctionsMatchInput[] },
  drainId: string,
): Promise<number> {
  const { rows } = await sql.query<{ merchant_id: string; deposit_id: string; return_address: string }>(
    `SELECT ld.merchant_id, ld.deposit_id, a.return_address FROM liquidation_drains ld
       JOIN liquidation_addresses a ON a.id = ld.liquidation_address_id
      WHERE ld.id = $1 AND ld.state IN ('failed', 'not_paid') FOR UPDATE OF ld SKIP LOCKED`,
    [drainId],
  );
  const drain = rows[0];
  if (!drain) return 0;
  const sent = await sendDepositReturnTo(
    sql,
    { treasury: deps.treasury, screening: deps.screening, refused: deps.refused },
    { depositId: drain.deposit_id, returnAddress: drain.return_address, networkFeeUsdMicros: deps.networkFeeUsdMicros },
  );
  if (sent.state === "payable") {
    await sql.query("UPDATE liquidation_drains SET last_error = $2, updated_at = now() WHERE id = $1", [
      drainId,
      `return to ${drain.return_address}: ${sent.reason ?? "payable"}`,
    ]);
    return 0;
  }
  await moveDrain(sql, { id: drainId, merchantId: drain.merchant_id }, "refunded");
  return 1;
}
