import { bitcoinNetwork } from "@mp/bitcoin-protocol";
import { BTC_ASSET, bitcoinRpc } from "@mp/chain-bitcoin";
import { AppError, ValidationError } from "@mp/core";
import type { TreasuryKey } from "@mp/custody";
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
import { bitcoinFeeRate, bumpedFeeRate, estimateVsize, feeFor, outputBytes, P2WPKH_DUST } from "./bitcoin-fees.ts";
import { CORE_RPC, refusedForGood } from "./core-refusals.ts";
import { signP2wpkh } from "./sign-p2wpkh.ts";
import { TransactionFinder } from "./transaction-finder.ts";
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
/**
 * The node refused the transaction (Core's code and reject reason in the message: a replacement
 * paying too little, inputs spent by a sibling ...). Stored attempts are never lost: the pipeline
 * broadcasts again next pass, and status() settles what can no longer land.
 */
export class BroadcastRejectedError extends AppError {
  constructor(message: string, details: { txHash: string; rpcCode: number }) {
    super("service_unavailable", message, { retryable: true, details });
  }
}

interface Prepared {
  feeRate: bigint;
  /** The tip it is signed above (the guard's fromHeight and fromHash). */
  tip: { fromHeight: number; fromHash: string };
}

export function createBitcoinSender(options: SenderFactoryOptions): ChainSender {
  const { config, keys, db, logger } = options;
  const chain = config.chain;
  const network = bitcoinNetwork(config.network);
  const encoding = network.encoding;
  const rpc = bitcoinRpc(config, { fetch: options.fetch, logger });
  const finder = new TransactionFinder(rpc);
  const locate = (attempt: StoredAttempt) => locateAttempt({ chain, db, rpc, finder, logger }, attempt);
  const receive = keys.bitcoin(0, 0);
  const keyCache = new Map<string, TreasuryKey>([[receive.path, receive]]);

  /** The key at a treasury path `m/84'/c'/0'/<branch>/<index>`. */
  const keyAt = (path: string): TreasuryKey => {
    const cached = keyCache.get(path);
    if (cached) return cached;
    const [branch, index] = path.split("/").slice(-2).map(Number);
    if ((branch !== 0 && branch !== 1) || index === undefined || !Number.isInteger(index)) {
      throw new Error(`treasury coin at an unknown path ${path}`);
    }
    const key = keys.bitcoin(branch, index);
    if (key.path !== path) throw new Error(`treasury path ${path} is not this treasury's (${key.path})`);
    keyCache.set(path, key);
    return key;
  };

  const outputsOf = (orders: readonly SendOrder[]) =>
    orders.map((order) => {
      if (order.asset !== BTC_ASSET) throw new ValidationError(`${chain} sends ${BTC_ASSET} only, not ${order.asset}`);
      let script: Uint8Array;
      try {
        script = bitcoinAddress.toOutputScript(order.to, encoding);
      } catch {
        throw new ValidationError(`${order.to} is not a ${network.name} Bitcoin address`, "to");
      }
      if (order.amountRaw < P2WPKH_DUST) {
        throw new ValidationError(`${order.amountRaw} sat is below the dust limit (${P2WPKH_DUST})`, "amount");
      }
      return { script, value: order.amountRaw };
    });

  /** Largest coins first until they pay the outputs and the fee (with a change output). */
  const plan = (coins: readonly TreasuryCoin[], outputs: { script: Uint8Array; value: bigint }[], rate: bigint) => {
    const target = outputs.reduce((sum, o) => sum + o.value, 0n);
    const bytes = outputs.reduce((sum, o) => sum + outputBytes(o.script), 0);
    const changeBytes = 8 + 1 + 22;
    const inputs: TreasuryCoin[] = [];
    let total = 0n;
    for (const coin of coins) {
      inputs.push(coin);
      total += coin.amountRaw;
      const withChange = feeFor(estimateVsize(inputs.length, outputs.length + 1, bytes + changeBytes), rate);
      if (total >= target + withChange) {
        const change = total - target - withChange;
        if (change >= P2WPKH_DUST) return { inputs, fee: withChange, change, total, target } as const;
        // Change would be dust: leave it out and let the fee take it.
        return { inputs, fee: total - target, change: null, total, target } as const;
      }
      const without = feeFor(estimateVsize(inputs.length, outputs.length, bytes), rate);
      if (total >= target + without) return { inputs, fee: total - target, change: null, total, target } as const;
    }
    const fee = feeFor(estimateVsize(Math.max(inputs.length, 1), outputs.length + 1, bytes + changeBytes), rate);
    return { inputs: null, total, target, fee } as const;
  };

  const short = (needed: bigint, available: bigint) =>
    new InsufficientTreasuryFundsError(
      `the ${chain} treasury holds ${available} sat in confirmed free coins, the sends need ${needed} sat with fees`,
      { asset: BTC_ASSET, needed: needed.toString(), available: available.toString() },
    );

  const feeRateNow = () => bitcoinFeeRate(rpc, config);

  /** Signs every input with the treasury key of its coin's path. */
  const signTransaction = (
    inputs: readonly TreasuryCoin[],
    outputs: readonly { script: Uint8Array; value: bigint }[],
  ): Transaction =>
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

  /** The change output of a stored attempt: the one output no order names. */
  const changeOf = (attempt: StoredAttempt, tx: Transaction) => {
    const named = new Set(attempt.orders.map((o) => o.outputIndex));
    for (const [vout, output] of tx.outs.entries()) {
      if (named.has(vout)) continue;
      return { vout, address: bitcoinAddress.fromOutputScript(output.script, encoding), amountRaw: output.value };
    }
    return null;
  };

  const guardOf = guardInputs;

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
      const result = plan(coins, outputs, feeRate);
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
      const result = plan(coins, outputs, feeRate);
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
        guardOf(attempt),
        changeOf(attempt, Transaction.fromHex(attempt.raw)),
        block,
      );
    },

    async replace(tx, attempt, orders) {
      const previous = Transaction.fromHex(attempt.raw);
      const inputs = await coinsAt(tx, chain, guardOf(attempt));
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
      // The orders in the output order of the attempt it replaces: the same payments at the same indexes.
      const byId = new Map(orders.map((order) => [order.id, order]));
      const ordered = [...attempt.orders]
        .sort((a, b) => (a.outputIndex ?? 0) - (b.outputIndex ?? 0))
        .map((o, index) => {
          const order = byId.get(o.id);
          if (order === undefined || o.outputIndex !== index) {
            throw new Error(`attempt ${attempt.id} does not pay its orders at outputs 0..${attempt.orders.length - 1}`);
          }
          return order;
        });
      const outputs = outputsOf(ordered);
      const total = inputs.reduce((sum, c) => sum + c.amountRaw, 0n);
      const target = outputs.reduce((sum, o) => sum + o.value, 0n);
      const change = changeOf(attempt, previous);
      const bytes = outputs.reduce((sum, o) => sum + outputBytes(o.script), 0);
      const changeScript = change === null ? null : bitcoinAddress.toOutputScript(change.address, encoding);
      const withChange = feeFor(estimateVsize(inputs.length, outputs.length + 1, bytes + 31), rate);
      const all = [...outputs];
      let fee: bigint;
      if (changeScript !== null && total - target - withChange >= P2WPKH_DUST) {
        // Same inputs, same payments, the same change address paid less: only the fee grows.
        fee = withChange;
        all.push({ script: changeScript, value: total - target - withChange });
      } else {
        fee = total - target;
        const needed = feeFor(estimateVsize(inputs.length, outputs.length, bytes), rate);
        if (fee < needed) {
          logger.warn(
            { chain, txHash: attempt.txHash, rate: rate.toString() },
            "a stuck send cannot pay a higher fee from its own inputs: left as it is",
          );
          return null;
        }
      }
      const signed = signTransaction(inputs, all);
      // The same tip as the attempt it replaces: neither can be in a block at or below it.
      const { fromHeight, fromHash } = attempt.guard as Partial<BitcoinGuard>;
      const tip = fromHeight === undefined || fromHash === undefined ? {} : { fromHeight, fromHash };
      return attemptOf(signed, ordered, inputs, rate, fee, tip);
    },
  };
}
