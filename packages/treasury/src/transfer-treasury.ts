import type { Queryable } from "@mp/db";
import type { EndedSend, TransferTreasury } from "@mp/transfers";
import type { SendCheckOf } from "./send-check.ts";
import { requestSend } from "./send-requests.ts";

/**
 * The treasury's side of the transfers' payouts: a payout is a send of purpose `transfer` whose
 * idempotency key is the transfer id (a deposit's return: purpose `return`, its key
 * `deposit-return:<deposit id>`), picked up and confirmed by the signer's pipeline; each checked by
 * its chain's family (`sendCheckOf`, the registry's) before it is queued.
 */
export function createTransferTreasury(sendCheckOf: SendCheckOf): TransferTreasury {
  return {
    async requestSend(sql, { purpose, ...payout }, idempotencyKey) {
      await requestSend(sql, { ...payout, purpose: purpose ?? "transfer", idempotencyKey }, sendCheckOf(payout.chain));
    },
    endedSends,
  };
}

async function endedSends(sql: Queryable, idempotencyKeys: readonly string[]): Promise<Map<string, EndedSend>> {
  const result = await sql.query<{ idempotency_key: string; state: EndedSend["state"]; reason: string | null }>(
    `SELECT idempotency_key, state, reason FROM treasury_sends
      WHERE purpose IN ('transfer', 'return') AND idempotency_key = ANY($1::text[]) AND state IN ('confirmed', 'failed')`,
    [idempotencyKeys],
  );
  return new Map(result.rows.map((row) => [row.idempotency_key, { state: row.state, reason: row.reason }]));
}
