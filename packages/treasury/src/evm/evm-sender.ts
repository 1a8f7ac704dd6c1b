import { resolveEvmAssets } from "@mp/chain-evm";
import { type ChainId, ValidationError } from "@mp/core";
import {
  type Address,
  BaseError,
  bytesToHex,
  encodeFunctionData,
  erc20Abi,
  getAddress,
  type Hex,
  isAddress,
  parseTransaction,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  BroadcastRefusedError,
  type ChainSender,
  InsufficientTreasuryFundsError,
  type SendOrder,
} from "../chain-sender.ts";
import type { SenderFactoryOptions } from "../sender-factory-options.ts";
import { evmAttemptStatus } from "./evm-attempt-status.ts";
import { maxCost, replacementFees, sameFees, signEvmAttempt } from "./evm-attempts.ts";
import { createEvmFunds, type EvmAsset } from "./evm-funds.ts";
import { createGasEstimator, type EvmCall } from "./evm-gas.ts";
import { createEvmNode, type EvmFees, type EvmNode } from "./evm-node.ts";
import { createEvmNonces } from "./evm-nonces.ts";
import { refusedForGood } from "./evm-refusals.ts";

/** Blocks an EVM attempt may stay unmined before it is replaced with higher fees. */
const STUCK_AFTER_BLOCKS = 3;
/** A zero-value transfer to an account: what filling a refused nonce costs. */
const NATIVE_TRANSFER_GAS = 21_000n;

/** What prepare() read for sign(): no RPC happens inside the pipeline's transaction. */
interface EvmPrepared {
  chainId: number;
  /** The node's pending nonce, read only while this chain has no nonce row yet (first send). */
  startNonce: number | null;
  fees: EvmFees;
  call: { to: Address; value: bigint; data?: Hex; gas: bigint };
}

interface RpcBlock {
  hash: Hex;
}

/**
 * The EVM family's sender (viem): one treasury address per chain (TreasuryKeys.evm()), native
 * transfers and ERC-20 `transfer` of the configured tokens, EIP-1559 fees where the chain has a
 * base fee (legacy gasPrice where it has none). Nonces come from treasury_nonces (evm-nonces.ts).
 */
