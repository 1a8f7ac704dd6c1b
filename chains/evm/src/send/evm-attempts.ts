import { type Address, type Hex, keccak256, type PrivateKeyAccount, type parseTransaction } from "viem";

type ParsedTransaction = ReturnType<typeof parseTransaction>;

import type { EvmFees } from "./evm-node.ts";

/** A transaction's fields but its fees: what sign, replace and fill differ in. */
export interface EvmTransactionBase {
  chainId: number;
  nonce: number;
  to: Address;
  value: bigint;
  gas: bigint;
  data?: Hex | undefined;
}

/** ceil(x * 1.125): the least bump every client accepts for a replacement (geth's 10%, with margin). */
const bump = (x: bigint): bigint => x + (x + 7n) / 8n;

/** The most gas `f` may burn over `gas`. */
export const maxCost = (f: EvmFees, gas: bigint): bigint => gas * (f.type === "legacy" ? f.gasPrice : f.maxFeePerGas);

function feeJson(f: EvmFees, gas: bigint): Record<string, string> {
  return f.type === "legacy"
    ? { gasPrice: f.gasPrice.toString(), gas: gas.toString() }
    : {
        maxFeePerGas: f.maxFeePerGas.toString(),
        maxPriorityFeePerGas: f.maxPriorityFeePerGas.toString(),
        gas: gas.toString(),
      };
}

/** Signs `base` at fees `f`: the attempt for `orders` (sign, replace and fill differ only in what they start from). */
export async function signEvmAttempt(
  account: PrivateKeyAccount,
  base: EvmTransactionBase,
  f: EvmFees,
  orders: ReadonlyArray<{ id: string }>,
) {
  const raw = await account.signTransaction(
    f.type === "legacy"
      ? { ...base, type: "legacy", gasPrice: f.gasPrice }
      : { ...base, type: "eip1559", maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas },
  );
  return {
    raw,
    txHash: keccak256(raw),
    from: account.address,
    guard: { nonce: base.nonce },
    fee: feeJson(f, base.gas),
    orders: orders.map((o) => ({ id: o.id })),
  };
}

/**
 * The fees of a replacement of `old`: at least 12.5% over its tip and cap (the node's replacement
 * rule), and a cap enough for today's base fee. Null when `old` carries no fees we can read.
 */
export function replacementFees(old: ParsedTransaction, lastBaseFee: bigint | null): EvmFees | null {
  if (old.type === "eip1559" && old.maxFeePerGas !== undefined && old.maxPriorityFeePerGas !== undefined) {
    const tip = bump(old.maxPriorityFeePerGas);
    const cap = [bump(old.maxFeePerGas), (lastBaseFee ?? 0n) * 2n + tip].reduce((a, b) => (a > b ? a : b));
    return { type: "eip1559", maxFeePerGas: cap, maxPriorityFeePerGas: tip };
  }
  if (old.gasPrice !== undefined) return { type: "legacy", gasPrice: bump(old.gasPrice) };
  return null;
}

/** `old`'s own fees (a refused attempt was never in a mempool, so no replacement rule applies). */
export function sameFees(old: ParsedTransaction): EvmFees | null {
  if (old.type === "eip1559" && old.maxFeePerGas !== undefined && old.maxPriorityFeePerGas !== undefined) {
    return { type: "eip1559", maxFeePerGas: old.maxFeePerGas, maxPriorityFeePerGas: old.maxPriorityFeePerGas };
  }
  if (old.gasPrice !== undefined) return { type: "legacy", gasPrice: old.gasPrice };
  return null;
}
