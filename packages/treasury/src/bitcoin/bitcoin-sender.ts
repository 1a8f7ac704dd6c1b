import { bitcoinNetwork } from "@mp/bitcoin-protocol";
import { BTC_ASSET, bitcoinRpc } from "@mp/chain-bitcoin";
import { JsonRpcError } from "@mp/rpc";
import { address as bitcoinAddress, Transaction } from "bitcoinjs-lib";
import { z } from "zod";
import {
  BroadcastRefusedError,
  type ChainSender,
  InsufficientTreasuryFundsError,
  type SendOrder,
  type SignedAttempt,
  type StoredAttempt,
} from "../chain-sender.ts";
import type { SenderFactoryOptions } from "../sender-factory-options.ts";
import { type BitcoinGuard, chainTip, guardInputs, locateAttempt } from "./attempt-location.ts";
import { bitcoinFeeRate, bumpedFeeRate } from "./bitcoin-fees.ts";
import { changeOf, orderOutputs, ordersAsPaid } from "./bitcoin-outputs.ts";
import { BroadcastRejectedError } from "./broadcast-rejected-error.ts";
import { replacementSpend, selectCoins, type TxOutput } from "./coin-selection.ts";
import { CORE_RPC, refusedForGood } from "./core-refusals.ts";
import { signP2wpkh } from "./sign-p2wpkh.ts";
import { TransactionFinder } from "./transaction-finder.ts";
import { treasuryCoinKeys } from "./treasury-coin-keys.ts";
import {
  coinsAt,
  freeCoins,
  freeTotal,
  heldTotal,
  insertTreasuryAddress,
  nextChangeIndex,
  recordMined,
  recordUnmined,
  releaseDeadReservations,
  reserveCoins,
  type TreasuryCoin,
} from "./utxo-store.ts";

/** Orders one transaction carries: one output each, plus change. */
const MAX_BATCH = 250;
/** Coins one transaction may spend (largest first): keeps a transaction far below the standard size limit. */
const MAX_INPUTS = 200;
/** Blocks a broadcast attempt may stay unmined before it is replaced (RBF). */
const STUCK_AFTER_BLOCKS = 3;

interface Prepared {
  feeRate: bigint;
  /** The tip it is signed above (the guard's fromHeight and fromHash). */
  tip: { fromHeight: number; fromHash: string };
}

/**
 * The Bitcoin sender: the treasury's coins (treasury_utxos) spent largest first, one output per
 * order and a fresh change address, P2WPKH signed, replaced by fee (RBF) when stuck.
 */
