import {
  type AddressMatcher,
  type BlockHeader,
  type ChainAdapter,
  ChainMovedError,
  type ObservedTransfer,
  type ScanRange,
} from "@mp/core";

export interface ScannedRange {
  headers: BlockHeader[];
  transfers: ObservedTransfer[];
}

/**
 * Headers and watched transfers of `range`, checked to be one consistent view of one branch:
 * headers ascending and linked by parent hash, every transfer in a block the headers show with the
 * same hash. Anything else means the chain moved between calls: ChainMovedError (retry).
 */
export async function scanRange(
  adapter: ChainAdapter,
  range: ScanRange,
  watch: AddressMatcher,
  call: <T>(fn: () => Promise<T>) => Promise<T>,
): Promise<ScannedRange> {
  const headers = await call(() => adapter.headers(range));
  const byHeight = new Map<number, string>();
  let previous: BlockHeader | undefined;
  for (const header of headers) {
    if (header.height < range.from || header.height > range.to) {
      throw new ChainMovedError(`header at ${header.height} outside the range ${range.from}..${range.to}`);
    }
    if (previous && (header.height <= previous.height || header.parentHash !== previous.hash)) {
      throw new ChainMovedError(`headers of ${range.from}..${range.to} do not link at height ${header.height}`);
    }
    byHeight.set(header.height, header.hash);
    previous = header;
  }
  const transfers = await call(() => adapter.scan(range, watch));
  for (const transfer of transfers) {
    if (byHeight.get(transfer.blockHeight) !== transfer.blockHash) {
      throw new ChainMovedError(`transfer ${transfer.txHash} is in a block the headers do not show`, {
        height: transfer.blockHeight,
      });
    }
  }
  return { headers, transfers };
}
