import type { Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import { appendDepositEvents } from "@mp/events";
import { postDepositReturn } from "@mp/ledger";
import type { EndedSend, TransferTreasury } from "../transfer-treasury.ts";

interface SendingReturn {
  deposit_id: string;
  merchant_id: string;
  owed_usd_micros: string;
  send_key: string;
}

/**
 * Records how one return's send ended, in its own transaction under the return row's lock (two
 * workers, or a replay after a crash, find it no longer `sending` and do nothing):
 * confirmed -> returns_payable moves to payout_clearing (once per deposit), the return is `returned`
 * and the deposit's `deposit.return_sent` event is appended; failed (nothing left the treasury but a
 * fee) -> `payable` again with the chain's reason: still owed, sent again only when asked.
 */
async function settleOne(client: Queryable, depositId: string, sendKey: string, ended: EndedSend): Promise<boolean> {
  // The deposit first, then its return: the order `deposits return` and a reorg's roll-back lock in.
  await client.query("SELECT 1 FROM deposits WHERE id = $1 FOR UPDATE", [depositId]);
  const { rows } = await client.query<SendingReturn>(
    `SELECT deposit_id, merchant_id, owed_usd_micros::text, send_key FROM deposit_returns
      WHERE deposit_id = $1 AND state = 'sending' AND send_key = $2 FOR UPDATE`,
    [depositId, sendKey],
  );
  const row = rows[0];
  if (!row) return false;
  if (ended.state === "failed") {
    await client.query(
      "UPDATE deposit_returns SET state = 'payable', reason = $2, updated_at = now() WHERE deposit_id = $1",
      [depositId, `the return's send failed: ${ended.reason ?? "no reason given"}; it stays payable`],
    );
    return true;
  }
  const { entryId } = await postDepositReturn(client, {
    depositId,
    merchantId: row.merchant_id,
    owedUsdMicros: BigInt(row.owed_usd_micros),
  });
  await client.query(
    `UPDATE deposit_returns SET state = 'returned', entry_id = $2, reason = NULL, returned_at = now(), updated_at = now()
      WHERE deposit_id = $1`,
    [depositId, entryId],
  );
  await appendDepositEvents(client, [{ type: "deposit.return_sent", depositId }]);
  return true;
}

/**
 * One pass over the returns whose send is under way (worker role, with the transfers): those whose
 * send the treasury reports confirmed or failed are settled (settleOne). Returns how many moved.
 * A send that a reorg took back before its confirmations is not ended: its return stays `sending`.
 */
export async function settleDepositReturns(
  db: Database,
  treasury: TransferTreasury,
  batch: number,
  logger?: Logger,
): Promise<number> {
  const { rows } = await db.query<SendingReturn>(
    `SELECT deposit_id, merchant_id, owed_usd_micros::text, send_key FROM deposit_returns
      WHERE state = 'sending' ORDER BY created_at LIMIT $1`,
    [batch],
  );
  if (rows.length === 0) return 0;
  const ended = await treasury.endedSends(
    db,
    rows.map((r) => r.send_key),
  );
  let settled = 0;
  for (const row of rows) {
    const end = ended.get(row.send_key);
    if (!end) continue;
    if (await db.tx((client) => settleOne(client, row.deposit_id, row.send_key, end))) {
      settled++;
      logger?.info({ depositId: row.deposit_id, state: end.state, reason: end.reason }, "deposit return settled");
    }
  }
  return settled;
}
