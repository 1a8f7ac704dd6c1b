import { btcToSatoshis } from "@mp/bitcoin-protocol";
import { AppError, type ChainConfig } from "@mp/core";
import type { JsonRpcClient } from "@mp/rpc";
import { z } from "zod";

/**
 * Sizes and fees of the treasury's transactions: P2WPKH inputs only (every treasury coin is one),
 * outputs of any standard script. Virtual sizes are estimated before signing with the largest
 * DER signature (72 bytes), so the fee paid is never below the rate asked.
 */

export { P2WPKH_DUST } from "@mp/bitcoin-protocol";
/** BIP-125 rule 4 at Core's default -incrementalrelayfee: a replacement pays at least this much more per vbyte. */
export const INCREMENTAL_RELAY_SAT_PER_VB = 1n;
const INPUT_BASE_BYTES = 32 + 4 + 1 + 4;
const INPUT_WITNESS_BYTES = 1 + 1 + 72 + 1 + 33;

function varIntSize(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : 5;
}

export function outputBytes(script: Uint8Array): number {
  return 8 + varIntSize(script.length) + script.length;
}

/** Virtual size of a transaction with `inputs` P2WPKH inputs and outputs totalling `outputsBytes` bytes. */
export function estimateVsize(inputs: number, outputs: number, outputsBytes: number): number {
  const base = 4 + 4 + varIntSize(inputs) + varIntSize(outputs) + outputsBytes + inputs * INPUT_BASE_BYTES;
  const witness = 2 + inputs * INPUT_WITNESS_BYTES;
  return Math.ceil((base * 4 + witness) / 4);
}

export function feeFor(vsize: number, satPerVb: bigint): bigint {
  return BigInt(vsize) * satPerVb;
}

/**
 * estimatesmartfee's `feerate` (BTC per 1000 vbytes, an exact decimal string from the RPC layer) in
 * whole sat/vB, rounded up.
 */
export function satPerVbFromBtcPerKvb(feerate: string | number): bigint | null {
  const perKvb = btcToSatoshis(feerate);
  if (perKvb === null || perKvb <= 0n) return null;
  return (perKvb + 999n) / 1000n;
}

/** A BIP-125 bump: at least 25% more per vbyte and at least the incremental relay fee over the old rate. */
export function bumpedFeeRate(old: bigint, current: bigint): bigint {
  const bumped = (old * 125n + 99n) / 100n;
  const floor = old + INCREMENTAL_RELAY_SAT_PER_VB;
  const rate = bumped > floor ? bumped : floor;
  return rate > current ? rate : current;
}

/** Fee-rate estimate target, in blocks. */
const CONF_TARGET = 2;
/**
 * The lowest rate paid (sat/vB): Core's minimum relay fee is 1, and a fresh regtest or sandbox node
 * has no estimate at all (estimatesmartfee answers "Insufficient data"), so it pays this.
 */
const FLOOR_SAT_PER_VB: Record<"mainnet" | "testnet" | "regtest", bigint> = { mainnet: 1n, testnet: 1n, regtest: 2n };
const estimateSchema = z.object({ feerate: z.union([z.string(), z.number()]).optional() });

/** The rate a transaction signed now pays: estimatesmartfee (2 blocks), never below the network's floor. */
export async function bitcoinFeeRate(
  rpc: JsonRpcClient,
  config: Pick<ChainConfig, "chain" | "network">,
): Promise<bigint> {
  const floor = FLOOR_SAT_PER_VB[config.network];
  const answer = estimateSchema.parse(await rpc.call("estimatesmartfee", [CONF_TARGET]));
  const estimate = answer.feerate === undefined ? null : satPerVbFromBtcPerKvb(answer.feerate);
  if (estimate === null && config.network === "mainnet") {
    throw new AppError("service_unavailable", `${config.chain} node has no fee estimate yet`, { retryable: true });
  }
  return estimate === null || estimate < floor ? floor : estimate;
}
