import type { SendOrder, SignedAttempt } from "@mp/treasury/ports";
import type { Transaction } from "bitcoinjs-lib";
import type { BitcoinGuard } from "./attempt-location.ts";
import type { BitcoinSenderContext } from "./bitcoin-sender-context.ts";
import type { TxOutput } from "./coin-selection.ts";
import { signP2wpkh } from "./sign-p2wpkh.ts";
import type { TreasuryCoin } from "./utxo-store.ts";

/** The tip an attempt is signed above (the guard's fromHeight and fromHash); none for an older attempt's replacement. */
export type SignedAbove = { fromHeight: number; fromHash: string } | Record<string, never>;

/**
 * Signs every input with the treasury key of its coin's path. nLockTime is the tip it is signed
 * above (`tip.fromHeight`, as Bitcoin Core sets it against fee sniping; 0 for a replacement of an
 * attempt stored before tips were): a payout signed again from the same coins to the same outputs
 * without change (a failed one re-sent) then gets a new hash above a later tip instead of the
 * stored failed attempt's, which the store refuses (docs/treasury.md).
 */
export function signTreasuryCoins(
  ctx: BitcoinSenderContext,
  inputs: readonly TreasuryCoin[],
  outputs: readonly TxOutput[],
  tip: SignedAbove,
): Transaction {
  return signP2wpkh(
    inputs.map((coin) => ({ ...coin, key: ctx.keyAt(coin.path) })),
    outputs,
    ctx.network.encoding,
    tip.fromHeight ?? 0,
  );
}

/** The attempt as stored: its coins and tip as the guard, the fee rate and fee, order i paid at output i. */
export function bitcoinAttempt(
  ctx: BitcoinSenderContext,
  tx: Transaction,
  orders: readonly SendOrder[],
  inputs: readonly TreasuryCoin[],
  rate: bigint,
  fee: bigint,
  tip: SignedAbove,
): SignedAttempt {
  return {
    txHash: tx.getId(),
    raw: tx.toHex(),
    from: ctx.receive.address,
    guard: { inputs: inputs.map((c) => ({ txid: c.txid, vout: c.vout })), ...tip } satisfies BitcoinGuard,
    fee: { feeRate: rate.toString(), fee: fee.toString() },
    orders: orders.map((order, outputIndex) => ({ id: order.id, outputIndex })),
  };
}
