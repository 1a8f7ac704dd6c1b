import { type ChainId, DestinationSanctionedError, NotFoundError, unitsToDecimal, ValidationError } from "@mp/core";
import { insertReturning, type Queryable } from "@mp/db";
import type { AddressScreening, SanctionsMatchInput } from "@mp/providers";
import type { TransferTreasury } from "../transfer-treasury.ts";
import { returnFeeRaw, returnSendKey } from "./return-fee.ts";

export type DepositReturnState = "payable" | "sending" | "returned";

/** Why a deposit is owed back (deposit_returns.origin). */
export type DepositReturnOrigin = "held" | "late_funding" | "excess" | "failed_payout" | "liquidation";

/** A deposit's return as stored (deposit_returns) and as the CLI answers it. */
export interface DepositReturn {
  depositId: string;
  merchantId: string;
  chain: ChainId;
  asset: string;
  decimals: number;
  /** null while a Bitcoin return waits for the operator's refund address. */
  to: string | null;
  /** What the payer gets (the deposit's amount less feeRaw); null when nothing can be sent. */
  amountRaw: bigint | null;
  feeRaw: bigint;
  owedUsdMicros: bigint;
  state: DepositReturnState;
  /** Why it stays payable; null otherwise. */
  reason: string | null;
  sendKey: string | null;
}

export interface ReturnRequest {
  depositId: string;
  /** The refund address: required on Bitcoin (a payment's inputs name no one payer), refused elsewhere. */
  to?: string | undefined;
  /**
   * A refund address the payer named before paying (a liquidation address's `return_address`): the
   * return goes there on any chain, instead of the sender. Set by code only (sendDepositReturnTo).
   */
  returnAddress?: string | undefined;
  /** RETURN_NETWORK_FEE_USD. */
  networkFeeUsdMicros: bigint;
  /**
   * `failed_payout`: the whole deposit goes back, though its intent took it (its transfer's payout
   * failed). `liquidation`: a liquidation drain that could not pay out (sendDepositReturnTo). Otherwise
   * derived from the deposit; a stored return keeps the origin it was created with.
   */
  origin?: "failed_payout" | "liquidation" | undefined;
}

export interface ReturnDeps {
  treasury: TransferTreasury;
  /** The destination is screened (in memory); a listed one is pushed to `refused` for the caller to record after the transaction. */
  screening?: AddressScreening | undefined;
  refused?: SanctionsMatchInput[];
}

interface OwedDeposit {
  id: string;
  merchant_id: string;
  chain: ChainId;
  asset: string;
  decimals: number;
  amount_raw: string;
  amount_usd_micros: string;
  from_address: string | null;
  status: string;
  hold_status: string | null;
  reversal_entry_id: string | null;
  by_policy: boolean;
  /** What its intent took (funding_intent_credits; null for a deposit to no funding address). */
  applied_amount: string | null;
  /** What its `policy_return` entry owes the payer (returns_payable), null when none. */
  policy_owed_usd_micros: string | null;
}

interface ReturnRow {
  deposit_id: string;
  merchant_id: string;
  chain: ChainId;
  asset: string;
  to_address: string | null;
  amount_raw: string | null;
  fee_raw: string;
  owed_usd_micros: string;
  state: DepositReturnState;
  reason: string | null;
  attempt: number;
  send_key: string | null;
  origin: DepositReturnOrigin;
}

function toReturn(row: ReturnRow, decimals: number): DepositReturn {
  return {
    depositId: row.deposit_id,
    merchantId: row.merchant_id,
    chain: row.chain,
    asset: row.asset,
    decimals,
    to: row.to_address,
    amountRaw: row.amount_raw === null ? null : BigInt(row.amount_raw),
    feeRaw: BigInt(row.fee_raw),
    owedUsdMicros: BigInt(row.owed_usd_micros),
    state: row.state,
    reason: row.reason,
    sendKey: row.send_key,
  };
}

/**
 * The return's destination, or why there is none yet: the deposit's one sender where the chain names
 * one (account chains), else the refund address the operator gives (a Bitcoin payment's inputs name no
 * one payer, so its deposits record no sender).
 */
