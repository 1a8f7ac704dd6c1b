import { type ChainId, normalizeAddress, type ObservedTransfer } from "@mp/core";

/**
 * The transfers as the eleven arrays the unnest() of recordDeposits and recordTreasuryReceipts takes:
 * address_key, asset, contract_address, from_address, to_address, tx_hash, position, block_height,
 * block_hash, decimals, amount_raw.
 */
export function transferColumns(chain: ChainId, transfers: readonly ObservedTransfer[]): unknown[][] {
  return [
    transfers.map((t) => normalizeAddress(chain, t.to)),
    transfers.map((t) => t.asset),
    transfers.map((t) => t.contractAddress),
    transfers.map((t) => t.from),
    transfers.map((t) => t.to),
    transfers.map((t) => t.txHash),
    transfers.map((t) => t.position),
    transfers.map((t) => t.blockHeight),
    transfers.map((t) => t.blockHash),
    transfers.map((t) => t.decimals),
    transfers.map((t) => t.amountRaw.toString()),
  ];
}
