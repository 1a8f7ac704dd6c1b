import type { KnownOutput } from "./known-output.ts";
import type { MinedBlock } from "./mined-block.ts";

/** What reconciliation reads from one chain's node: our holdings, and the fees our transactions paid. */
export interface HoldingsReader {
  /** What `addresses` hold together now of each asset, in smallest units (every asset present, 0 included). */
  holdings(addresses: readonly string[], known: readonly KnownOutput[]): Promise<Map<string, bigint>>;
  /**
   * The network fee (native coin, smallest units) a mined transaction of ours paid, read from the
   * chain by its hash; `recorded` is the attempt's stored fee (a Bitcoin transaction's fee is fixed
   * by its bytes when signed). Null when the node does not have the transaction.
   */
  feePaid(txHash: string, recorded: Record<string, unknown>, block: MinedBlock | null): Promise<bigint | null>;
}
