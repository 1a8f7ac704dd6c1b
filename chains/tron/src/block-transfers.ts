import type { AddressMatcher, ObservedTransfer } from "@mp/core";
import { type ApiBlock, type ApiLog, type ApiTransactionInfo, transferContractSchema } from "./api-schemas.ts";
import type { BlockLocation } from "./block-location.ts";
import { SUCCESS, TRC20_TRANSFER_TOPIC } from "./constants.ts";
import { internalTrxPayments, type TrxPayment } from "./internal-transfers.ts";
import { hexToBase58, topicToBase58 } from "./tron-address.ts";
import { TronApiError } from "./tron-api-error.ts";
import type { TronAssets } from "./tron-assets.ts";

const UINT256_WORD = /^[0-9a-fA-F]{64}$/;

/**
 * Every transfer to a watched address in one block, in block order, from the block
 * (`getblockbynum`) and its execution results (`gettransactioninfobyblocknum`):
 *
 * - TRX: a `TransferContract` whose `ret[0].contractRet` is SUCCESS, at position `native`.
 * - TRC-20: a `Transfer(address,address,uint256)` log (3 topics, a 32-byte amount) emitted by a
 *   configured token contract in a transaction whose `receipt.result` is SUCCESS, at
 *   `log:<index in the transaction info's log array>`. Logs of failed calls are never read.
 * - TRX paid by a contract inside a successful transaction (`internal_transactions`), at
 *   `internal:<index>` (internal-transfers.ts).
 *
 * Hex addresses become the base58 `T…` form a wallet shows (what `watch` holds, since
 * normalizeAddress keeps Tron addresses as they are). The two answers must describe the same
 * transactions: a block whose infos are missing or differ (a reorg between the two requests, a
 * node still indexing) is refused with a retryable error rather than read half.
 */
export function extractBlockTransfers(
  block: ApiBlock,
  infos: readonly ApiTransactionInfo[],
  where: BlockLocation,
  assets: TronAssets,
  watch: AddressMatcher,
): ObservedTransfer[] {
  const transactions = block.transactions ?? [];
  const infoById = pairInfos(transactions, infos, where.height);
  const transfers: ObservedTransfer[] = [];
  for (const tx of transactions) {
    const contract = tx.raw_data.contract[0];
    if (contract?.type === "TransferContract" && tx.ret?.[0]?.contractRet === SUCCESS) {
      collectTrx(tx.txID, contract.parameter.value, where, assets, watch, transfers);
    }
    const info = infoById.get(tx.txID.toLowerCase());
    if (info?.receipt?.result === SUCCESS && info.log !== undefined) {
      info.log.forEach((log, index) => {
        collectTokenTransfer(tx.txID, log, index, where, assets, watch, transfers);
      });
    }
    if (info?.receipt?.result === SUCCESS && info.internal_transactions !== undefined) {
      for (const payment of internalTrxPayments(tx.txID, info.internal_transactions, where, watch)) {
        transfers.push(trxTransfer(tx.txID, payment, where, assets));
      }
    }
  }
  return transfers;
}

function pairInfos(
  transactions: ApiBlock["transactions"] & object,
  infos: readonly ApiTransactionInfo[],
  height: number,
): Map<string, ApiTransactionInfo> {
  const endpoint = "/wallet/gettransactioninfobyblocknum";
  if (infos.length !== transactions.length) {
    throw new TronApiError(
      endpoint,
      `block ${height} has ${transactions.length} transactions but ${infos.length} results; retry`,
      { details: { height } },
    );
  }
  const byId = new Map<string, ApiTransactionInfo>();
  for (const info of infos) {
    if (info.blockNumber !== undefined && info.blockNumber !== height) {
      throw new TronApiError(endpoint, `result ${info.id} is for block ${info.blockNumber}, not ${height}`);
    }
    byId.set(info.id.toLowerCase(), info);
  }
  for (const tx of transactions) {
    if (!byId.has(tx.txID.toLowerCase())) {
      throw new TronApiError(endpoint, `block ${height} changed between requests (no result for ${tx.txID}); retry`, {
        details: { height },
      });
    }
  }
  return byId;
}

function collectTrx(
  txHash: string,
  value: Record<string, unknown>,
  where: BlockLocation,
  assets: TronAssets,
  watch: AddressMatcher,
  out: ObservedTransfer[],
): void {
  // The recipient is read cheaply first: most payments in a block go to unwatched addresses.
  const toHex = value.to_address;
  if (typeof toHex !== "string") {
    throw new TronApiError(
      "/wallet/getblockbynum",
      `block ${where.height}: TransferContract ${txHash} has no to_address`,
    );
  }
  const to = toBase58(toHex, where, txHash);
  if (!watch.has(to)) return;
  const transfer = transferContractSchema.safeParse(value);
  if (!transfer.success) {
    throw new TronApiError("/wallet/getblockbynum", `block ${where.height}: unreadable TransferContract ${txHash}`, {
      cause: transfer.error,
    });
  }
  const { owner_address, amount } = transfer.data;
  const from = hexToBase58(owner_address.toLowerCase());
  if (amount <= 0n || from === to) return;
  out.push(trxTransfer(txHash, { position: "native", from, to, amount }, where, assets));
}

function trxTransfer(txHash: string, payment: TrxPayment, where: BlockLocation, assets: TronAssets): ObservedTransfer {
  return {
    txHash: txHash.toLowerCase(),
    position: payment.position,
    blockHeight: where.height,
    blockHash: where.blockHash,
    from: payment.from,
    to: payment.to,
    asset: assets.native.asset,
    contractAddress: null,
    amountRaw: payment.amount,
    decimals: assets.native.decimals,
  };
}

function collectTokenTransfer(
  txHash: string,
  log: ApiLog,
  index: number,
  where: BlockLocation,
  assets: TronAssets,
  watch: AddressMatcher,
  out: ObservedTransfer[],
): void {
  const token = assets.tokensByLogAddress.get(log.address.toLowerCase());
  const topics = log.topics;
  if (!token || topics?.length !== 3 || topics[0]?.toLowerCase() !== TRC20_TRANSFER_TOPIC) return;
  const to = topicToBase58(topics[2] ?? "");
  if (to === undefined || !watch.has(to)) return;
  const from = topicToBase58(topics[1] ?? "") ?? null;
  if (log.data === undefined || !UINT256_WORD.test(log.data)) {
    throw new TronApiError(
      "/wallet/gettransactioninfobyblocknum",
      `block ${where.height}: Transfer log of ${txHash} has no uint256 amount`,
    );
  }
  const amount = BigInt(`0x${log.data}`);
  if (amount === 0n || from === to) return;
  out.push({
    txHash: txHash.toLowerCase(),
    position: `log:${index}`,
    blockHeight: where.height,
    blockHash: where.blockHash,
    from,
    to,
    asset: token.asset,
    contractAddress: token.address,
    amountRaw: amount,
    decimals: token.decimals,
  });
}

function toBase58(hex: string, where: BlockLocation, txHash: string): string {
  try {
    return hexToBase58(hex.toLowerCase());
  } catch (error) {
    throw new TronApiError("/wallet/getblockbynum", `block ${where.height}: bad address in ${txHash}`, {
      cause: error,
    });
  }
}
