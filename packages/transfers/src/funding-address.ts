import type { Logger } from "@mp/core";
import type { Database, Queryable } from "@mp/db";
import type { FundingWallets, ReservedFundingSlot } from "./funding-wallets.ts";
import { DUE_FOR_TRY, eachTransfer, selectTransferRefs } from "./transfer-retries.ts";
import { findIntentOfTransfer, findTransfer, type IntentRow, type TransferRow } from "./transfer-store.ts";

/**
 * Gives a CRYPTO_DEPOSIT intent its address: a wallet of its own (purpose TRANSFER_FUNDING) at the
 * slot reserved for it, made like a customer's wallet (same derivation, so the indexer watches its
 * addresses and the sweepers sweep them; an index is never used twice), and the intent points at the
 * wallet's destination on the quoted network. The caller holds the transfer's lock.
 */
export async function openFundingAddress(
  sql: Queryable,
  transfer: TransferRow,
  intent: IntentRow,
  reserved: ReservedFundingSlot,
): Promise<void> {
  const wallet = await reserved.openWallet(sql, {
    merchantId: transfer.merchant_id,
    customerId: transfer.customer_id,
    label: `Funding of transfer ${transfer.id}`,
  });
  const destination = wallet.destinations.find((d) => d.chain === intent.network);
  if (!destination) throw new Error(`the funding wallet of transfer ${transfer.id} has no ${intent.network} address`);
  await sql.query("UPDATE funding_intents SET deposit_destination_id = $2, updated_at = now() WHERE id = $1", [
    intent.id,
    destination.id,
  ]);
}

/**
 * The CRYPTO_DEPOSIT intents created while no address was available at once (spec 2.9: PENDING
 * without instructions while being provisioned) get one: a slot is reserved outside any transaction
 * (a Solana pool that is still dry leaves the intent for the next pass), then, under the transfer's
 * lock, used if the intent still waits for it; otherwise given back.
 */
export async function provisionFundingAddresses(
  db: Database,
  wallets: FundingWallets,
  limit: number,
  logger?: Logger,
): Promise<number> {
  const refs = await selectTransferRefs(
    db,
    `SELECT i.transfer_id AS id, i.merchant_id FROM funding_intents i JOIN transfers t ON t.id = i.transfer_id
      WHERE i.method = 'CRYPTO_DEPOSIT' AND i.deposit_destination_id IS NULL AND i.status = 'PENDING' AND ${DUE_FOR_TRY}
      ORDER BY i.created_at LIMIT $1`,
    [limit],
  );
  return eachTransfer(
    db,
    refs,
    "funding address",
    async (ref) => {
      const reserved = await wallets.reserve(ref.merchantId).catch(() => undefined);
      if (!reserved) return false;
      try {
        const used = await db.tx(async (sql) => {
          const transfer = await findTransfer(sql, ref.merchantId, ref.id, "FOR UPDATE");
          const intent = transfer && (await findIntentOfTransfer(sql, transfer.id, "FOR UPDATE"));
          if (!transfer || intent?.status !== "PENDING" || intent.deposit_destination_id !== null) return false;
          await openFundingAddress(sql, transfer, intent, reserved);
          return true;
        });
        if (!used) reserved.release();
        return used;
      } catch (error) {
        reserved.release();
        throw error;
      }
    },
    { logger },
  );
}
