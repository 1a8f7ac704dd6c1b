import { estimateVsize, feeFor, outputBytes, P2WPKH_DUST } from "./bitcoin-fees.ts";
import type { TreasuryCoin } from "./utxo-store.ts";

/** A transaction output: its script and value in satoshis. */
export interface TxOutput {
  script: Uint8Array;
  value: bigint;
}

/** A P2WPKH change output's bytes: value, script length, script. */
export const CHANGE_OUTPUT_BYTES = 8 + 1 + 22;

export type CoinSelection =
  | { inputs: TreasuryCoin[]; fee: bigint; change: bigint | null; total: bigint; target: bigint }
  /** The coins do not cover the outputs and the fee: `target + fee` is what it would take. */
  | { inputs: null; total: bigint; target: bigint; fee: bigint };

/** Largest coins first (as given) until they pay the outputs and the fee (with a change output unless it would be dust). */
export function selectCoins(coins: readonly TreasuryCoin[], outputs: readonly TxOutput[], rate: bigint): CoinSelection {
  const target = outputs.reduce((sum, o) => sum + o.value, 0n);
  const bytes = outputs.reduce((sum, o) => sum + outputBytes(o.script), 0);
  const inputs: TreasuryCoin[] = [];
  let total = 0n;
  for (const coin of coins) {
    inputs.push(coin);
    total += coin.amountRaw;
    const withChange = feeFor(estimateVsize(inputs.length, outputs.length + 1, bytes + CHANGE_OUTPUT_BYTES), rate);
    if (total >= target + withChange) {
      const change = total - target - withChange;
      if (change >= P2WPKH_DUST) return { inputs, fee: withChange, change, total, target };
      // Change would be dust: leave it out and let the fee take it.
      return { inputs, fee: total - target, change: null, total, target };
    }
    const without = feeFor(estimateVsize(inputs.length, outputs.length, bytes), rate);
    if (total >= target + without) return { inputs, fee: total - target, change: null, total, target };
  }
  const fee = feeFor(estimateVsize(Math.max(inputs.length, 1), outputs.length + 1, bytes + CHANGE_OUTPUT_BYTES), rate);
  return { inputs: null, total, target, fee };
}

/**
 * The outputs and fee of a replacement spending the same `inputs` for the same `outputs` at `rate`:
 * the same change script paid less when it stays above dust, else no change and all the rest as fee.
 * Null when the inputs cannot pay the fee `rate` asks.
 */
export function replacementSpend(
  inputs: readonly TreasuryCoin[],
  outputs: readonly TxOutput[],
  changeScript: Uint8Array | null,
  rate: bigint,
): { outputs: TxOutput[]; fee: bigint } | null {
  const total = inputs.reduce((sum, c) => sum + c.amountRaw, 0n);
  const target = outputs.reduce((sum, o) => sum + o.value, 0n);
  const bytes = outputs.reduce((sum, o) => sum + outputBytes(o.script), 0);
  const withChange = feeFor(estimateVsize(inputs.length, outputs.length + 1, bytes + CHANGE_OUTPUT_BYTES), rate);
  if (changeScript !== null && total - target - withChange >= P2WPKH_DUST) {
    // Same inputs, same payments, the same change address paid less: only the fee grows.
    return { outputs: [...outputs, { script: changeScript, value: total - target - withChange }], fee: withChange };
  }
  const fee = total - target;
  const needed = feeFor(estimateVsize(inputs.length, outputs.length, bytes), rate);
  return fee < needed ? null : { outputs: [...outputs], fee };
}
