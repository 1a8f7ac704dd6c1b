import { type ChainId, normalizeAddress, type ObservedTransfer } from "@mp/core";
import { unnestColumns } from "@mp/db";

/**
 * The transfers as the eleven arrays the unnest() of recordDeposits and recordTreasuryReceipts takes:
 * address_key, asset, contract_address, from_address, to_address, tx_hash, position, block_height,
 * block_hash, decimals, amount_raw.
 */
export function transferColumns(chain: ChainId, transfers: readonly ObservedTransfer[]): unknown[][] {
  return [
    transfers.map((t) => normalizeAddress(chain, t.to)),
    ...unnestColumns(transfers, [
      "asset",
      "contractAddress",
      "from",
      "to",
      "txHash",
      "position",
      "blockHeight",
      "blockHash",
      "decimals",
    ]),
    transfers.map((t) => t.amountRaw.toString()),
  ];
}