function destinationOf(deposit: OwedDeposit, request: ReturnRequest): { to: string } | { reason: string } {
  const { to } = request;
  if (request.returnAddress !== undefined) return { to: request.returnAddress };
  if (deposit.from_address === null) {
    if (to === undefined) {
      return { reason: `this ${deposit.chain} payment names no one payer: give the refund address (--to)` };
    }
    return { to };
  }
  if (to !== undefined && to !== deposit.from_address) {
    throw new ValidationError(
      `a ${deposit.chain} return goes back to the deposit's sender; --to is for a deposit without one (Bitcoin)`,
      "to",
    );
  }
  return { to: deposit.from_address };
}

async function lockOwedDeposit(client: Queryable, depositId: string): Promise<OwedDeposit> {
  const { rows } = await client.query<OwedDeposit>(
    `SELECT id, merchant_id, chain, asset, decimals, amount_raw::text, amount_usd_micros::text, from_address,
            status, hold_status, reversal_entry_id,
            EXISTS (SELECT 1 FROM journal_entries p WHERE p.kind = 'policy_return' AND p.reference = deposits.id::text) AS by_policy,
            (SELECT c.applied_amount::text FROM funding_intent_credits c WHERE c.deposit_id = deposits.id) AS applied_amount,
            (SELECT l.amount::text FROM journal_entries p
               JOIN journal_lines l ON l.entry_id = p.id JOIN ledger_accounts a ON a.id = l.account_id
              WHERE p.kind = 'policy_return' AND p.reference = deposits.id::text AND a.kind = 'returns_payable')
              AS policy_owed_usd_micros
       FROM deposits WHERE id = $1 FOR UPDATE`,
    [depositId],
  );
  const deposit = rows[0];
  if (!deposit) throw new NotFoundError("Deposit");
  const owed = deposit.hold_status === "RETURNED" || deposit.by_policy;
  if (deposit.status !== "CONFIRMED" || deposit.reversal_entry_id !== null || !owed) {
    throw new ValidationError(
      `deposit ${depositId} is not owed to its payer (status ${deposit.status}, hold ${deposit.hold_status ?? "none"})`,
      "deposit",
    );
  }
  return deposit;
}

/**
 * What is owed back of a deposit: all of it (a held deposit refused, late money, the funds of a failed
 * payout), or, for the excess of an over-payment taken back by the return policy, the part its intent
 * did not take, worth what its `policy_return` entry moved to returns_payable.
 */
function owedPart(deposit: OwedDeposit, origin: DepositReturnOrigin): { amountRaw: bigint; usdMicros: bigint } {
  const applied = origin === "excess" ? BigInt(deposit.applied_amount ?? "0") : 0n;
  return {
    amountRaw: BigInt(deposit.amount_raw) - applied,
    usdMicros: BigInt(deposit.policy_owed_usd_micros ?? deposit.amount_usd_micros),
  };
}

function originOf(deposit: OwedDeposit, requested: ReturnRequest["origin"]): DepositReturnOrigin {
  if (!deposit.by_policy) return "held";
  if (requested) return requested;
  return BigInt(deposit.applied_amount ?? "0") > 0n ? "excess" : "late_funding";
}

async function storeReturn(
  client: Queryable,
  row: Omit<ReturnRow, "merchant_id" | "chain" | "asset">,
  deposit: OwedDeposit,
) {
  const stored = await insertReturning<ReturnRow>(
    client,
    `INSERT INTO deposit_returns (deposit_id, merchant_id, chain, asset, to_address, amount_raw, fee_raw, owed_usd_micros,
                                  state, reason, attempt, send_key, origin)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
     ON CONFLICT (deposit_id) DO UPDATE SET to_address = $5, amount_raw = $6, fee_raw = $7, state = $9, reason = $10,
            attempt = $11, send_key = $12, updated_at = now()
     RETURNING deposit_id, merchant_id, chain, asset, to_address, amount_raw::text, fee_raw::text,
               owed_usd_micros::text, state, reason, attempt, send_key, origin`,
    [
      row.deposit_id,
      deposit.merchant_id,
      deposit.chain,
      deposit.asset,
      row.to_address,
      row.amount_raw,
      row.fee_raw,
      row.owed_usd_micros,
      row.state,
      row.reason,
      row.attempt,
      row.send_key,
      row.origin,
    ],
  );
  return toReturn(stored, deposit.decimals);
}

