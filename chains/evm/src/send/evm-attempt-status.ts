import type { ChainId } from "@mp/core";
import type { Database } from "@mp/db";
import type { AttemptStatus, StoredAttempt } from "@mp/treasury/ports";
import type { z } from "zod";
import { chainMoved } from "../rpc-failure.ts";
import { knownTransactionAnswer, statusReceiptAnswer } from "./evm-answers.ts";
import type { EvmNode } from "./evm-node.ts";

const receipt = (node: EvmNode, hash: string) =>
  node.rpc("eth_getTransactionReceipt", [hash], statusReceiptAnswer.nullable());

/** A receipt's verdict: mined when the transaction did what it should, failed when it reverted. */
function landed(attempt: StoredAttempt, mined: z.infer<typeof statusReceiptAnswer>): AttemptStatus {
  const { blockNumber: blockHeight, blockHash } = mined;
  if (mined.status === "0x1") return { state: "mined", blockHeight, blockHash };
  return {
    state: "failed",
    blockHeight,
    blockHash,
    reason: `reverted on chain (transaction ${attempt.txHash}, block ${blockHeight})`,
  };
}

/**
 * Where an attempt stands: mined or reverted (its receipt), pending (in the mempool), expired
 * (another of our transactions with its nonce landed), or unknown.
 */
export async function evmAttemptStatus(
  node: EvmNode,
  db: Database,
  chain: ChainId,
  attempt: StoredAttempt,
): Promise<AttemptStatus> {
  const mined = await receipt(node, attempt.txHash);
  if (mined) return landed(attempt, mined);
  const known = await node.rpc("eth_getTransactionByHash", [attempt.txHash], knownTransactionAnswer);
  if (known?.blockHash) {
    // In a block whose receipt the node did not serve a moment ago (anvil under load does so for tens
    // of ms). Never pending: that would start a fee bump of a transaction that has landed.
    const late = await receipt(node, attempt.txHash);
    if (late) return landed(attempt, late);
    throw chainMoved(`transaction ${attempt.txHash} is in block ${known.blockHash} but has no receipt`);
  }
  if (known) return { state: "pending" };
  // Not in a block nor in the mempool. It can never land once another of our transactions with
  // its nonce has: then it is expired (a replacement outbid it, or its send was signed again).
  const nonce = Number(attempt.guard.nonce);
  const { rows } = await db.query<{ tx_hash: string }>(
    `SELECT tx_hash FROM treasury_attempts
      WHERE chain = $1 AND from_address = $2 AND guard->>'nonce' = $3 AND id <> $4`,
    [chain, attempt.from, String(nonce), attempt.id],
  );
  for (const row of rows) {
    if (await receipt(node, row.tx_hash)) {
      return { state: "expired", reason: `nonce ${nonce} was used by ${row.tx_hash}` };
    }
  }
  return { state: "unknown" };
}
