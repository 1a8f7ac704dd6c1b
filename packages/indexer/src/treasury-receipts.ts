import { type ChainId, type Logger, normalizeAddress, type ObservedTransfer, toUsdMicros } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { postFloatReceipt, postFloatReversal } from "@mp/ledger";
import type { RateProvider } from "@mp/providers";
import { transferColumns } from "./transfer-columns.ts";

/**
 * Transfers paying a treasury address (migrations/0103), on every chain: recorded like deposits
 * (PENDING, confirmed at depth, reversed by a reorg) but as treasury_receipts, never deposits. A
 * transfer made by one of our own treasury transactions (its hash is a stored attempt: Bitcoin
 * change) or from one of our deposit addresses (a sweep) is `own`; any other is an operator's top-up, `float`, posted to the ledger's
 * operator_float account when confirmed. Safe to repeat (the live-identity index). Returns rows written.
 */
export async function recordTreasuryReceipts(
  q: Queryable,
  chain: ChainId,
  requiredConfirmations: number,
  transfers: readonly ObservedTransfer[],
): Promise<number> {
  const paid = transfers.filter((t) => t.amountRaw > 0n);
  if (paid.length === 0) return 0;
  const result = await q.query(
    `INSERT INTO treasury_receipts (id, chain, asset, contract_address, from_address, to_address, tx_hash, position,
       block_height, block_hash, decimals, amount_raw, required_confirmations, kind)
     SELECT gen_random_uuid(), $1, t.asset, t.contract_address, t.from_address, t.to_address, t.tx_hash, t.position,
            t.block_height, t.block_hash, t.decimals, t.amount_raw, $2,
            CASE WHEN EXISTS (SELECT 1 FROM treasury_attempts x WHERE x.chain = $1 AND x.tx_hash = t.tx_hash)
                   -- From one of our deposit addresses: only a sweep of ours moves money out of one.
                   OR EXISTS (SELECT 1 FROM destinations d WHERE d.chain = $1 AND d.address_key = t.from_key)
                 THEN 'own' ELSE 'float' END
       FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::text[],
                   $10::bigint[], $11::text[], $12::int[], $13::numeric[], $14::text[])
            AS t(address_key, asset, contract_address, from_address, to_address, tx_hash, position,
                 block_height, block_hash, decimals, amount_raw, from_key)
      WHERE EXISTS (SELECT 1 FROM treasury_addresses a WHERE a.chain = $1 AND a.address_key = t.address_key)
     ON CONFLICT (chain, tx_hash, position) WHERE status <> 'REVERSED' DO NOTHING`,
    [
      chain,
      requiredConfirmations,
      ...transferColumns(chain, paid),
      paid.map((t) => (t.from ? normalizeAddress(chain, t.from) : null)),
    ],
  );
  return result.rowCount ?? 0;
}

export interface ConfirmReceiptsOptions {
  db: Database;
  chain: ChainId;
  head: number;
  rates: RateProvider;
  logger: Logger;
  fence: (q: Queryable) => Promise<void>;
}

/**
 * Confirms the chain's PENDING receipts deep enough at `head`: `own` ones simply, `float` ones with
 * their USD value at the provider's rate now and a float_receipt entry. A float receipt whose asset
 * has no rate waits, PENDING, for one (never valued at a guess). Returns how many were confirmed.
 */
export async function confirmTreasuryReceipts(options: ConfirmReceiptsOptions): Promise<number> {
  const { db, chain, head } = options;
  const deep = "chain = $1 AND status = 'PENDING' AND block_height <= $2::bigint + 1 - required_confirmations";
  // Read outside any transaction first: most ticks have nothing to confirm and open none.
  const assets = await db.query<{ asset: string; kind: string }>(
    `SELECT DISTINCT asset, kind FROM treasury_receipts WHERE ${deep}`,
    [chain, head],
  );
  if (assets.rows.length === 0) return 0;
  const rates = new Map<string, string>();
  for (const { asset } of assets.rows.filter((row) => row.kind === "float")) {
    if (rates.has(asset)) continue;
    try {
      rates.set(asset, (await options.rates.rateFor(asset)).rate);
    } catch (error) {
      options.logger.warn({ chain, asset, err: String(error) }, "no USD rate: the operator's float receipt waits");
    }
  }
  return db.tx(async (client) => {
    await options.fence(client);
    const { rows } = await client.query<{
      id: string;
      kind: string;
      asset: string;
      decimals: number;
      amount_raw: string;
    }>(
      `SELECT id, kind, asset, decimals, amount_raw::text FROM treasury_receipts WHERE ${deep}
        ORDER BY block_height, id FOR UPDATE`,
      [chain, head],
    );
    let confirmed = 0;
    for (const row of rows) {
      const rate = rates.get(row.asset);
      if (row.kind === "float" && rate === undefined) continue;
      let entryId: string | null = null;
      let usd: bigint | null = null;
      if (row.kind === "float" && rate !== undefined) {
        usd = toUsdMicros(BigInt(row.amount_raw), row.decimals, rate);
        entryId = (await postFloatReceipt(client, { receiptId: row.id, amountUsdMicros: usd })).entryId;
      }
      await client.query(
        `UPDATE treasury_receipts SET status = 'CONFIRMED', usd_rate = $2, amount_usd_micros = $3, entry_id = $4,
                confirmed_at = now(), updated_at = now()
          WHERE id = $1`,
        [row.id, row.kind === "float" ? rate : null, usd?.toString() ?? null, entryId],
      );
      confirmed++;
    }
    return confirmed;
  });
}

/** A reorg above `ancestor`: live receipts there become REVERSED, a posted float gets its reversal entry. */
export async function rollBackTreasuryReceipts(q: Queryable, chain: ChainId, ancestor: number): Promise<number> {
  const { rows } = await q.query<{ id: string; status: string }>(
    `SELECT id, status FROM treasury_receipts
      WHERE chain = $1 AND block_height > $2 AND status IN ('PENDING', 'CONFIRMED')
      ORDER BY block_height, id FOR UPDATE`,
    [chain, ancestor],
  );
  for (const row of rows) {
    const reversal = row.status === "CONFIRMED" ? await postFloatReversal(q, row.id) : null;
    await q.query(
      `UPDATE treasury_receipts SET status = 'REVERSED', reversed_at = now(), updated_at = now(), reversal_entry_id = $2
        WHERE id = $1`,
      [row.id, reversal?.entryId ?? null],
    );
  }
  return rows.length;
}
