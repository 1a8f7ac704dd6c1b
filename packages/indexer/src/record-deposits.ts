import type { ChainId, ObservedTransfer } from "@mp/core";
import type { Queryable } from "@mp/db";
import { appendDepositEvents } from "@mp/events";
import { transferColumns } from "./transfer-columns.ts";
import { recordTreasuryReceipts } from "./treasury-receipts.ts";
import { recordTreasuryUtxos } from "./treasury-utxos.ts";

/**
 * Inserts the observed transfers as PENDING deposits, each resolved to its wallet, merchant and
 * customer through `destinations` (chain, address_key); our own custody moves (a treasury
 * attempt carrying a top-up or a sweep) are never deposits, while a payout of ours that pays a
 * deposit address (an operator's send there) is one, credited to the address's owner. A transfer already recorded (a rescan)
 * is skipped by the live-identity index (migrations/0023), so this is safe to repeat; a transfer
 * to an address that has no destination is dropped. Each new row gets its `deposit.pending` event in
 * the same transaction. Returns how many rows were new. Outputs paying a Bitcoin treasury address
 * become treasury_utxos rows too (treasury-utxos.ts), and every transfer paying a treasury address,
 * on any chain, a treasury_receipts row (treasury-receipts.ts).
 */
export async function recordDeposits(
  q: Queryable,
  chain: ChainId,
  requiredConfirmations: number,
  transfers: readonly ObservedTransfer[],
): Promise<number> {
  if (transfers.length === 0) return 0;
  await recordTreasuryUtxos(q, chain, transfers);
  await recordTreasuryReceipts(q, chain, requiredConfirmations, transfers);
  const result = await q.query<{ id: string }>(
    `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, contract_address,
       from_address, to_address, tx_hash, position, block_height, block_hash, decimals, amount_raw,
       required_confirmations)
     SELECT gen_random_uuid(), d.merchant_id, d.wallet_id, d.id, w.customer_id, $1, t.asset, t.contract_address,
            t.from_address, t.to_address, t.tx_hash, t.position, t.block_height, t.block_hash, t.decimals,
            t.amount_raw, $2
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                   $10::bigint[], $11::text[], $12::int[], $13::numeric[])
            WITH ORDINALITY AS t(address_key, asset, contract_address, from_address, to_address, tx_hash, position,
                                 block_height, block_hash, decimals, amount_raw, ord)
       JOIN destinations d ON d.chain = $1 AND d.address_key = t.address_key
       JOIN wallets w ON w.id = d.wallet_id
      WHERE t.amount_raw > 0
        -- Our own custody move (a treasury gas top-up of a deposit address, a sweep) is never a
        -- merchant's deposit. Its attempt is stored before broadcast, so it is always here before the
        -- indexer can see it. A payout of ours (an operator's send, a transfer) that pays a deposit
        -- address is money arriving there like any other: the address's owner's deposit (issue 27).
        AND NOT EXISTS (SELECT 1 FROM treasury_attempts x
                          JOIN treasury_attempt_sends xs ON xs.attempt_id = x.id
                          JOIN treasury_sends s ON s.id = xs.send_id
                         WHERE x.chain = $1 AND x.tx_hash = t.tx_hash AND s.purpose IN ('top_up', 'sweep'))
      ORDER BY t.ord
     ON CONFLICT (chain, tx_hash, position) WHERE status <> 'REVERSED' DO NOTHING
     RETURNING id`,
    [chain, requiredConfirmations, ...transferColumns(chain, transfers)],
  );
  await appendDepositEvents(
    q,
    result.rows.map((row) => ({ type: "deposit.pending" as const, depositId: row.id })),
  );
  return result.rows.length;
}
