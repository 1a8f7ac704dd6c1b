import type { ChainId } from "@mp/core";
import type { Database } from "@mp/db";
import type { ChainSender, ReconcileTarget } from "@mp/treasury";
import type { BroadcastRecognizer } from "./broadcast-refusals.ts";

/** How our transactions in reorganised blocks fare: mined again, back to the mempool, or gone for good. */
export type ReorgFate = "remine" | "mempool" | "drop";

/**
 * One family's chain as the money fuzz drives it: its test node, the real indexer recording the
 * treasury's receipts, and what the invariants need to ask it. One world serves every case of a file.
 */
export interface MoneyWorld {
  readonly family: string;
  readonly chain: ChainId;
  readonly asset: string;
  readonly db: Database;
  /** The send pipeline's confirmations on this chain. */
  readonly confirmations: number;
  /** Amounts a case requests: ordinary ones, and one the treasury will never cover. */
  readonly amounts: { min: bigint; max: bigint; unaffordable: bigint };
  /** Amounts the edge (requestSend) must refuse: zero, negative, below a dust limit. */
  readonly refused: readonly bigint[];
  /** Amounts the edge takes that the chain may refuse (dust to some script, below an account's rent): such a send may end failed. */
  readonly hostile: readonly bigint[];
  /** How the family's node refuses a broadcast for good (the `refuse` step). */
  readonly broadcasts: BroadcastRecognizer;
  /** A sender as a new signer process makes it, talking to the node through `fetch`. */
  sender(fetch: typeof globalThis.fetch): ChainSender;
  /** An address no one else pays. */
  recipient(): string;
  /** Tops the treasury up for a case and lets the indexer record it. */
  fund(): Promise<void>;
  height(): Promise<number>;
  /** Mines `count` blocks and lets the indexer catch up. */
  mine(count: number): Promise<void>;
  /** Miners leave every pending transaction out (true) or take them again. */
  hold(on: boolean): Promise<void> | void;
  /** Replaces the last `depth` blocks (`longer`: by one block more); `ours` are our transactions in them. */
  reorg(depth: number, ours: readonly string[], fate: ReorgFate, longer: boolean): Promise<void>;
  /** The height of the active-chain block holding `txHash`, if any. */
  txHeight(txHash: string): Promise<number | undefined>;
  /** What the active chain paid `to` in `asset` through the transactions `txHashes` (ours for one send). */
  paid(to: string, txHashes: readonly string[]): Promise<bigint>;
  reconcileTargets(): ReconcileTarget[];
  /** The family's own stores checked against the settled chain (Bitcoin: the free coins are unspent). */
  checkSettled?(): Promise<void>;
}
