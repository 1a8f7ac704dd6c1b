import { once } from "node:events";
import { type DepositResource, type DepositSearch, type IndexerState, listDepositsAfter } from "@mp/api";
import { csvField } from "@mp/core";
import type { Database } from "@mp/db";
import type { Response } from "express";

/** Rows read per keyset page while the file is written. */
const PAGE = 500;

export const DEPOSITS_CSV_COLUMNS = [
  "id",
  "created_at",
  "chain",
  "asset",
  "amount",
  "amount_raw",
  "amount_usd",
  "fee_usd",
  "net_amount_usd",
  "status",
  "hold_status",
  "held_reason",
  "confirmations",
  "tx_hash",
  "from_address",
  "to_address",
  "wallet_id",
  "customer_id",
  "confirmed_at",
] as const satisfies ReadonlyArray<keyof DepositResource>;

export function depositCsvLine(deposit: DepositResource): string {
  return DEPOSITS_CSV_COLUMNS.map((column) => csvField(String(deposit[column] ?? ""))).join(",");
}

/**
 * The merchant's deposits matching `search`, newest first, as CSV (the deposits page's "Download
 * CSV"): the exact decimal strings of the API, one keyset page at a time, waiting for the socket.
 */
export async function streamDepositsCsv(
  db: Database,
  res: Response,
  merchantId: string,
  search: DepositSearch,
  states: readonly IndexerState[],
): Promise<number> {
  res
    .status(200)
    .type("text/csv; charset=utf-8")
    .set("Content-Disposition", `attachment; filename="deposits-${merchantId}.csv"`);
  res.write(`${DEPOSITS_CSV_COLUMNS.join(",")}\n`);
  let written = 0;
  let after: string | undefined;
  for (;;) {
    const page = await listDepositsAfter(db, merchantId, { ...search, limit: PAGE, after }, states);
    for (const deposit of page.items) {
      if (!res.write(`${depositCsvLine(deposit)}\n`)) await once(res, "drain");
      written += 1;
    }
    if (!page.next) break;
    after = page.next;
  }
  res.end();
  return written;
}
