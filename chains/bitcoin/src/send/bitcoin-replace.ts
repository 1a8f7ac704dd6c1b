import type { Queryable } from "@mp/db";
import type { SendOrder, SignedAttempt, StoredAttempt } from "@mp/treasury/ports";
import { address as bitcoinAddress, Transaction } from "bitcoinjs-lib";
import { type BitcoinGuard, guardInputs } from "./attempt-location.ts";
import { bitcoinAttempt, signTreasuryCoins } from "./bitcoin-attempts.ts";
import { bitcoinFeeRate, bumpedFeeRate } from "./bitcoin-fees.ts";
import { changeOf, orderOutputs, ordersAsPaid } from "./bitcoin-outputs.ts";
import type { BitcoinSenderContext } from "./bitcoin-sender-context.ts";
import { replacementSpend } from "./coin-selection.ts";
import { coinsAt } from "./utxo-store.ts";

/**
 * A stuck send replaced by fee (RBF): the same coins for the same payments at the same outputs,
 * at a bumped fee rate taken from the change. Null when it is a sweep's (the sweeper bumps those)
 * or its own coins cannot pay more.
 */
export async function replaceBitcoinAttempt(
  ctx: BitcoinSenderContext,
  tx: Queryable,
  attempt: StoredAttempt,
  orders: readonly SendOrder[],
): Promise<SignedAttempt | null> {
  const { chain, logger } = ctx;
  const encoding = ctx.network.encoding;
  const previous = Transaction.fromHex(attempt.raw);
  const inputs = await coinsAt(tx, chain, guardInputs(attempt));
  if (inputs.length === 0) {
    // A sweep's: its inputs are deposit outputs, signed with deposit keys this sender does not hold;
    // the Bitcoin sweeper (which holds them) bumps it.
    logger.debug({ chain, txHash: attempt.txHash }, "a stuck sweep is replaced by the sweeper, not here");
    return null;
  }
  if (inputs.length !== previous.ins.length) {
    throw new Error(`the coins of ${attempt.txHash} are not all in treasury_utxos`);
  }
  const oldRate = BigInt(String((attempt.fee as { feeRate?: unknown }).feeRate ?? "0"));
  const rate = bumpedFeeRate(oldRate, await bitcoinFeeRate(ctx.rpc, ctx.config));
  const ordered = ordersAsPaid(attempt, orders);
  const change = changeOf(attempt, previous, encoding);
  const changeScript = change === null ? null : bitcoinAddress.toOutputScript(change.address, encoding);
  const spend = replacementSpend(inputs, orderOutputs(ordered, chain, ctx.network), changeScript, rate);
  if (spend === null) {
    logger.warn(
      { chain, txHash: attempt.txHash, rate: rate.toString() },
      "a stuck send cannot pay a higher fee from its own inputs: left as it is",
    );
    return null;
  }
  // The same tip as the attempt it replaces: neither can be in a block at or below it.
  const { fromHeight, fromHash } = attempt.guard as Partial<BitcoinGuard>;
  const tip = fromHeight === undefined || fromHash === undefined ? {} : { fromHeight, fromHash };
  const signed = signTreasuryCoins(ctx, inputs, spend.outputs, tip);
  return bitcoinAttempt(ctx, signed, ordered, inputs, rate, spend.fee, tip);
}
