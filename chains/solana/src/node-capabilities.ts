import { type ChainId, ChainMisconfiguredError } from "@mp/core";
import type { JsonRpcClient } from "@mp/rpc";

/** agave's JSON_RPC_SERVER_ERROR_TRANSACTION_HISTORY_NOT_AVAILABLE (rpc_custom_error.rs). */
export const TRANSACTION_HISTORY_NOT_AVAILABLE = -32011;

/** 64 zero bytes in base58: a well-formed signature no transaction has. */
const NO_SIGNATURE = "1".repeat(64);

/**
 * What the service cannot work without on a Solana node, checked when it starts: transaction
 * history (agave's `--enable-rpc-transaction-history`; every RPC provider has it). The indexer
 * reads blocks with getBlock and the sender finds its transactions with getSignatureStatuses
 * searchTransactionHistory; a node without history refuses both with -32011. Throws
 * ChainMisconfiguredError naming the capability; any other failure (the node down) is left to the
 * caller's retries.
 */
export async function verifySolanaNode(rpc: JsonRpcClient, chain: ChainId): Promise<void> {
  const [outcome] = await rpc.batch([
    { method: "getSignatureStatuses", params: [[NO_SIGNATURE], { searchTransactionHistory: true }] },
  ]);
  if (outcome && !outcome.ok && outcome.code === TRANSACTION_HISTORY_NOT_AVAILABLE) {
    throw new ChainMisconfiguredError(
      `the Solana node at CHAINS_CONFIG.${chain}.rpcUrl has no transaction history (${outcome.code} ${outcome.message}): the indexer reads blocks (getBlock) and the sender finds its transactions (getSignatureStatuses searchTransactionHistory) there; run it with --enable-rpc-transaction-history or use an RPC provider`,
      { details: { chain, capability: "transaction_history" } },
    );
  }
}
