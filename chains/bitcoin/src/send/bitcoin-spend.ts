import type { Queryable } from "@mp/db";
import { InsufficientTreasuryFundsError, type SendOrder, type SignedAttempt } from "@mp/treasury/ports";
import { address as bitcoinAddress } from "bitcoinjs-lib";
import { BTC_ASSET } from "../block-transfers.ts";
import { chainTip } from "./attempt-location.ts";
import { bitcoinAttempt, signTreasuryCoins } from "./bitcoin-attempts.ts";
import { bitcoinFeeRate } from "./bitcoin-fees.ts";
import { orderOutputs } from "./bitcoin-outputs.ts";
import type { BitcoinSenderContext } from "./bitcoin-sender-context.ts";
import { selectCoins } from "./coin-selection.ts";
import {
  freeCoins,
  freeTotal,
  insertTreasuryAddress,
  nextChangeIndex,
  releaseDeadReservations,
  reserveCoins,
} from "./utxo-store.ts";

/** Coins one transaction may spend (largest first): keeps a transaction far below the standard size limit. */
const MAX_INPUTS = 200;

/** What prepare() read for sign(): no RPC happens inside the pipeline's transaction. */
export interface BitcoinPrepared {
  feeRate: bigint;
  /** The tip it is signed above (the guard's fromHeight and fromHash). */
  tip: { fromHeight: number; fromHash: string };
}

function short(ctx: BitcoinSenderContext, needed: bigint, available: bigint) {
  return new InsufficientTreasuryFundsError(
    `the ${ctx.chain} treasury holds ${available} sat in confirmed free coins, the sends need ${needed} sat with fees`,
    { asset: BTC_ASSET, needed: needed.toString(), available: available.toString() },
  );
}

/** The fee rate and tip, once a dry run of sign()'s coin selection (without locks) shows the free coins cover the orders. */
export async function prepareBitcoinSpend(
  ctx: BitcoinSenderContext,
  orders: readonly SendOrder[],
): Promise<BitcoinPrepared> {
  const { db, chain } = ctx;
  const outputs = orderOutputs(orders, chain, ctx.network);
  const feeRate = await bitcoinFeeRate(ctx.rpc, ctx.config);
  const tip = await chainTip(ctx.rpc);
  // A dry run of sign()'s selection, without locks: sign() selects again inside its transaction.
  const coins = await freeCoins(db, chain, MAX_INPUTS, { lock: false });
  const result = selectCoins(coins, outputs, feeRate);
  if (result.inputs === null) {
    throw short(ctx, result.target + result.fee, await freeTotal(db, chain));
  }
  return { feeRate, tip };
}

/**
 * In the pipeline's transaction: selects and locks the free coins, adds a fresh change address when
 * change is due, signs, and reserves the coins for this attempt.
 */
export async function signBitcoinSpend(
  ctx: BitcoinSenderContext,
  tx: Queryable,
  orders: readonly SendOrder[],
  prepared: BitcoinPrepared,
): Promise<SignedAttempt> {
  const { chain } = ctx;
  const { feeRate, tip } = prepared;
  const outputs = orderOutputs(orders, chain, ctx.network);
  await releaseDeadReservations(tx, chain);
  await insertTreasuryAddress(tx, chain, "send", ctx.receive);
  const coins = await freeCoins(tx, chain, MAX_INPUTS, { lock: true });
  const result = selectCoins(coins, outputs, feeRate);
  if (result.inputs === null) throw short(ctx, result.target + result.fee, result.total);
  const all = [...outputs];
  if (result.change !== null) {
    // A fresh change address per transaction (branch 1, next index), written with the attempt so
    // the indexer watches it before the transaction can be mined.
    const change = ctx.keys.key("bitcoin", 1, await nextChangeIndex(tx, chain));
    await insertTreasuryAddress(tx, chain, "change", change);
    all.push({ script: bitcoinAddress.toOutputScript(change.address, ctx.network.encoding), value: result.change });
  }
  const signed = signTreasuryCoins(ctx, result.inputs, all, tip);
  await reserveCoins(tx, chain, result.inputs, signed.getId());
  return bitcoinAttempt(ctx, signed, orders, result.inputs, feeRate, result.fee, tip);
}
