import { unitsToDecimal } from "@mp/core";
import type { TreasurySend } from "./send-requests.ts";
import type { TreasuryBalance } from "./treasury-store.ts";

/**
 * A send as `payments treasury pending|send --json` and the dashboard's treasury page show it: the
 * amount as an exact decimal string when the asset's decimals are known, always the raw units.
 */
export function treasurySendJson(
  send: TreasurySend,
  decimals: number | undefined,
  extra: Record<string, unknown> = {},
) {
  return {
    id: send.id,
    chain: send.chain,
    asset: send.asset,
    to: send.to,
    amount: decimals === undefined ? null : unitsToDecimal(send.amountRaw, decimals, 0),
    amount_raw: send.amountRaw.toString(),
    purpose: send.purpose,
    idempotency_key: send.idempotencyKey,
    state: send.state,
    reason: send.reason,
    tx_hash: send.txHash,
    created_at: send.createdAt.toISOString(),
    updated_at: send.updatedAt.toISOString(),
    confirmed_at: send.confirmedAt?.toISOString() ?? null,
    ...extra,
  };
}

/** A treasury balance as `payments treasury balances --json` and the dashboard show it. */
export function treasuryBalanceJson(balance: TreasuryBalance) {
  return {
    chain: balance.chain,
    asset: balance.asset,
    amount: unitsToDecimal(balance.amountRaw, balance.decimals, 0),
    amount_raw: balance.amountRaw.toString(),
    observed_at: balance.observedAt.toISOString(),
  };
}