/**
 * Sends a deposit that is owed to its payer (returns_payable) back on chain, in the caller's
 * transaction: the treasury's send (purpose `return`) and the deposit's return row commit together.
 * Once per deposit: a return sending or returned already is answered as it is, nothing more is sent
 * (the send's idempotency key is the deposit's). It stays `payable`, said in `reason`, when there is
 * no destination yet (Bitcoin without a refund address) or when the amount is not more than its
 * network fee; asking again later (an address given, a failed send) tries again. A listed
 * destination is refused (destination_sanctioned) and nothing is stored.
 */
export async function sendDepositReturn(
  client: Queryable,
  deps: ReturnDeps,
  request: ReturnRequest,
): Promise<DepositReturn> {
  const deposit = await lockOwedDeposit(client, request.depositId);
  const { rows } = await client.query<ReturnRow>(
    `SELECT deposit_id, merchant_id, chain, asset, to_address, amount_raw::text, fee_raw::text, owed_usd_micros::text,
            state, reason, attempt, send_key, origin
       FROM deposit_returns WHERE deposit_id = $1`,
    [deposit.id],
  );
  const existing = rows[0];
  if (existing && existing.state !== "payable") return toReturn(existing, deposit.decimals);

  const origin = existing?.origin ?? originOf(deposit, request.origin);
  const { amountRaw, usdMicros: owedUsdMicros } = owedPart(deposit, origin);
  const feeRaw = returnFeeRaw({ amountRaw, amountUsdMicros: owedUsdMicros, feeUsdMicros: request.networkFeeUsdMicros });
  const attempt = existing?.attempt ?? 0;
  const base = {
    deposit_id: deposit.id,
    fee_raw: feeRaw.toString(),
    owed_usd_micros: owedUsdMicros.toString(),
    attempt,
    send_key: existing?.send_key ?? null,
    origin,
  };
  // A liquidation return keeps the return_address it was first stored with, whoever asks again (the CLI).
  const named = existing?.origin === "liquidation" ? (existing.to_address ?? undefined) : undefined;
  const destination = destinationOf(deposit, { ...request, returnAddress: request.returnAddress ?? named });
  if ("reason" in destination) {
    return storeReturn(
      client,
      { ...base, to_address: null, amount_raw: null, state: "payable", reason: destination.reason },
      deposit,
    );
  }
  if (amountRaw <= feeRaw) {
    const amount = unitsToDecimal(amountRaw, deposit.decimals, 0);
    const fee = unitsToDecimal(feeRaw, deposit.decimals, 0);
    const reason = `refused: the return (${amount} ${deposit.asset}) is not more than its network fee (${fee} ${deposit.asset}); it stays payable`;
    return storeReturn(
      client,
      { ...base, to_address: destination.to, amount_raw: null, state: "payable", reason },
      deposit,
    );
  }
  const hit = deps.screening ? await deps.screening.screen(destination.to) : null;
  if (hit !== null) {
    deps.refused?.push({
      context: "return",
      hit,
      chain: deposit.chain,
      merchantId: deposit.merchant_id,
      reference: deposit.id,
    });
    throw new DestinationSanctionedError("to", destination.to, hit.list);
  }
  const sendKey = returnSendKey(deposit.id, attempt + 1);
  const payerGets = amountRaw - feeRaw;
  await deps.treasury.requestSend(
    client,
    { chain: deposit.chain, asset: deposit.asset, to: destination.to, amountRaw: payerGets, purpose: "return" },
    sendKey,
  );
  return storeReturn(
    client,
    {
      ...base,
      to_address: destination.to,
      amount_raw: payerGets.toString(),
      state: "sending",
      reason: null,
      attempt: attempt + 1,
      send_key: sendKey,
    },
    deposit,
  );
}

/**
 * A deposit owed to its payer sent to the refund address the payer named in advance (a liquidation
 * address's `return_address`), on any chain: sendDepositReturn's rules otherwise (once per deposit,
 * the network fee taken, the destination screened, payable when smaller than its fee). The caller
 * has made the deposit owed first (held and returned, or taken back by a `policy_return` entry).
 */
export function sendDepositReturnTo(
  client: Queryable,
  deps: ReturnDeps,
  request: { depositId: string; returnAddress: string; networkFeeUsdMicros: bigint },
): Promise<DepositReturn> {
  return sendDepositReturn(client, deps, { ...request, origin: "liquidation" });
}
