import { ConflictError, InsufficientFundsError, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";
import { holdIdSchema, idSchema, parseInput, positiveMicrosSchema } from "./inputs.ts";
import { postEntry, transferLines } from "./journal-entry.ts";

const placeInput = z.object({
  holdId: holdIdSchema,
  merchantId: idSchema,
  amountUsdMicros: positiveMicrosSchema,
  justCredited: z.boolean().default(false),
});
const resolveInput = z.object({ holdId: holdIdSchema, merchantId: idSchema, paidOut: z.boolean().default(false) });

/**
 * Reserves money for a payout: merchant_available -> merchant_reserved. The available balance row is
 * locked (FOR UPDATE) before the funds check, so concurrent holds of one merchant take turns and can
 * never overdraw it together. Throws InsufficientFundsError, writing nothing, when available < amount.
 * Idempotent per holdId; the same holdId with another merchant or amount is a ConflictError.
 *
 * `justCredited`: the amount was credited to available in the caller's transaction (a customer's
 * payment funding a transfer) and the hold reserves exactly that money, so there is no funds check:
 * available may stand below zero before the credit (a deposit reversal), and the hold must neither
 * fail nor take less than what arrived for the transfer.
 */
export async function placeHold(
  client: Queryable,
  input: { holdId: string; merchantId: string; amountUsdMicros: bigint; justCredited?: boolean },
): Promise<{ entryId: string }> {
  const { holdId, merchantId, amountUsdMicros, justCredited } = parseInput(placeInput, input);
  const posted = await postEntry(
    client,
    {
      kind: "hold",
      reference: holdId,
      merchantId,
      lines: transferLines("merchant_available", "merchant_reserved", amountUsdMicros),
    },
    {
      guard(balances) {
        if (justCredited) return;
        if ((balances.get("merchant_available") ?? 0n) < amountUsdMicros) throw new InsufficientFundsError();
      },
    },
  );
  if (posted.created) {
    await client.query(
      "INSERT INTO ledger_holds (id, merchant_id, amount_usd_micros, hold_entry_id) VALUES ($1, $2, $3, $4)",
      [holdId, merchantId, amountUsdMicros.toString(), posted.entryId],
    );
  }
  return { entryId: posted.entryId };
}

type Resolution = "SETTLED" | "RELEASED";

/**
 * Ends a hold of this merchant once: settled or released, never both. The hold's row is locked first,
 * so a settle and a release of one hold serialise; repeating the same resolution returns its first
 * entry. Another merchant's hold is not found (NotFoundError), as an unknown one.
 *
 * Settling needs the merchant's available balance at zero or above, read under its lock: below zero,
 * a deposit reversal (reorg) took back money that the reservation stood on, and settling would pay
 * out money that is gone. The settle is then refused (InsufficientFundsError, nothing written); the
 * caller releases the hold (which fills the gap) or waits for new credits to bring available back.
 * `paidOut`: the payout has already left (confirmed on chain or by the bank): refusing to record it
 * would bring nothing back and only leave the transfer stuck, so it settles whatever available is
 * (the callers refuse to START a payout while available is below zero).
 */
async function resolveHold(
  client: Queryable,
  input: { holdId: string; merchantId: string; paidOut?: boolean },
  resolution: Resolution,
): Promise<{ entryId: string }> {
  const { holdId, merchantId, paidOut } = parseInput(resolveInput, input);
  const result = await client.query<{
    amount_usd_micros: string;
    status: "HELD" | Resolution;
    resolution_entry_id: string | null;
  }>(
    `SELECT amount_usd_micros::text AS amount_usd_micros, status, resolution_entry_id
       FROM ledger_holds WHERE id = $1 AND merchant_id = $2 FOR UPDATE`,
    [holdId, merchantId],
  );
  const hold = result.rows[0];
  if (!hold) throw new NotFoundError("Hold");
  if (hold.status === resolution && hold.resolution_entry_id) return { entryId: hold.resolution_entry_id };
  if (hold.status !== "HELD") throw new ConflictError(`Hold ${holdId} is already ${hold.status}`);
  const amount = BigInt(hold.amount_usd_micros);
  const settling = resolution === "SETTLED";
  const { entryId } = await postEntry(
    client,
    {
      kind: settling ? "hold_settle" : "hold_release",
      reference: holdId,
      merchantId,
      lines: transferLines("merchant_reserved", settling ? "payout_clearing" : "merchant_available", amount),
    },
    settling && !paidOut
      ? {
          alsoLock: ["merchant_available"],
          guard(balances) {
            if ((balances.get("merchant_available") ?? 0n) < 0n) throw new InsufficientFundsError();
          },
        }
      : {},
  );
  await client.query(
    "UPDATE ledger_holds SET status = $2, resolution_entry_id = $3, resolved_at = now() WHERE id = $1",
    [holdId, resolution, entryId],
  );
  return { entryId };
}

/**
 * The payout went out: merchant_reserved -> payout_clearing. Refused while available is below zero,
 * unless `paidOut` (the payout is confirmed already: see resolveHold).
 */
export async function settleHold(
  client: Queryable,
  input: { holdId: string; merchantId: string; paidOut?: boolean },
): Promise<{ entryId: string }> {
  return resolveHold(client, input, "SETTLED");
}

/** The payout did not happen: merchant_reserved -> merchant_available. */
export async function releaseHold(
  client: Queryable,
  input: { holdId: string; merchantId: string },
): Promise<{ entryId: string }> {
  return resolveHold(client, input, "RELEASED");
}
