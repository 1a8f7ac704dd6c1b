import { randomUUID } from "node:crypto";
import type { Queryable } from "@mp/db";
import { insertMerchantWithCustomer } from "./db-fixtures.ts";

/**
 * Deposits due for crediting without a chain (the credit bench, the confirm-batch tests): `count`
 * merchants with a fee each (1% + 0.01 USD), a customer, a wallet and a BASE address, then PENDING
 * USDC deposits spread over them, all with their confirmations at `height + 5`.
 */

/** One merchant's BASE address, with its wallet and customer. */
export interface Destination {
  id: string;
  walletId: string;
  merchantId: string;
  customerId: string;
}

export async function insertMerchantDestinations(db: Queryable, count: number, name: string): Promise<Destination[]> {
  const out: Destination[] = [];
  for (let i = 0; i < count; i++) {
    const { merchantId, customerId } = await insertMerchantWithCustomer(db, `${name} ${i}`, {
      feeBps: 100,
      feeFixedMicros: 10_000n,
    });
    const walletId = randomUUID();
    const id = randomUUID();
    await db.query(
      "INSERT INTO wallets (id, merchant_id, customer_id, label, derivation_index) VALUES ($1, $2, $3, 'bench', 0)",
      [walletId, merchantId, customerId],
    );
    // Unique across calls on one database (a test file makes several sets).
    const address = `0x${id.replaceAll("-", "").padStart(40, "0")}`;
    await db.query(
      `INSERT INTO destinations (id, wallet_id, merchant_id, chain, address, address_key, derivation_path)
       VALUES ($1, $2, $3, 'BASE', $4, $4, 'm/bench')`,
      [id, walletId, merchantId, address],
    );
    out.push({ id, walletId, merchantId, customerId });
  }
  return out;
}

export async function insertDueDeposits(
  db: Queryable,
  to: Destination[],
  count: number,
  height: number,
): Promise<void> {
  await db.query(
    `INSERT INTO deposits (id, merchant_id, wallet_id, destination_id, customer_id, chain, asset, contract_address,
       from_address, to_address, tx_hash, position, block_height, block_hash, decimals, amount_raw, required_confirmations)
     SELECT gen_random_uuid(), d.merchant_id, d.wallet_id, d.destination_id, d.customer_id, 'BASE', 'USDC',
            '0x' || lpad('a', 40, '0'), '0x' || lpad('b', 40, '0'), '0x' || lpad(to_hex(d.ord), 40, '0'),
            '0x' || md5(random()::text) || md5(random()::text), g::text, $4::bigint, '0xblock' || $4, 6,
            1000000 + g, 3
       FROM generate_series(1, $1::int) AS g
       JOIN unnest($2::uuid[], $3::uuid[]) WITH ORDINALITY AS x(destination_id, wallet_id, ord) ON x.ord = 1 + g % $5
       JOIN LATERAL (SELECT w.merchant_id, w.customer_id, x.wallet_id, x.destination_id, x.ord
                       FROM wallets w WHERE w.id = x.wallet_id) d ON true`,
    [count, to.map((d) => d.id), to.map((d) => d.walletId), height, to.length],
  );
  await db.query(
    `INSERT INTO chain_cursors (chain, indexed_height, head_height) VALUES ('BASE', $1, $1)
     ON CONFLICT (chain) DO UPDATE SET indexed_height = $1, head_height = $1`,
    [height + 5],
  );
}
