import { type ChainId, ChainMisconfiguredError } from "@mp/core";
import { numberToHex } from "viem";
import type { EvmRpcClient } from "./evm-rpc-client.ts";
import { validated } from "./evm-rpc-client.ts";
import { EvmRpcError } from "./rpc-failure.ts";
import { blockNumberSchema } from "./rpc-schemas.ts";
import { TRANSFER_TOPIC } from "./transfer-logs.ts";

/**
 * Blocks this far below the head are history, not news: a node answering nothing for them has
 * dropped them, where one answering nothing for a block near its head may only lag (a load-balanced
 * pool's other backend), which is retried.
 */
export const HISTORY_DEPTH = 128;

/** EIP-4444's "pruned history unavailable" (geth and others answer it for expired blocks and logs). */
const PRUNED_HISTORY = 4444;
const PRUNED_MESSAGE = /prun|history (has been )?(expired|unavailable|not available)/i;
const METHOD_MISSING = /method .*(not (found|supported|available|allowed|enabled)|does not exist)|unsupported method/i;

/** What the indexer needs of an EVM node from block `from` on (README "Node requirements"). */
export interface EvmNodeNeeds {
  chain: ChainId;
  /** The first block the indexer will read. */
  from: number;
  /** The configured token contracts: their Transfer logs are read with eth_getLogs (none: not needed). */
  tokenContracts: readonly string[];
}

/**
 * What the indexer cannot work without on an EVM node, checked when it starts: the blocks from
 * its position on (eth_getBlockByNumber: native transfers, hashes for reorg checks), and, when
 * tokens are configured, eth_getLogs over them (token deposits). A node lacking either (a node or
 * provider that does not offer eth_getLogs, or one that expired or pruned that history: geth's
 * history expiry, a pruned reth or erigon) would otherwise be retried forever: it throws
 * ChainMisconfiguredError naming the capability. Any other failure (the node down) is left to the
 * caller's retries.
 */
export async function verifyEvmNode(rpc: EvmRpcClient, needs: EvmNodeNeeds): Promise<void> {
  const { from } = needs;
  const head = validated(
    blockNumberSchema,
    await rpc.call({ method: "eth_blockNumber", params: [] }),
    "eth_blockNumber",
    "head",
  );
  // Not produced yet, or near the head (maybe only lagging): nothing to judge.
  if (from > head - HISTORY_DEPTH) return;
  const block = await capability(needs, "eth_getBlockByNumber", () =>
    rpc.call({ method: "eth_getBlockByNumber", params: [numberToHex(from), false] }),
  );
  if (block === null) throw historyMissing(needs, "eth_getBlockByNumber", "no block");
  if (needs.tokenContracts.length === 0) return;
  await capability(needs, "eth_getLogs", () =>
    rpc.call({
      method: "eth_getLogs",
      params: [
        {
          fromBlock: numberToHex(from),
          toBlock: numberToHex(from),
          address: [...needs.tokenContracts],
          topics: [TRANSFER_TOPIC],
        },
      ],
    }),
  );
}

/** `call`'s answer; a refusal saying the method is missing or the history pruned is a misconfiguration. */
async function capability(needs: EvmNodeNeeds, method: string, call: () => Promise<unknown>): Promise<unknown> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof EvmRpcError) || error.failure.reason !== "rpc-error") throw error;
    const { rpcCode, message } = error.failure;
    if (rpcCode === -32601 || METHOD_MISSING.test(message)) {
      throw new ChainMisconfiguredError(
        `the EVM node at CHAINS_CONFIG.${needs.chain}.rpcUrl does not offer ${method} (${message}): the indexer reads ${method === "eth_getLogs" ? "token deposits with it" : "blocks with it"}; use a node or provider that serves it`,
        { details: { chain: needs.chain, capability: method } },
      );
    }
    if (rpcCode === PRUNED_HISTORY || PRUNED_MESSAGE.test(message)) throw historyMissing(needs, method, message);
    throw error;
  }
}

function historyMissing(needs: EvmNodeNeeds, method: string, answer: string): ChainMisconfiguredError {
  return new ChainMisconfiguredError(
    `the EVM node at CHAINS_CONFIG.${needs.chain}.rpcUrl has no history at block ${needs.from}, where the indexer goes on (${method}: ${answer}): its deposits cannot be seen; use a node that keeps the history from there (an archive or full-history node, no history expiry or pruning below it) or a provider that does`,
    { details: { chain: needs.chain, capability: method, from: needs.from } },
  );
}
