import { bitcoinNetwork } from "@mp/bitcoin-protocol";
import { JsonRpcError } from "@mp/rpc";
import type { ChainSender, SenderFactoryOptions, StoredAttempt } from "@mp/treasury/ports";
import { Transaction } from "bitcoinjs-lib";
import { z } from "zod";
import { bitcoinRpc } from "../bitcoin-rpc.ts";
import { BTC_ASSET } from "../block-transfers.ts";
import { guardInputs, locateAttempt } from "./attempt-location.ts";
import { broadcastBitcoin } from "./bitcoin-broadcast.ts";
import { changeOf } from "./bitcoin-outputs.ts";
import { replaceBitcoinAttempt } from "./bitcoin-replace.ts";
import type { BitcoinSenderContext } from "./bitcoin-sender-context.ts";
import { type BitcoinPrepared, prepareBitcoinSpend, signBitcoinSpend } from "./bitcoin-spend.ts";
import { CORE_RPC } from "./core-refusals.ts";
import { TransactionFinder } from "./transaction-finder.ts";
import { treasuryCoinKeys } from "./treasury-coin-keys.ts";
import { heldTotal, recordMined, recordUnmined } from "./utxo-store.ts";

/** Orders one transaction carries: one output each, plus change. */
const MAX_BATCH = 250;
/** Blocks a broadcast attempt may stay unmined before it is replaced (RBF). */
const STUCK_AFTER_BLOCKS = 3;

/**
 * The Bitcoin sender: the treasury's coins (treasury_utxos) spent largest first, one output per
 * order and a fresh change address, P2WPKH signed (bitcoin-spend.ts), replaced by fee (RBF) when
 * stuck (bitcoin-replace.ts), found by its block without -txindex (attempt-location.ts).
 */
export function createBitcoinSender(options: SenderFactoryOptions): ChainSender {
  const { config, keys, db, logger } = options;
  const chain = config.chain;
  const rpc = bitcoinRpc(config, { fetch: options.fetch, logger });
  const finder = new TransactionFinder(rpc);
  const receive = keys.key("bitcoin");
  const ctx: BitcoinSenderContext = {
    chain,
    config,
    db,
    logger,
    rpc,
    network: bitcoinNetwork(config.network),
    keys,
    receive,
    keyAt: treasuryCoinKeys(keys, receive),
    locate: (attempt: StoredAttempt) => locateAttempt({ chain, db, rpc, finder, logger }, attempt),
  };

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

    prepare: (orders) => prepareBitcoinSpend(ctx, orders),
    sign: (tx, orders, prepared) => signBitcoinSpend(ctx, tx, orders, prepared as BitcoinPrepared),
    broadcast: (attempt) => broadcastBitcoin(ctx, attempt),
    status: ctx.locate,

    async recordStatus(tx, attempt, status) {
      if (status.state !== "mined") {
        await recordUnmined(tx, chain, attempt.txHash);
        return;
      }
      const block = { height: status.blockHeight, hash: status.blockHash };
      const change = changeOf(attempt, Transaction.fromHex(attempt.raw), ctx.network.encoding);
      await recordMined(tx, chain, attempt.txHash, guardInputs(attempt), change, block);
    },

    replace: (tx, attempt, orders) => replaceBitcoinAttempt(ctx, tx, attempt, orders),
  };
}
