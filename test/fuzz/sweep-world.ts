import { silentLogger } from "@mp/core";
import type { Database, LeaseKeeper } from "@mp/db";
import type { ChainSender } from "@mp/treasury";
import { createDepositMerchant, testDepositKeys } from "../../packages/treasury/test/support/evm-deposits.ts";
import type { BroadcastRecognizer } from "./broadcast-refusals.ts";
import type { MoneyWorld } from "./money-world.ts";

/** One asset a case deposits: its deposit amounts (around its sweep threshold) and that threshold. */
export interface SweepAsset {
  asset: string;
  min: bigint;
  max: bigint;
  /** The sweeper's threshold for the asset (smallest units): at or above it a deposit address is swept. */
  threshold: bigint;
  /** The chain's own coin: it pays its sweep's gas, and the top-ups and fees move it too. */
  native: boolean;
}

/**
 * A stablecoin of 6 decimals (USDC, USDT) as the sweep fuzz deposits it: 1 to 40 a payment, around
 * the sweeper's default token threshold of 10.
 */
export function stablecoinSweepAsset(asset: string): SweepAsset {
  return { asset, min: 1_000_000n, max: 40_000_000n, threshold: 10_000_000n, native: false };
}

/** A deposit address of the case: the destination the indexer watches and the sweeper's keys derive. */
export interface CaseAddress {
  destinationId: string;
  address: string;
}

/** A sweeper as a signer process starts it: its lease keeper, its own link to the node. */
export interface CaseSweeper {
  tick(chain: MoneyWorld["chain"]): Promise<void>;
  stop(): Promise<void>;
}

/**
 * One family's chain as the sweep fuzz drives it: the money world's node (mine, hold, reorg, the
 * indexer recording deposits and the treasury's receipts) plus customers paying deposit addresses
 * and the family's sweeper. One world serves every case of a file.
 */
export interface SweepWorld
  extends Pick<
    MoneyWorld,
    "family" | "chain" | "db" | "confirmations" | "height" | "mine" | "hold" | "reorg" | "txHeight" | "reconcileTargets"
  > {
  readonly assets: readonly SweepAsset[];
  /** Funds the treasury (gas for top-ups) and makes `count` new deposit addresses of a new merchant. */
  startCase(count: number): Promise<CaseAddress[]>;
  /** A customer pays `amount` of `asset` to `address`; returns the transaction hash (it may wait in the mempool). */
  deposit(address: string, asset: string, amount: bigint): Promise<string>;
  /** What `address` holds of the token `asset` on the active chain (asked of tokens only: the native coin also pays gas). */
  balance(address: string, asset: string): Promise<bigint>;
  readonly treasury: string;
  sender(fetch: typeof globalThis.fetch): ChainSender;
  sweeper(fetch: typeof globalThis.fetch, leases: LeaseKeeper): CaseSweeper;
  /** How the family's node refuses a broadcast for good (the `refuse` step). */
  readonly broadcasts: BroadcastRecognizer;
  /** Whether the transaction is mined on the active chain and succeeded. */
  landed(txHash: string): Promise<boolean>;
}

/** The sweep world's parts that are the same in every family: taken over from its money world, or built on it. */
type SharedParts =
  | "family"
  | "chain"
  | "db"
  | "confirmations"
  | "height"
  | "mine"
  | "hold"
  | "reorg"
  | "txHeight"
  | "reconcileTargets"
  | "sender"
  | "broadcasts"
  | "startCase";

/**
 * A family's sweep world: its own parts (`own`: assets, treasury, customers' payments, balances,
 * sweeper, landed) on what it takes over from the family's money world `base`: the node, the
 * indexer, holds and reorgs, the sender; its family's name (`<family>-sweeps`); and a case's start:
 * the treasury funded, then `count` deposit addresses of a new merchant on the world's chain.
 */
export function sweepWorldOn(base: MoneyWorld, own: Omit<SweepWorld, SharedParts>): SweepWorld {
  return {
    family: `${base.family}-sweeps`,
    chain: base.chain,
    db: base.db,
    confirmations: base.confirmations,
    height: base.height,
    mine: base.mine,
    hold: base.hold,
    reorg: base.reorg,
    txHeight: base.txHeight,
    reconcileTargets: base.reconcileTargets,
    sender: base.sender,
    broadcasts: base.broadcasts,
    async startCase(count) {
      await base.fund();
      const merchant = await createDepositMerchant(base.db, count, base.chain);
      return merchant.addresses.map((a) => ({ destinationId: a.destinationId, address: a.address }));
    },
    ...own,
  };
}

/** What every family's sweeper takes besides its chain: the deposit keys of the tests, quiet logs, the case's lease keeper and node link. */
export function sweeperDeps<K>(db: Database, treasuryKeys: K, leases: LeaseKeeper, fetch: typeof globalThis.fetch) {
  return { db, depositKeys: testDepositKeys(), treasuryKeys, logger: silentLogger(), leases, fetch };
}
