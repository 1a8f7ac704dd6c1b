import type { ChainId } from "@mp/core";
import { ValidationError } from "@mp/core";
import { InsufficientTreasuryFundsError, type SendOrder } from "@mp/treasury/ports";
import { type Address, encodeFunctionData, erc20Abi, getAddress, type Hex, isAddress } from "viem";
import { maxCost } from "./evm-attempts.ts";
import type { EvmAsset, EvmFunds } from "./evm-funds.ts";
import type { EvmCall } from "./evm-gas.ts";
import type { EvmFees, EvmNode } from "./evm-node.ts";
import type { EvmNonces } from "./evm-nonces.ts";

/** What prepare() read for sign(): no RPC happens inside the pipeline's transaction. */
export interface EvmPrepared {
  chainId: number;
  /** The node's pending nonce, read only while this chain has no nonce row yet (first send). */
  startNonce: number | null;
  fees: EvmFees;
  call: { to: Address; value: bigint; data?: Hex; gas: bigint };
}

export interface EvmPreparer {
  /** Checks the order and the funds it needs, reads fees, gas and (first send) the nonce: all RPC before sign(). */
  prepare(orders: readonly SendOrder[]): Promise<EvmPrepared>;
  /** The chain id read by the first prepare(), if any. */
  knownChainId(): number | undefined;
}

export interface EvmPreparerContext {
  chain: ChainId;
  address: Address;
  assets: { native: { asset: string }; tokens: ReadonlyArray<{ asset: string; address: string }> };
  node: EvmNode;
  funds: EvmFunds;
  nonces: EvmNonces;
  estimateGas: (order: SendOrder, call: EvmCall) => Promise<bigint>;
}

export function createEvmPreparer(ctx: EvmPreparerContext): EvmPreparer {
  const { chain, address, assets, node, funds, nonces, estimateGas } = ctx;
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

  return {
    async prepare(orders) {
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
    knownChainId: () => chainId,
  };
}
