import { type ChainAsset, type ChainConfig, type ChainId, NATIVE_ASSETS } from "@mp/core";
import type { Queryable } from "@mp/db";
import type { HoldingsReader } from "./holdings-reader.ts";
import { type Amounts, readChainRecords } from "./our-records.ts";

/** One configured chain to reconcile, with the assets its config names. */
export interface ReconcileTarget {
  config: ChainConfig;
  assets: readonly ChainAsset[];
  /** The chain's node as reconciliation reads it (its family's holdings reader). */
  reader: HoldingsReader;
}

/**
 * One chain and asset: what the chain says we hold against what our records say we should, in the
 * asset's smallest units (decimal strings: exact). `expected` = live deposits + the operator's float
 * - what our sends paid out to others - the network fees our transactions paid (native coin) + the
 * token-account rent our Solana sweeps reclaimed less what they paid (native coin). Moves between our
 * own addresses (a gas top-up of a deposit address, a sweep into the treasury, Bitcoin change)
 * change neither side otherwise.
 */
export interface ReconcileLine {
  chain: ChainId;
  asset: string;
  decimals: number;
  /** agrees: difference 0; unexplained: a difference nothing in our records explains; unreadable: the node could not be read. */
  status: "agrees" | "unexplained" | "unreadable";
  chain_holdings: string | null;
  expected: string;
  difference: string | null;
  breakdown: {
    deposits: string;
    pending_deposits: string;
    operator_float: string;
    sent: string;
    fees: string;
    /** Native coin: rent of deposit token accounts our sweeps closed, less rent they paid (Solana). */
    sweep_rent: string;
  };
  explanation: string;
}

export interface ReconcileReport {
  lines: ReconcileLine[];
  /** 0: everything agrees; 1: an unexplained difference; 2: a configured chain could not be read. */
  exitCode: 0 | 1 | 2;
  unreadable: ChainId[];
}

export interface ReconcileOptions {
  /** A reader per chain (tests); default the target's own. */
  reader?: (target: ReconcileTarget) => HoldingsReader | null;
}

const of = (amounts: Amounts, asset: string) => amounts.get(asset) ?? 0n;

/** Reconciles every target; chains are read one after the other (a node is asked little at a time). */
export async function reconcileChains(
  q: Queryable,
  targets: readonly ReconcileTarget[],
  options: ReconcileOptions = {},
): Promise<ReconcileReport> {
  const lines: ReconcileLine[] = [];
  const unreadable: ChainId[] = [];
  for (const target of targets) {
    const chainLines = await reconcileChain(q, target, options);
    if (chainLines.some((l) => l.status === "unreadable")) unreadable.push(target.config.chain);
    lines.push(...chainLines);
  }
  const exitCode = unreadable.length > 0 ? 2 : lines.some((l) => l.status !== "agrees") ? 1 : 0;
  return { lines, exitCode, unreadable };
}

async function reconcileChain(
  q: Queryable,
  target: ReconcileTarget,
  options: ReconcileOptions,
): Promise<ReconcileLine[]> {
  const chain = target.config.chain;
  const native = NATIVE_ASSETS[chain].asset;
  const records = await readChainRecords(q, chain);
  const reader = options.reader ? options.reader(target) : target.reader;
  let holdings: Amounts | null = null;
  let fees = 0n;
  let readError: string | null = reader ? null : `no balance reader for ${chain} yet`;
  const missing: string[] = [];
  if (reader) {
    try {
      holdings = await reader.holdings(records.addresses, records.knownOutputs);
      for (const attempt of records.minedAttempts) {
        const fee = await reader.feePaid(attempt.txHash, attempt.fee, attempt.block);
        if (fee === null) missing.push(attempt.txHash);
        else fees += fee;
      }
    } catch (error) {
      readError = `${chain} node could not be read: ${error instanceof Error ? error.message : String(error)}`;
      holdings = null;
    }
  }
  return target.assets.map((asset): ReconcileLine => {
    const feesHere = asset.asset === native ? fees : 0n;
    const rentHere = asset.asset === native ? records.sweepRent : 0n;
    const expected =
      of(records.deposits, asset.asset) +
      of(records.float, asset.asset) -
      of(records.sent, asset.asset) -
      feesHere +
      rentHere;
    const held = holdings === null ? null : of(holdings, asset.asset);
    const difference = held === null ? null : held - expected;
    const notes: string[] = [];
    const pending = of(records.pendingDeposits, asset.asset);
    if (pending > 0n) notes.push(`${pending} in deposits on chain still confirming`);
    if (rentHere !== 0n) notes.push(`${rentHere} of token-account rent reclaimed by sweeps (net of rent they paid)`);
    if (missing.length > 0) notes.push(`mined transactions the node does not have (reorg?): ${missing.join(", ")}`);
    if (records.inFlight > 0) notes.push(`${records.inFlight} attempt(s) broadcast, not yet seen mined`);
    let status: ReconcileLine["status"];
    let explanation: string;
    if (held === null || difference === null) {
      status = "unreadable";
      explanation = readError ?? `${chain} could not be read`;
    } else if (difference === 0n && missing.length === 0) {
      status = "agrees";
      explanation = ["chain and records agree", ...notes].join("; ");
    } else {
      status = "unexplained";
      const direction =
        difference > 0n
          ? "more than our records explain (money arrived we did not record)"
          : "less than our records say (money left we did not record)";
      explanation = [`the chain holds ${difference > 0n ? difference : -difference} ${direction}`, ...notes].join("; ");
    }
    return {
      chain,
      asset: asset.asset,
      decimals: asset.decimals,
      status,
      chain_holdings: held?.toString() ?? null,
      expected: expected.toString(),
      difference: difference?.toString() ?? null,
      breakdown: {
        deposits: of(records.deposits, asset.asset).toString(),
        pending_deposits: pending.toString(),
        operator_float: of(records.float, asset.asset).toString(),
        sent: of(records.sent, asset.asset).toString(),
        fees: feesHere.toString(),
        sweep_rent: rentHere.toString(),
      },
      explanation,
    };
  });
}
