import type { AddressMatcher } from "@mp/core";
import { getAddress } from "viem";
import type { EvmAssets } from "./evm-assets.ts";
import type { FullBlock, Receipt } from "./rpc-schemas.ts";
import type { SortableTransfer } from "./sortable-transfer.ts";

/**
 * Transactions of `block` that pay native coin to a watched address: candidates only, as the block
 * does not say whether a transaction succeeded; the caller keeps those whose receipt does.
 * Contract creations, zero values and self-transfers are not deposits. Value moved by contracts
 * (internal transactions) is not seen: that needs tracing, which most providers do not offer.
 */
export function nativeTransferCandidates(
  block: FullBlock,
  assets: EvmAssets,
  watch: AddressMatcher,
): SortableTransfer[] {
  const candidates: SortableTransfer[] = [];
  for (const tx of block.transactions) {
    if (!tx.to || tx.value === 0n || !watch.has(tx.to) || tx.from === tx.to) continue;
    candidates.push({
      transactionIndex: tx.transactionIndex,
      logIndex: null,
      transfer: {
        txHash: tx.hash,
        position: "native",
        blockHeight: block.number,
        blockHash: block.hash,
        from: getAddress(tx.from),
        to: getAddress(tx.to),
        asset: assets.native.asset,
        contractAddress: null,
        amountRaw: tx.value,
        decimals: assets.native.decimals,
      },
    });
  }
  return candidates;
}

/**
 * `success`/`failed` from the receipt's status (EIP-658); `unknown` for a pre-Byzantium receipt,
 * which carries a state root instead and cannot prove success.
 */
export function receiptOutcome(receipt: Receipt): "success" | "failed" | "unknown" {
  if (receipt.status === "0x1") return "success";
  if (receipt.status === "0x0") return "failed";
  return "unknown";
}
