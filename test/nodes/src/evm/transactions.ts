import type { Address, Hex } from "viem";
import type { AnvilNode } from "./anvil-node.ts";

/** What a helper's transaction became once mined. */
export interface MinedTransaction {
  txHash: Hex;
  blockNumber: number;
  blockHash: Hex;
  status: "success" | "reverted";
}

const RECEIPT_TIMEOUT_MS = 60_000;

/**
 * Waits for the receipt of `txHash`: at once under automine, after the next block under interval
 * mining. Polls quickly (anvil is local) instead of viem's block-watching default.
 */
export async function minedTransaction(node: AnvilNode, txHash: Hex): Promise<MinedTransaction> {
  const deadline = Date.now() + RECEIPT_TIMEOUT_MS;
  for (;;) {
    const receipt = await node.publicClient.getTransactionReceipt({ hash: txHash }).catch((error: unknown) => {
      if (error instanceof Error && error.name === "TransactionReceiptNotFoundError") return null;
      throw error;
    });
    if (receipt) {
      return {
        txHash,
        blockNumber: Number(receipt.blockNumber),
        blockHash: receipt.blockHash,
        status: receipt.status,
      };
    }
    if (Date.now() > deadline) throw new Error(`transaction ${txHash} not mined in ${RECEIPT_TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/**
 * Sends `data`/`value` from an unlocked dev account with eth_sendTransaction: anvil signs, so no
 * local signing or gas estimation round trip (fast for seeding). An explicit `gas` also lets a
 * transaction that will revert be mined instead of refused at estimation.
 */
export async function sendFromUnlocked(
  node: AnvilNode,
  tx: { from: Address; to: Address; data?: Hex; value?: bigint; gas?: bigint },
): Promise<Hex> {
  return node.walletClient.request({
    method: "eth_sendTransaction",
    params: [
      {
        from: tx.from,
        to: tx.to,
        ...(tx.data === undefined ? {} : { data: tx.data }),
        ...(tx.value === undefined ? {} : { value: toQuantity(tx.value) }),
        ...(tx.gas === undefined ? {} : { gas: toQuantity(tx.gas) }),
      },
    ],
  });
}

function toQuantity(value: bigint): Hex {
  return `0x${value.toString(16)}`;
}
