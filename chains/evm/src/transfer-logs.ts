import type { AddressMatcher } from "@mp/core";
import { getAddress } from "viem";
import type { EvmAssets } from "./evm-assets.ts";
import type { Log } from "./rpc-schemas.ts";
import type { SortableTransfer } from "./sortable-transfer.ts";

/** topic0 of `Transfer(address indexed from, address indexed to, uint256 value)` (ERC-20 and ERC-721). */
export const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

const ADDRESS_TOPIC_PADDING = "0x000000000000000000000000";

/**
 * The ERC-20 Transfer in `log` if it pays a watched address with a configured token, else null.
 * Only the standard layout counts: three topics (ERC-721's Transfer has a fourth, the token id)
 * and a 32-byte value. Removed (reorged-out) logs, zero amounts and self-transfers are not
 * deposits. Matching is one Set lookup on the lowercase recipient.
 */
export function matchTransferLog(log: Log, assets: EvmAssets, watch: AddressMatcher): SortableTransfer | null {
  if (log.removed === true) return null;
  const [topic0, fromTopic, toTopic] = log.topics;
  if (log.topics.length !== 3 || topic0 !== TRANSFER_TOPIC || !fromTopic || !toTopic) return null;
  if (!toTopic.startsWith(ADDRESS_TOPIC_PADDING) || !fromTopic.startsWith(ADDRESS_TOPIC_PADDING)) return null;
  const to = `0x${toTopic.slice(26)}`;
  if (!watch.has(to)) return null;
  const token = assets.tokenByContract.get(log.address);
  if (!token || log.data.length !== 66) return null;
  const amountRaw = BigInt(log.data);
  const from = `0x${fromTopic.slice(26)}`;
  if (amountRaw === 0n || from === to) return null;
  return {
    transactionIndex: log.transactionIndex,
    logIndex: log.logIndex,
    transfer: {
      txHash: log.transactionHash,
      position: `log:${log.logIndex}`,
      blockHeight: log.blockNumber,
      blockHash: log.blockHash,
      from: getAddress(from),
      to: getAddress(to),
      asset: token.asset,
      contractAddress: token.address,
      amountRaw,
      decimals: token.decimals,
    },
  };
}
