import { ConflictError, NotFoundError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { appendDepositEvents } from "@mp/events";
import { z } from "zod";
import { idSchema, parseInput } from "./inputs.ts";
import { findEntry, type LineSpec, postEntry } from "./journal-entry.ts";

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
export type HeldReason = "customer_rejected";

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

interface HeldRow {
  id: string;
  merchant_id: string;
  customer_id: string | null;
  chain: string;
  asset: string;
  amount_raw: string;
  decimals: number;
  from_address: string | null;
  tx_hash: string;
  held_reason: HeldReason;
  amount_usd_micros: string;
  fee_usd_micros: string;
  net_amount_usd_micros: string;
  confirmed_at: Date;
}

const HELD_COLUMNS = `id, merchant_id, customer_id, chain, asset, amount_raw::text AS amount_raw, decimals, from_address,
  tx_hash, held_reason, amount_usd_micros::text AS amount_usd_micros, fee_usd_micros::text AS fee_usd_micros,
  net_amount_usd_micros::text AS net_amount_usd_micros, confirmed_at`;

function toHeldDeposit(row: HeldRow): HeldDeposit {
  return {
    depositId: row.id,
    merchantId: row.merchant_id,
    customerId: row.customer_id,
    chain: row.chain,
    asset: row.asset,
    amountRaw: row.amount_raw,
    decimals: row.decimals,
    fromAddress: row.from_address,
    txHash: row.tx_hash,
    heldReason: row.held_reason,
    amountUsdMicros: BigInt(row.amount_usd_micros),
    feeUsdMicros: BigInt(row.fee_usd_micros),
    netAmountUsdMicros: BigInt(row.net_amount_usd_micros),
    confirmedAt: row.confirmed_at,
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

/**
 * Locks a held deposit's row (the indexer's reversal locks it too, so a release or return and a
 * reorg serialise) and returns it while it is still HELD and CONFIRMED.
 */
async function lockHeld(client: Queryable, depositId: string): Promise<HeldDeposit> {
  const { rows } = await client.query<HeldRow & { status: string; hold_status: string | null }>(
    `SELECT ${HELD_COLUMNS}, status, hold_status FROM deposits WHERE id = $1 FOR UPDATE`,
    [depositId],
  );
  const row = rows[0];
  if (!row) throw new NotFoundError("Deposit");
  if (row.hold_status === null) throw new ConflictError(`deposit ${depositId} is not held`);
  if (row.status !== "CONFIRMED") throw new ConflictError(`deposit ${depositId} is ${row.status}`);
  if (row.hold_status !== "HELD") throw new ConflictError(`deposit ${depositId} was already ${row.hold_status}`);
  return toHeldDeposit(row);
}

async function resolve(
  client: Queryable,
  deposit: HeldDeposit,
  kind: "held_release" | "held_return",
  lines: LineSpec[],
  returnReason: string | null,
): Promise<{ entryId: string }> {
  // Checked first so a deposit credited to available by mistake never gets a resolution entry.
  const credit = await findEntry(client, "deposit_credit", deposit.depositId);
  if (credit?.lines[1]?.account !== "merchant_held") {
    throw new ConflictError(`deposit ${deposit.depositId} has no held credit in the journal`);
  }
  const { entryId } = await postEntry(client, {
    kind,
    reference: deposit.depositId,
    merchantId: deposit.merchantId,
    lines,
  });
  await client.query(
    `UPDATE deposits SET hold_status = $2, hold_resolution_entry_id = $3, hold_resolved_at = now(),
            return_reason = $4, updated_at = now()
      WHERE id = $1`,
    [deposit.depositId, kind === "held_release" ? "RELEASED" : "RETURNED", entryId, returnReason],
  );
  // The merchant learns of the operator's decision from the event, in the same transaction.
  await appendDepositEvents(client, [
    { type: kind === "held_release" ? "deposit.released" : "deposit.returned", depositId: deposit.depositId },
  ]);
  return { entryId };
}

/**
 * An operator releases a held deposit to its merchant: merchant_held -> merchant_available (the net).
 * Once per deposit; a released, returned or reversed deposit is a ConflictError.
 */
export async function releaseHeldDeposit(
  client: Queryable,
  input: { depositId: string },
): Promise<{ entryId: string }> {
  const { depositId } = parseInput(releaseInput, input);
  const deposit = await lockHeld(client, depositId);
  return resolve(
    client,
    deposit,
    "held_release",
    [
      { account: "merchant_held", side: "debit", amount: deposit.netAmountUsdMicros },
      { account: "merchant_available", side: "credit", amount: deposit.netAmountUsdMicros },
    ],
    null,
  );
}

/**
 * An operator refuses a held deposit: the payer is owed the whole amount back. merchant_held gives up
 * the net and fee_revenue the fee (no fee on money refused), returns_payable owes the gross until the
 * money is sent back on chain. Once per deposit; the reason is recorded on the deposit.
 */
export async function returnHeldDeposit(
  client: Queryable,
  input: { depositId: string; reason: string },
): Promise<{ entryId: string }> {
  const { depositId, reason } = parseInput(returnInput, input);
  const deposit = await lockHeld(client, depositId);
  return resolve(
    client,
    deposit,
    "held_return",
    [
      { account: "merchant_held", side: "debit", amount: deposit.netAmountUsdMicros },
      { account: "fee_revenue", side: "debit", amount: deposit.feeUsdMicros },
      { account: "returns_payable", side: "credit", amount: deposit.amountUsdMicros },
    ],
    reason,
  );
}
