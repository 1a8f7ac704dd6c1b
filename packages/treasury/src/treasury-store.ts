import { type ChainId, ConfigError, normalizeAddress } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { SendState } from "./send-requests.ts";

/** One of the treasury's own addresses (treasury_addresses). */
export interface TreasuryAddress {
  chain: ChainId;
  purpose: "send" | "change";
  path: string;
  address: string;
}

/**
 * Records the signer's send addresses at start. A database whose treasury already sends from another
 * address on a chain belongs to another TREASURY_MNEMONIC: its stored attempts and nonces are that
 * address's, so the start is refused rather than signing with keys that match none of them.
 */
export async function recordTreasuryAddresses(q: Queryable, addresses: readonly TreasuryAddress[]): Promise<void> {
  for (const entry of addresses) {
    const { rows } = await q.query<{ address: string }>(
      "SELECT address FROM treasury_addresses WHERE chain = $1 AND purpose = 'send' AND path = $2 AND address_key <> $3",
      [entry.chain, entry.path, normalizeAddress(entry.chain, entry.address)],
    );
    if (rows[0]) {
      throw new ConfigError(
        "TREASURY_MNEMONIC",
        `this database's ${entry.chain} treasury sends from ${rows[0].address}, another mnemonic's address; start with the treasury mnemonic it was created with`,
      );
    }
    await q.query(
      `INSERT INTO treasury_addresses (chain, purpose, path, address, address_key) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (chain, address_key) DO NOTHING`,
      [entry.chain, entry.purpose, entry.path, entry.address, normalizeAddress(entry.chain, entry.address)],
    );
  }
}

export async function listTreasuryAddresses(q: Queryable): Promise<TreasuryAddress[]> {
  const { rows } = await q.query<TreasuryAddress>(
    `SELECT chain, purpose, path, address FROM treasury_addresses
      ORDER BY chain, purpose DESC, created_at, path`,
  );
  return rows;
}

/** One asset's balance as the signer last read it from the chain. */
export interface TreasuryBalance {
  chain: ChainId;
  asset: string;
  amountRaw: bigint;
  decimals: number;
  observedAt: Date;
}

export async function storeTreasuryBalances(
  q: Queryable,
  chain: ChainId,
  balances: ReadonlyArray<{ asset: string; amountRaw: bigint; decimals: number }>,
): Promise<void> {
  for (const balance of balances) {
    await q.query(
      `INSERT INTO treasury_balances (chain, asset, amount_raw, decimals, observed_at) VALUES ($1, $2, $3, $4, now())
       ON CONFLICT (chain, asset) DO UPDATE
         SET amount_raw = EXCLUDED.amount_raw, decimals = EXCLUDED.decimals, observed_at = EXCLUDED.observed_at`,
      [chain, balance.asset, balance.amountRaw.toString(), balance.decimals],
    );
  }
}

export async function readTreasuryBalances(q: Queryable): Promise<TreasuryBalance[]> {
  const { rows } = await q.query<{
    chain: ChainId;
    asset: string;
    amount_raw: string;
    decimals: number;
    observed_at: Date;
  }>(
    "SELECT chain, asset, amount_raw::text AS amount_raw, decimals, observed_at FROM treasury_balances ORDER BY chain, asset",
  );
  return rows.map((row) => ({
    chain: row.chain,
    asset: row.asset,
    amountRaw: BigInt(row.amount_raw),
    decimals: Number(row.decimals),
    observedAt: row.observed_at,
  }));
}

/** Sends per chain and state (the `treasury_sends` metric). */
export async function countSendsByState(
  q: Queryable,
): Promise<Array<{ chain: ChainId; state: SendState; count: number }>> {
  const { rows } = await q.query<{ chain: ChainId; state: SendState; count: string }>(
    "SELECT chain, state, count(*)::text AS count FROM treasury_sends GROUP BY chain, state",
  );
  return rows.map((row) => ({ chain: row.chain, state: row.state, count: Number(row.count) }));
}

/** Per chain, how long its oldest send not yet confirmed or failed has waited, by the database's clock. */
export async function oldestOpenSendAges(q: Queryable): Promise<Array<{ chain: ChainId; ageSeconds: number }>> {
  const { rows } = await q.query<{ chain: ChainId; age: string }>(
    `SELECT chain, extract(epoch FROM now() - min(created_at))::text AS age FROM treasury_sends
      WHERE state NOT IN ('confirmed', 'failed') GROUP BY chain`,
  );
  return rows.map((row) => ({ chain: row.chain, ageSeconds: Math.max(0, Number(row.age)) }));
}