export function createEvmSender(options: SenderFactoryOptions & { node?: EvmNode }): ChainSender {
  const { config, db } = options;
  const chain: ChainId = config.chain;
  const assets = resolveEvmAssets(config);
  const account = privateKeyToAccount(bytesToHex(options.keys.evm().privateKey));
  const address = account.address;
  // Shared with other signers on the chain when given (the sweeper's deposit addresses): one fee read serves all.
  const node = options.node ?? createEvmNode(config, { fetch: options.fetch });
  const funds = createEvmFunds(db, node, chain, address);
  const nonces = createEvmNonces(db, node, chain, address);
  const estimateGas = createGasEstimator(node, address);
  let chainId: number | undefined;

  const assetOf = (symbol: string): EvmAsset => {
    if (symbol === assets.native.asset) return { native: true, address: null };
    const token = assets.tokens.find((t) => t.asset === symbol);
    if (!token) throw new ValidationError(`${chain} has no asset ${symbol} configured`, "asset");
    return { native: false, address: getAddress(token.address) };
  };
  const short = (what: string, needed: bigint, available: bigint) =>
    new InsufficientTreasuryFundsError(
      `the ${chain} treasury ${address} holds ${available} of ${what} not yet committed, ${needed} needed`,
      { asset: what, needed: needed.toString(), available: available.toString() },
    );

  /**
   * The order's call and gas, once its asset and the native coin (value and gas) are free of every
   * commitment; the order is then added to the commitments at once (as if its attempt were stored).
   */
  const fund = async (
    order: SendOrder,
    asset: EvmAsset,
    to: Address,
  ): Promise<{ f: EvmFees; call: EvmCall & { gas: bigint } }> => {
    const [f, held, native, pending] = await Promise.all([
      node.fees(),
      funds.cachedBalance(asset),
      asset.native ? Promise.resolve(null) : funds.cachedBalance({ native: true, address: null }),
      funds.committed(),
    ]);
    const availableAsset = held - (pending.amounts.get(order.asset) ?? 0n);
    if (availableAsset < order.amountRaw) throw short(order.asset, order.amountRaw, availableAsset);
    const call: EvmCall = asset.native
      ? { to, value: order.amountRaw }
      : {
          to: asset.address as Address,
          value: 0n,
          data: encodeFunctionData({ abi: erc20Abi, functionName: "transfer", args: [to, order.amountRaw] }),
        };
    const gas = await estimateGas(order, call);
    const nativeHeld = native ?? held;
    const nativeNeeded =
      maxCost(f, gas) +
      pending.gas +
      (asset.native ? order.amountRaw : 0n) +
      (pending.amounts.get(assets.native.asset) ?? 0n);
    if (nativeHeld < nativeNeeded) {
      throw short(`${assets.native.asset} (value and gas)`, nativeNeeded, nativeHeld);
    }
    pending.amounts.set(order.asset, (pending.amounts.get(order.asset) ?? 0n) + order.amountRaw);
    pending.gas += maxCost(f, gas);
    return { f, call: { ...call, gas } };
  };

  /** The parsed transaction of an attempt this address signed (null for a sweep's, or one without a nonce). */
  const ownTransaction = (attempt: { from: string; raw: string }) => {
    // A sweep's attempt leaves a deposit address whose key this sender does not hold: never re-signed here.
    if (attempt.from !== address) return null;
    const old = parseTransaction(attempt.raw as Hex);
    return old.nonce === undefined ? null : { ...old, nonce: old.nonce };
  };

  return {
    chain,
    address,
    maxBatch: 1,
    // prepare() adds every order it passes to the commitments at once (see fund()).
    preparesAhead: 20,
    stuckAfterBlocks: STUCK_AFTER_BLOCKS,

    async head() {
      funds.reset();
      const block = await node.head();
      return Number(BigInt(block.number));
    },

    async blockHash(height) {
      const block = await node.rpc<RpcBlock | null>("eth_getBlockByNumber", [`0x${height.toString(16)}`, false]);
      return block?.hash ?? null;
    },

    async balances() {
      const out: Record<string, bigint> = {};
      out[assets.native.asset] = await funds.balanceOf({ native: true, address: null });
      for (const token of assets.tokens) {
        out[token.asset] = await funds.balanceOf({ native: false, address: getAddress(token.address) });
      }
      return out;
    },

    async prepare(orders): Promise<EvmPrepared> {
      const [order, ...more] = orders;
      if (!order || more.length > 0) throw new Error("the EVM sender signs one order per transaction");
      if (!isAddress(order.to)) throw new ValidationError(`${order.to} is not an EVM address`, "to");
      const asset = assetOf(order.asset);
      const to = getAddress(order.to);
      chainId ??= await node.chainId();
      const { f, call } = await fund(order, asset, to);
      const startNonce = await nonces.startNonce();
      return { chainId, startNonce, fees: f, call };
    },

    async sign(tx, orders, preparedInput) {
      const prepared = preparedInput as EvmPrepared;
      const [order] = orders;
      if (!order) throw new Error("nothing to sign");
      const nonce = await nonces.allocate(tx, prepared.startNonce);
      const { call, fees: f } = prepared;
      const base = { chainId: prepared.chainId, nonce, to: call.to, value: call.value, gas: call.gas, data: call.data };
      return signEvmAttempt(account, base, f, [order]);
    },

    async broadcast(attempt) {
      try {
        await node.rpc<Hex>("eth_sendRawTransaction", [attempt.raw]);
      } catch (error) {
        // "already known", "nonce too low" after it was mined...: success when the node has it.
        const known = await node.rpc<unknown>("eth_getTransactionByHash", [attempt.txHash]);
        if (known) return;
        const said = error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String(error);
        if (refusedForGood(error)) {
          throw new BroadcastRefusedError(`${chain} node refused ${attempt.txHash}: ${said.trim()}`, attempt.txHash);
        }
        throw error;
      }
    },

    status: (attempt) => evmAttemptStatus(node, db, chain, attempt),

    async replace(_tx, attempt) {
      const old = ownTransaction(attempt);
      if (!old?.to || old.gas === undefined) return null;
      const f = replacementFees(old, node.lastBaseFee());
      if (!f) return null;
      const base = {
        chainId: old.chainId ?? chainId ?? 0,
        nonce: old.nonce,
        to: old.to,
        value: old.value ?? 0n,
        gas: old.gas,
        data: old.data,
      };
      return signEvmAttempt(account, base, f, attempt.orders);
    },

    async fill(_tx, attempt) {
      const old = ownTransaction(attempt);
      if (!old) return null;
      const f = sameFees(old);
      if (!f) return null;
      const base = {
        chainId: old.chainId ?? chainId ?? 0,
        nonce: old.nonce,
        to: address,
        value: 0n,
        gas: NATIVE_TRANSFER_GAS,
      };
      const signed = await signEvmAttempt(account, base, f, []);
      // Recorded as what it is: the filler of the refused attempt's nonce, carrying no send.
      return { ...signed, guard: { ...signed.guard, fills: attempt.id } };
    },
  };
}