export function createBitcoinSender(options: SenderFactoryOptions): ChainSender {
  const { config, keys, db, logger } = options;
  const chain = config.chain;
  const network = bitcoinNetwork(config.network);
  const encoding = network.encoding;
  const rpc = bitcoinRpc(config, { fetch: options.fetch, logger });
  const finder = new TransactionFinder(rpc);
  const locate = (attempt: StoredAttempt) => locateAttempt({ chain, db, rpc, finder, logger }, attempt);
  const receive = keys.bitcoin(0, 0);
  const keyAt = treasuryCoinKeys(keys, receive);
  const outputsOf = (orders: readonly SendOrder[]) => orderOutputs(orders, chain, network);
  const short = (needed: bigint, available: bigint) =>
    new InsufficientTreasuryFundsError(
      `the ${chain} treasury holds ${available} sat in confirmed free coins, the sends need ${needed} sat with fees`,
      { asset: BTC_ASSET, needed: needed.toString(), available: available.toString() },
    );
  const feeRateNow = () => bitcoinFeeRate(rpc, config);

  /** Signs every input with the treasury key of its coin's path. */
  const signTransaction = (inputs: readonly TreasuryCoin[], outputs: readonly TxOutput[]): Transaction =>
    signP2wpkh(
      inputs.map((coin) => ({ ...coin, key: keyAt(coin.path) })),
      outputs,
      encoding,
    );

  const attemptOf = (
    tx: Transaction,
    orders: readonly SendOrder[],
    inputs: readonly TreasuryCoin[],
    rate: bigint,
    fee: bigint,
    tip: Prepared["tip"] | Record<string, never>,
  ): SignedAttempt => ({
    txHash: tx.getId(),
    raw: tx.toHex(),
    from: receive.address,
    guard: { inputs: inputs.map((c) => ({ txid: c.txid, vout: c.vout })), ...tip } satisfies BitcoinGuard,
    fee: { feeRate: rate.toString(), fee: fee.toString() },
    orders: orders.map((order, outputIndex) => ({ id: order.id, outputIndex })),
  });

  return {
    chain,
    address: receive.address,
    maxBatch: MAX_BATCH,
    stuckAfterBlocks: STUCK_AFTER_BLOCKS,

    async head() {
      return z
        .number()
        .int()
        .parse(await rpc.call("getblockcount"));
    },

    async blockHash(height) {
      try {
        return z.string().parse(await rpc.call("getblockhash", [height]));
      } catch (error) {
        if (error instanceof JsonRpcError && error.rpcCode === CORE_RPC.INVALID_PARAMETER) return null;
        throw error;
      }
    },

    async balances() {
      return { [BTC_ASSET]: await heldTotal(db, chain) };
    },

    async prepare(orders): Promise<Prepared> {
      const outputs = outputsOf(orders);
      const feeRate = await feeRateNow();
      const tip = await chainTip(rpc);
      // A dry run of sign()'s selection, without locks: sign() selects again inside its transaction.
      const coins = await freeCoins(db, chain, MAX_INPUTS, { lock: false });
      const result = selectCoins(coins, outputs, feeRate);
      if (result.inputs === null) {
        throw short(result.target + result.fee, await freeTotal(db, chain));
      }
      return { feeRate, tip } satisfies Prepared;
    },

    async sign(tx, orders, prepared) {
      const { feeRate, tip } = prepared as Prepared;
      const outputs = outputsOf(orders);
      await releaseDeadReservations(tx, chain);
      await insertTreasuryAddress(tx, chain, "send", receive);
      const coins = await freeCoins(tx, chain, MAX_INPUTS, { lock: true });
      const result = selectCoins(coins, outputs, feeRate);
      if (result.inputs === null) throw short(result.target + result.fee, result.total);
      const all = [...outputs];
      if (result.change !== null) {
        // A fresh change address per transaction (branch 1, next index), written with the attempt so
        // the indexer watches it before the transaction can be mined.
        const change = keys.bitcoin(1, await nextChangeIndex(tx, chain));
        await insertTreasuryAddress(tx, chain, "change", change);
        all.push({ script: bitcoinAddress.toOutputScript(change.address, encoding), value: result.change });
      }
      const signed = signTransaction(result.inputs, all);
      await reserveCoins(tx, chain, result.inputs, signed.getId());
      return attemptOf(signed, orders, result.inputs, feeRate, result.fee, tip);
    },

    async broadcast(attempt) {
      try {
        await rpc.call("sendrawtransaction", [attempt.raw]);
      } catch (error) {
        if (!(error instanceof JsonRpcError)) throw error;
        // Already mined: nothing to send.
        if (error.rpcCode === CORE_RPC.TRANSACTION_ALREADY_IN_CHAIN) return;
        // Inputs spent: by this very transaction (in a block, or the mempool) is success; by a
        // sibling, the pipeline sees that one land. Found by its block: no -txindex needed.
        if (error.rpcCode === CORE_RPC.TRANSACTION_ERROR) {
          const where = await locate(attempt);
          if (where.state === "mined" || where.state === "pending") return;
        }
        if (refusedForGood(error.rpcCode, error.rpcMessage)) {
          throw new BroadcastRefusedError(`${chain} node refused ${attempt.txHash}: ${error.message}`, attempt.txHash);
        }
        throw new BroadcastRejectedError(`${chain} node refused ${attempt.txHash}: ${error.message}`, {
          txHash: attempt.txHash,
          rpcCode: error.rpcCode,
        });
      }
    },

    status: locate,

    async recordStatus(tx, attempt, status) {
      if (status.state !== "mined") {
        await recordUnmined(tx, chain, attempt.txHash);
        return;
      }
      const block = { height: status.blockHeight, hash: status.blockHash };
      await recordMined(
        tx,
        chain,
        attempt.txHash,
        guardInputs(attempt),
        changeOf(attempt, Transaction.fromHex(attempt.raw), encoding),
        block,
      );
    },

    async replace(tx, attempt, orders) {
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
      const rate = bumpedFeeRate(oldRate, await feeRateNow());
      const ordered = ordersAsPaid(attempt, orders);
      const change = changeOf(attempt, previous, encoding);
      const changeScript = change === null ? null : bitcoinAddress.toOutputScript(change.address, encoding);
      const spend = replacementSpend(inputs, outputsOf(ordered), changeScript, rate);
      if (spend === null) {
        logger.warn(
          { chain, txHash: attempt.txHash, rate: rate.toString() },
          "a stuck send cannot pay a higher fee from its own inputs: left as it is",
        );
        return null;
      }
      const signed = signTransaction(inputs, spend.outputs);
      // The same tip as the attempt it replaces: neither can be in a block at or below it.
      const { fromHeight, fromHash } = attempt.guard as Partial<BitcoinGuard>;
      const tip = fromHeight === undefined || fromHash === undefined ? {} : { fromHeight, fromHash };
      return attemptOf(signed, ordered, inputs, rate, spend.fee, tip);
    },
  };
}
