import { type ChainsConfig, unitsToDecimal } from "@mp/core";
import type { Queryable } from "@mp/db";
import { parseRate } from "@mp/providers";

/** Transfers whose spread one request of the transfers page may ask for (a page holds 50). */
export const SPREADS_PER_REQUEST = 100;

/** What a quote recorded of its pricing (transfer_quotes), all that a spread is computed from. */
export interface PricingRow {
  spread_bps: number;
  source_amount: string;
  fee_amount: string;
  source_decimals: number;
  source_usd_rate: string;
  destination_amount: string;
  destination_decimals: number;
  destination_asset: string;
  destination_usd_rate: string;
}

/**
 * What the rate's spread kept of a transfer, in the destination's units: what the payer's amount
 * less the fee would have bought at the market rates the quote recorded, less what the payee gets
 * (exact bigint arithmetic, rounded down). The fee alone hides it: 40.00 USD with no fee paying
 * 39.80 USDC at a 50 bps spread.
 */
export function spreadOf(row: PricingRow): string {
  const source = parseRate(row.source_usd_rate);
  const destination = parseRate(row.destination_usd_rate);
  if (!source || !destination || destination.units === 0n) return "0";
  const net = BigInt(row.source_amount) - BigInt(row.fee_amount);
  const market =
    (net * source.units * 10n ** BigInt(destination.scale + row.destination_decimals)) /
    (destination.units * 10n ** BigInt(source.scale + row.source_decimals));
  const spread = market - BigInt(row.destination_amount);
  return unitsToDecimal(spread > 0n ? spread : 0n, row.destination_decimals, 0);
}

/** The spread of each of the merchant's transfers `ids` (another merchant's are simply absent). */
export async function transferSpreads(sql: Queryable, merchantId: string, ids: readonly string[]) {
  const { rows } = await sql.query<PricingRow & { transfer_id: string }>(
    `SELECT t.id AS transfer_id, q.spread_bps, q.source_amount::text, q.fee_amount::text, q.source_decimals,
            q.source_usd_rate, q.destination_amount::text, q.destination_decimals, q.destination_asset,
            q.destination_usd_rate
       FROM transfers t JOIN transfer_quotes q ON q.id = t.quote_id
      WHERE t.merchant_id = $1 AND t.id = ANY($2::uuid[])`,
    [merchantId, ids],
  );
  return rows.map((row) => ({
    transfer_id: row.transfer_id,
    spread_bps: row.spread_bps,
    spread: { value: spreadOf(row), currency: row.destination_asset },
  }));
}

/** Each configured chain's network (mainnet, testnet, regtest: a local node), for explorer links. */
export function chainNetworksView(chains: ChainsConfig, localChains: ReadonlySet<string> = new Set()) {
  return {
    // A chain the local sandbox runs (it has a faucet) is a local node whatever network its
    // addresses are encoded for: no public explorer knows its transactions.
    items: Object.values(chains).map((config) => ({
      chain: config.chain,
      network: localChains.has(config.chain) ? ("regtest" as const) : config.network,
    })),
  };
}
