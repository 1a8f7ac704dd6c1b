import { csvField, NotFoundError, ValidationError } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";

export const WALLETS_CSV_HEADER = "wallet_id,chain,address,path";

interface Row {
  derivation_index: number;
  wallet_id: string;
  chain: string;
  address: string;
  derivation_path: string;
}

/**
 * Writes one merchant's receive addresses as CSV, `wallet_id,chain,address,path`, header first,
 * wallets in derivation-index order. `write` gets one record per call, without a line terminator.
 * Resolves to the number of address rows written.
 */
export async function exportWalletsCsv(
  db: Queryable,
  merchantId: string,
  write: (line: string) => void,
  options: { pageSize?: number } = {},
): Promise<number> {
  const id = z.uuid().safeParse(merchantId);
  if (!id.success) throw new ValidationError("merchant id must be a UUID", "merchant_id");
  const merchant = await db.query("SELECT 1 FROM merchants WHERE id = $1", [id.data]);
  if (!merchant.rowCount) throw new NotFoundError("Merchant");

  const pageSize = options.pageSize ?? 5_000;
  write(WALLETS_CSV_HEADER);
  let written = 0;
  let after: { index: number; chain: string } = { index: -1, chain: "" };
  for (;;) {
    const { rows } = await db.query<Row>(
      `SELECT w.derivation_index, d.wallet_id, d.chain, d.address, d.derivation_path
         FROM destinations d
         JOIN wallets w ON w.id = d.wallet_id
        WHERE d.merchant_id = $1 AND (w.derivation_index, d.chain) > ($2::integer, $3::text)
        ORDER BY w.derivation_index, d.chain
        LIMIT $4`,
      [id.data, after.index, after.chain, pageSize],
    );
    for (const row of rows) {
      write([row.wallet_id, row.chain, row.address, row.derivation_path].map(csvField).join(","));
    }
    written += rows.length;
    const last = rows.at(-1);
    if (!last || rows.length < pageSize) return written;
    after = { index: last.derivation_index, chain: last.chain };
  }
}
