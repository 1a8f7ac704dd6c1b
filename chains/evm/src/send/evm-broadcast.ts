import type { ChainId } from "@mp/core";
import { BroadcastRefusedError, type StoredAttempt } from "@mp/treasury/ports";
import { BaseError } from "viem";
import { anyAnswer, dataAnswer } from "./evm-answers.ts";
import type { EvmNode } from "./evm-node.ts";
import { refusedForGood } from "./evm-refusals.ts";

/** Sends the signed transaction; the node already holding it is success, a refusal for good a BroadcastRefusedError. */
export async function broadcastEvm(node: EvmNode, chain: ChainId, attempt: StoredAttempt): Promise<void> {
  try {
    await node.rpc("eth_sendRawTransaction", [attempt.raw], dataAnswer);
  } catch (error) {
    // "already known", "nonce too low" after it was mined...: success when the node has it.
    const known = await node.rpc("eth_getTransactionByHash", [attempt.txHash], anyAnswer);
    if (known) return;
    const said = error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String(error);
    if (refusedForGood(error)) {
      throw new BroadcastRefusedError(`${chain} node refused ${attempt.txHash}: ${said.trim()}`, attempt.txHash);
    }
    throw error;
  }
}
