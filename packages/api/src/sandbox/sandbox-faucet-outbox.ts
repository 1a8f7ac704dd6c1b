import { type ChainId, iso } from "@mp/core";
import type { Queryable } from "@mp/db";
import { z } from "zod";
import type { AppDeps } from "../deps.ts";
import type { SandboxDepositResource } from "./sandbox-deposit-schemas.ts";

/** The job that sends one queued faucet transfer after the request that asked for it committed. */
export const SANDBOX_FAUCET_JOB = "sandbox.faucet-send";
export const faucetJobData = z.object({ sendId: z.uuid() });

/** Attempts before a send that keeps failing is marked FAILED (the queue's own retry limit). */
const MAX_ATTEMPTS = 10;

/** A send as stored: the resource's fields, created_at still a Date. */
type SendRow = Omit<SandboxDepositResource, "created_at"> & { created_at: Date };

const COLUMNS = `id, wallet_id, destination_id, chain, address, asset, amount, amount_raw::text AS amount_raw, status,
  tx_hash, last_error, created_at`;

function toResource(row: SendRow): SandboxDepositResource {
  return { ...row, created_at: iso(row.created_at) };
}

/**
 * Writes the send and its job in the caller's (the request's) transaction: both exist exactly when
 * the request committed, and nothing is sent before that.
 */
export async function queueFaucetSend(
  sql: Queryable,
  jobs: AppDeps["jobs"],
  send: {
    id: string;
    merchantId: string;
    walletId: string;
    destinationId: string;
    chain: ChainId;
    address: string;
    asset: string;
    amount: string;
    amountRaw: bigint;
  },
): Promise<SandboxDepositResource> {
  const { rows } = await sql.query<SendRow>(
    `INSERT INTO sandbox_faucet_sends (id, merchant_id, wallet_id, destination_id, chain, address, asset, amount, amount_raw)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${COLUMNS}`,
    [
      send.id,
      send.merchantId,
      send.walletId,
      send.destinationId,
      send.chain,
      send.address,
      send.asset,
      send.amount,
      send.amountRaw.toString(),
    ],
  );
  await jobs.send(SANDBOX_FAUCET_JOB, { sendId: send.id }, { client: sql });
  const row = rows[0];
  if (!row) throw new Error("sandbox faucet send was not stored");
  return toResource(row);
}

export async function findFaucetSend(
  sql: Queryable,
  merchantId: string,
  id: string,
): Promise<SandboxDepositResource | undefined> {
  const { rows } = await sql.query<SendRow>(
    `SELECT ${COLUMNS} FROM sandbox_faucet_sends WHERE merchant_id = $1 AND id = $2`,
    [merchantId, id],
  );
  return rows[0] ? toResource(rows[0]) : undefined;
}

/**
 * The worker's step: claims the send (QUEUED -> SENDING, committed before the faucet is called),
 * sends, records SUBMITTED with the transaction hash. A repeat of a sent job does nothing. A retry
 * that finds SENDING means a crash during the send: it may have gone out, so it is marked FAILED and
 * never sent again. A faucet error puts it back to QUEUED and throws, so the queue retries with backoff
 * (FAILED after MAX_ATTEMPTS). No database transaction is open while the faucet runs.
 */
export async function sendQueuedFaucetTransfer(
  deps: Pick<AppDeps, "db" | "faucets" | "logger">,
  data: { sendId: string },
): Promise<void> {
  const claimed = await deps.db.tx(async (c) => {
    const { rows } = await c.query<SendRow & { attempts: number }>(
      `SELECT ${COLUMNS}, attempts FROM sandbox_faucet_sends WHERE id = $1 FOR UPDATE`,
      [data.sendId],
    );
    const row = rows[0];
    if (!row) return undefined;
    if (row.status === "SENDING") {
      await c.query(
        `UPDATE sandbox_faucet_sends SET status = 'FAILED', updated_at = now(),
                last_error = 'interrupted during the send; not sent again (it may be on chain)'
          WHERE id = $1`,
        [row.id],
      );
      deps.logger.warn({ sendId: row.id, chain: row.chain }, "sandbox faucet send interrupted: marked FAILED");
      return undefined;
    }
    if (row.status !== "QUEUED") return undefined;
    await c.query(
      "UPDATE sandbox_faucet_sends SET status = 'SENDING', attempts = attempts + 1, updated_at = now() WHERE id = $1",
      [row.id],
    );
    return row;
  });
  if (!claimed) return;
  const faucet = deps.faucets[claimed.chain];
  try {
    if (!faucet) throw new Error(`${claimed.chain} has no local sandbox chain in this process`);
    const { txHash } = await faucet.send(claimed.address, claimed.asset, BigInt(claimed.amount_raw));
    await deps.db.query(
      `UPDATE sandbox_faucet_sends SET status = 'SUBMITTED', tx_hash = $2, last_error = NULL, updated_at = now()
        WHERE id = $1 AND status = 'SENDING'`,
      [claimed.id, txHash],
    );
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const final = !faucet || claimed.attempts + 1 >= MAX_ATTEMPTS;
    await deps.db.query(
      "UPDATE sandbox_faucet_sends SET status = $2, last_error = $3, updated_at = now() WHERE id = $1 AND status = 'SENDING'",
      // The detail goes to the log only; the merchant sees a plain reason.
      [claimed.id, final ? "FAILED" : "QUEUED", faucet ? "the sandbox chain did not answer" : "no sandbox chain"],
    );
    deps.logger.warn({ sendId: claimed.id, chain: claimed.chain, err: message }, "sandbox faucet send failed");
    if (!final) throw error;
  }
}
