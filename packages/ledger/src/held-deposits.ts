import { ConflictError, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { appendDepositEvents } from "@mp/events";
import { z } from "zod";
import { idSchema, parseInput } from "./inputs.ts";
import { findEntry, type LineSpec, postEntry, transferLines } from "./journal-entry.ts";

/**
 * SQL true when the customer row `alias` may receive crypto: what the customer resource's
 * capabilities show (packages/api customer-verification.ts derives them), read where it is enforced:
 * wallet creation and deposit crediting. A customer with no capabilities recorded yet (PROVISIONING)
 * has no verification outcome, hence no refusal. A deposit confirmed while it is false is held.
 */
export function cryptoAllowedSql(alias: string): string {
  return `((${alias}.capabilities ->> 'crypto_deposits') IS DISTINCT FROM 'false')`;
}

/** Why a deposit was credited to merchant_held instead of available. */
export type HeldReason = "customer_rejected" | "sanctions_match";

export interface HeldDeposit {
  depositId: string;
  merchantId: string;
  customerId: string | null;
  chain: string;
  asset: string;
  amountRaw: string;
  decimals: number;
  fromAddress: string | null;
  txHash: string;
  heldReason: HeldReason;
  amountUsdMicros: bigint;
  feeUsdMicros: bigint;
  netAmountUsdMicros: bigint;
  confirmedAt: Date;
}

const releaseInput = z.object({ depositId: idSchema });
const returnInput = z.object({ depositId: idSchema, reason: z.string().trim().min(1).max(500) });

/** The USD amounts, which PostgreSQL answers as text (bigint); every other column is a field as it is. */
type HeldRow = Omit<HeldDeposit, "amountUsdMicros" | "feeUsdMicros" | "netAmountUsdMicros"> & {
  amountUsdMicros: string;
  feeUsdMicros: string;
  netAmountUsdMicros: string;
};

const HELD_COLUMNS = `id AS "depositId", merchant_id AS "merchantId", customer_id AS "customerId", chain, asset,
  amount_raw::text AS "amountRaw", decimals, from_address AS "fromAddress", tx_hash AS "txHash",
  held_reason AS "heldReason", amount_usd_micros::text AS "amountUsdMicros", fee_usd_micros::text AS "feeUsdMicros",
  net_amount_usd_micros::text AS "netAmountUsdMicros", confirmed_at AS "confirmedAt"`;

function toHeldDeposit(row: HeldRow): HeldDeposit {
  return {
    ...row,
    amountUsdMicros: BigInt(row.amountUsdMicros),
    feeUsdMicros: BigInt(row.feeUsdMicros),
    netAmountUsdMicros: BigInt(row.netAmountUsdMicros),
  };
}

/** Confirmed deposits still held (not released, returned or reversed), oldest first. */
export async function listHeldDeposits(q: Queryable, filter: { merchantId?: string } = {}): Promise<HeldDeposit[]> {
  const merchantId = filter.merchantId === undefined ? null : parseInput(idSchema, filter.merchantId);
  const { rows } = await q.query<HeldRow>(
    `SELECT ${HELD_COLUMNS} FROM deposits
      WHERE hold_status = 'HELD' AND status = 'CONFIRMED' AND ($1::uuid IS NULL OR merchant_id = $1)
      ORDER BY created_at, id`,
    [merchantId],
  );
  return rows.map(toHeldDeposit);
}

/** The journal lines of each way out of a hold, and the deposit's hold_status after it. */
const RESOLUTIONS = {
  /** merchant_held -> merchant_available (the net). */
  held_release: {
    holdStatus: "RELEASED",
    lines: (deposit: HeldDeposit) => transferLines("merchant_held", "merchant_available", deposit.netAmountUsdMicros),
  },
  /**
   * The payer is owed the whole amount back: merchant_held gives up the net and fee_revenue the fee
   * (no fee on money refused), returns_payable owes the gross until the money is sent back on chain.
   */
  held_return: {
    holdStatus: "RETURNED",
    lines: (deposit: HeldDeposit): LineSpec[] => [
      { account: "merchant_held", side: "debit", amount: deposit.netAmountUsdMicros },
      { account: "fee_revenue", side: "debit", amount: deposit.feeUsdMicros },
      { account: "returns_payable", side: "credit", amount: deposit.amountUsdMicros },
    ],
  },
} as const;

/**
 * Locks a held deposit's row (the indexer's reversal locks it too, so a release or return and a
 * reorg serialise) and, while it is still HELD and CONFIRMED, posts the resolution's entry and marks
 * the deposit. Once per deposit: a released, returned or reversed deposit is a ConflictError.
 */
async function resolveHeld(
  client: Queryable,
  depositId: string,
  kind: keyof typeof RESOLUTIONS,
  returnReason: string | null,
): Promise<{ entryId: string }> {
  const { rows } = await client.query<HeldRow & { status: string; holdStatus: string | null }>(
    `SELECT ${HELD_COLUMNS}, status, hold_status AS "holdStatus" FROM deposits WHERE id = $1 FOR UPDATE`,
    [depositId],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError("Deposit");
  if (row.holdStatus === null) throw new ConflictError(`deposit ${depositId} is not held`);
  if (row.status !== "CONFIRMED") throw new ConflictError(`deposit ${depositId} is ${row.status}`);
  if (row.holdStatus !== "HELD") throw new ConflictError(`deposit ${depositId} was already ${row.holdStatus}`);
  const deposit = toHeldDeposit(row);
  // Checked first so a deposit credited to available by mistake never gets a resolution entry.
  const credit = await findEntry(client, "deposit_credit", depositId);
  if (credit?.lines[1]?.account !== "merchant_held") {
    throw new ConflictError(`deposit ${depositId} has no held credit in the journal`);
  }
  const resolution = RESOLUTIONS[kind];
  const { entryId } = await postEntry(client, {
    kind,
    reference: depositId,
    merchantId: deposit.merchantId,
    lines: resolution.lines(deposit),
  });
  await client.query(
    `UPDATE deposits SET hold_status = $2, hold_resolution_entry_id = $3, hold_resolved_at = now(),
            return_reason = $4, updated_at = now()
      WHERE id = $1`,
    [depositId, resolution.holdStatus, entryId, returnReason],
  );
  // The merchant learns of the operator's decision from the event, in the same transaction.
  await appendDepositEvents(client, [
    { type: kind === "held_release" ? "deposit.released" : "deposit.returned", depositId: deposit.depositId },
  ]);
  return { entryId };
}

/** An operator releases a held deposit to its merchant (RESOLUTIONS.held_release). */
export async function releaseHeldDeposit(
  client: Queryable,
  input: { depositId: string },
): Promise<{ entryId: string }> {
  const { depositId } = parseInput(releaseInput, input);
  return resolveHeld(client, depositId, "held_release", null);
}

/** An operator refuses a held deposit (RESOLUTIONS.held_return); the reason is recorded on the deposit. */
export async function returnHeldDeposit(
  client: Queryable,
  input: { depositId: string; reason: string },
): Promise<{ entryId: string }> {
  const { depositId, reason } = parseInput(returnInput, input);
  return resolveHeld(client, depositId, "held_return", reason);
}
