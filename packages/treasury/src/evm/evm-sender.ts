import { checkEvmChainId, resolveEvmAssets } from "@mp/chain-evm";
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
  keccak256,
  parseTransaction,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import {
  BroadcastRefusedError,
  type ChainSender,
  InsufficientTreasuryFundsError,
  type SendOrder,
} from "../chain-sender.ts";
import type { SenderFactoryOptions } from "../sender-factories.ts";
import { createEvmNode, type EvmFees, type EvmNode } from "./evm-node.ts";
import { refusedForGood } from "./evm-refusals.ts";
import { reusedFor } from "./reused-promise.ts";

/** Blocks an EVM attempt may stay unmined before it is replaced with higher fees. */
const STUCK_AFTER_BLOCKS = 3;
/** A gas estimate per (asset, recipient) is reused this long. */
const GAS_TTL_MS = 60_000;
/** A zero-value transfer to an account: what filling a refused nonce costs. */
const NATIVE_TRANSFER_GAS = 21_000n;
/** Balances for the funds check are reused this long at most (see cachedBalance). */
const BALANCE_TTL_MS = 2_000;

/** What prepare() read for sign(): no RPC happens inside the pipeline's transaction. */
interface EvmPrepared {
  chainId: number;
  /** The node's pending nonce, read only while this chain has no nonce row yet (first send). */
  startNonce: number | null;
  fees: Fees;
  call: { to: Address; value: bigint; data?: Hex; gas: bigint };
}

type Fees = EvmFees;

interface RpcBlock {
  hash: Hex;
}
interface RpcReceipt {
  blockNumber: Hex;
  blockHash: Hex;
  status: Hex;
}

/** ceil(x * 1.125): the least bump every client accepts for a replacement (geth's 10%, with margin). */
const bump = (x: bigint): bigint => x + (x + 7n) / 8n;

/**
 * The EVM family's sender (viem): one treasury address per chain (TreasuryKeys.evm()), native
 * transfers and ERC-20 `transfer` of the configured tokens, EIP-1559 fees where the chain has a
 * base fee (legacy gasPrice where it has none). Nonces come from treasury_nonces, allocated under
 * the row's lock in the pipeline's transaction, so two sends can never share one and a stored
 * attempt exists for every nonce handed out (no gap a crash could leave unexplained).
 */
export function createEvmSender(options: SenderFactoryOptions & { node?: EvmNode }): ChainSender {
  const { config, db } = options;
  const chain: ChainId = config.chain;
  const assets = resolveEvmAssets(config);
  const key = options.keys.evm();
  const account = privateKeyToAccount(bytesToHex(key.privateKey));
  const address = account.address;
  // Shared with other signers on the chain when given (the sweeper's deposit addresses): one fee read serves all.
  const node = options.node ?? createEvmNode(config, { fetch: options.fetch });
  const rpc = node.rpc;

  let chainId: number | undefined;
  let nonceRowKnown = false;
  const gasCache = new Map<string, { at: number; gas: bigint }>();

  const assetOf = (symbol: string) => {
    if (symbol === assets.native.asset) return { native: true as const, address: null };
    const token = assets.tokens.find((t) => t.asset === symbol);
    if (!token) throw new ValidationError(`${chain} has no asset ${symbol} configured`, "asset");
    return { native: false as const, address: getAddress(token.address) };
  };

  const currentFees = (): Promise<Fees> => node.fees();

  const maxCost = (f: Fees, gas: bigint) => gas * (f.type === "legacy" ? f.gasPrice : f.maxFeePerGas);

  /**
   * Balances read for the funds check, reused until the next head() (the pipeline's next pass) or
   * for BALANCE_TTL_MS. Sound because the check subtracts every send not yet recorded as landed:
   * a transfer mined after the read is still subtracted (the pipeline records landings only in its
   * status step, after head()), so a stale balance errs on the side of waiting, never of overspending.
   */
  let balanceCache = new Map<string, { at: number; value: Promise<bigint> }>();
  const cachedBalance = (asset: { native: boolean; address: Address | null }): Promise<bigint> => {
    const cacheKey = asset.address ?? "native";
    const hit = balanceCache.get(cacheKey);
    if (hit && performance.now() - hit.at < BALANCE_TTL_MS) return hit.value;
    const value = balanceOf(asset);
    balanceCache.set(cacheKey, { at: performance.now(), value });
    value.catch(() => balanceCache.delete(cacheKey));
    return value;
  };

  const balanceOf = async (asset: { native: boolean; address: Address | null }): Promise<bigint> => {
    if (asset.native || !asset.address) return BigInt(await rpc<Hex>("eth_getBalance", [address, "latest"]));
    const data = encodeFunctionData({ abi: erc20Abi, functionName: "balanceOf", args: [address] });
    return BigInt(await rpc<Hex>("eth_call", [{ to: asset.address, data }, "latest"]));
  };

  /**
   * What sends not yet mined will take from the treasury (the node's latest balance does not show
   * them yet): per asset their amounts, and the most gas their open attempts may burn. Only what this
   * address signed: a sweep's send leaves a deposit address, not the treasury.
   */
  const reserved = async (): Promise<{ amounts: Map<string, bigint>; gas: bigint }> => {
    const { rows } = await db.query<{ asset: string | null; amount: string }>(
      `SELECT asset, sum(amount_raw)::text AS amount FROM (
         SELECT DISTINCT s.id, s.asset, s.amount_raw
           FROM treasury_attempts a
           JOIN treasury_attempt_sends x ON x.attempt_id = a.id
           JOIN treasury_sends s ON s.id = x.send_id
          WHERE a.chain = $1 AND a.from_address = $2 AND a.state IN ('signed', 'broadcast')
            AND s.state IN ('signed', 'broadcast') AND s.landed_attempt_id IS NULL) open_sends
        GROUP BY asset
       UNION ALL
       SELECT NULL, COALESCE(sum((a.fee->>'gas')::numeric * COALESCE(a.fee->>'maxFeePerGas', a.fee->>'gasPrice')::numeric), 0)::text
         FROM treasury_attempts a
        WHERE a.chain = $1 AND a.from_address = $2 AND a.state IN ('signed', 'broadcast')
          AND NOT EXISTS (SELECT 1 FROM treasury_attempts r WHERE r.replaces = a.id)`,
      [chain, address],
    );
    const amounts = new Map<string, bigint>();
    let gas = 0n;
    for (const row of rows) {
      if (row.asset === null) gas = BigInt(row.amount.split(".")[0] ?? "0");
      else amounts.set(row.asset, BigInt(row.amount));
    }
    return { amounts, gas };
  };

  /**
   * reserved(), read once per pass like the balances, then kept up to date here: every order that
   * passes the funds check is added at once, as if its attempt were already stored. An order whose
   * signing then fails stays counted until the next pass: it can make a send wait, never overspend.
   */
  const commitments = reusedFor(BALANCE_TTL_MS, () => reserved());
  const committed = commitments.get;

  const estimateGas = async (order: SendOrder, call: { to: Address; value: bigint; data?: Hex }): Promise<bigint> => {
    const cacheKey = `${order.asset}|${call.to}|${order.to.toLowerCase()}`;
    const cached = gasCache.get(cacheKey);
    if (cached && performance.now() - cached.at < GAS_TTL_MS) return cached.gas;
    const estimate = BigInt(
      await rpc<Hex>("eth_estimateGas", [
        {
          from: address,
          to: call.to,
          value: `0x${call.value.toString(16)}`,
          ...(call.data ? { data: call.data } : {}),
        },
      ]),
    );
    // A plain transfer to an account costs exactly 21000; anything running code gets a margin.
    const gas = estimate === 21_000n ? estimate : estimate + estimate / 4n;
    gasCache.set(cacheKey, { at: performance.now(), gas });
    return gas;
  };

  const feeJson = (f: Fees, gas: bigint): Record<string, string> =>
    f.type === "legacy"
      ? { gasPrice: f.gasPrice.toString(), gas: gas.toString() }
      : {
          maxFeePerGas: f.maxFeePerGas.toString(),
          maxPriorityFeePerGas: f.maxPriorityFeePerGas.toString(),
          gas: gas.toString(),
        };

  /** Signs `base` at fees `f`: the attempt for `orders` (sign and replace differ only in what they start from). */
  const signAttempt = async (
    base: { chainId: number; nonce: number; to: Address; value: bigint; gas: bigint; data?: Hex | undefined },
    f: Fees,
    orders: ReadonlyArray<{ id: string }>,
  ) => {
    const raw = await account.signTransaction(
      f.type === "legacy"
        ? { ...base, type: "legacy", gasPrice: f.gasPrice }
        : { ...base, type: "eip1559", maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas },
    );
    return {
      raw,
      txHash: keccak256(raw),
      from: address,
      guard: { nonce: base.nonce },
      fee: feeJson(f, base.gas),
      orders: orders.map((o) => ({ id: o.id })),
    };
  };

  const receipt = (hash: string) => rpc<RpcReceipt | null>("eth_getTransactionReceipt", [hash]);

  return {
    chain,
    address,
    maxBatch: 1,
    // prepare() adds every order it passes to its commitments at once (see committed()).
    preparesAhead: 20,
    stuckAfterBlocks: STUCK_AFTER_BLOCKS,

    // It signs for the node's chain id: a node of another chain would have it pay out there.
    verifyNode: async () => checkEvmChainId(assets.chain, config.network, await node.chainId()),

    async head() {
      balanceCache = new Map();
      commitments.reset();
      const block = await node.head();
      return Number(BigInt(block.number));
    },

    async blockHash(height) {
      const block = await rpc<RpcBlock | null>("eth_getBlockByNumber", [`0x${height.toString(16)}`, false]);
      return block?.hash ?? null;
    },

    async balances() {
      const out: Record<string, bigint> = {};
      out[assets.native.asset] = await balanceOf({ native: true, address: null });
      for (const token of assets.tokens) {
        out[token.asset] = await balanceOf({ native: false, address: getAddress(token.address) });
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
      const [f, held, native, pending] = await Promise.all([
        currentFees(),
        cachedBalance(asset),
        asset.native ? Promise.resolve(null) : cachedBalance({ native: true, address: null }),
        committed(),
      ]);
      const short = (what: string, needed: bigint, available: bigint) =>
        new InsufficientTreasuryFundsError(
          `the ${chain} treasury ${address} holds ${available} of ${what} not yet committed, ${needed} needed`,
          { asset: what, needed: needed.toString(), available: available.toString() },
        );
      const availableAsset = held - (pending.amounts.get(order.asset) ?? 0n);
      if (availableAsset < order.amountRaw) throw short(order.asset, order.amountRaw, availableAsset);
      const call = asset.native
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
      let startNonce: number | null = null;
      if (!nonceRowKnown) {
        const { rows } = await db.query("SELECT 1 FROM treasury_nonces WHERE chain = $1 AND address = $2", [
          chain,
          address,
        ]);
        if (rows.length === 1) nonceRowKnown = true;
        else startNonce = Number(BigInt(await rpc<Hex>("eth_getTransactionCount", [address, "pending"])));
      }
      return { chainId, startNonce, fees: f, call: { ...call, gas } };
    },

    async sign(tx, orders, preparedInput) {
      const prepared = preparedInput as EvmPrepared;
      const [order] = orders;
      if (!order) throw new Error("nothing to sign");
      // Issued without waiting: it goes out with the UPDATE below (one round trip), which awaits it.
      const initialised =
        prepared.startNonce === null
          ? Promise.resolve()
          : tx.query(
              `INSERT INTO treasury_nonces (chain, address, next_nonce) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
              [chain, address, prepared.startNonce],
            );
      // The UPDATE takes the row's lock until this transaction ends: the next signer waits for our
      // commit (or rollback, which hands the same nonce out again: no gap).
      const [, { rows }] = await Promise.all([
        initialised,
        tx.query<{ nonce: string }>(
          `UPDATE treasury_nonces SET next_nonce = next_nonce + 1 WHERE chain = $1 AND address = $2
           RETURNING (next_nonce - 1)::text AS nonce`,
          [chain, address],
        ),
      ]);
      const allocated = rows[0];
      if (!allocated) throw new Error(`no nonce row for ${chain} ${address}`);
      nonceRowKnown = true;
      const nonce = Number(allocated.nonce);
      const { call, fees: f } = prepared;
      const base = { chainId: prepared.chainId, nonce, to: call.to, value: call.value, gas: call.gas, data: call.data };
      return signAttempt(base, f, [order]);
    },

    async broadcast(attempt) {
      try {
        await rpc<Hex>("eth_sendRawTransaction", [attempt.raw]);
      } catch (error) {
        // "already known", "nonce too low" after it was mined...: success when the node has it.
        const known = await rpc<unknown>("eth_getTransactionByHash", [attempt.txHash]);
        if (known) return;
        const said = error instanceof BaseError ? `${error.shortMessage} ${error.details}` : String(error);
        if (refusedForGood(error)) {
          throw new BroadcastRefusedError(`${chain} node refused ${attempt.txHash}: ${said.trim()}`, attempt.txHash);
        }
        throw error;
      }
    },

    async status(attempt) {
      const mined = await receipt(attempt.txHash);
      if (mined) {
        const blockHeight = Number(BigInt(mined.blockNumber));
        if (BigInt(mined.status) === 1n) return { state: "mined", blockHeight, blockHash: mined.blockHash };
        return {
          state: "failed",
          blockHeight,
          blockHash: mined.blockHash,
          reason: `reverted on chain (transaction ${attempt.txHash}, block ${blockHeight})`,
        };
      }
      if (await rpc<unknown>("eth_getTransactionByHash", [attempt.txHash])) return { state: "pending" };
      // Not in a block nor in the mempool. It can never land once another of our transactions with
      // its nonce has: then it is expired (a replacement outbid it, or its send was signed again).
      const nonce = Number(attempt.guard.nonce);
      const { rows } = await db.query<{ tx_hash: string }>(
        `SELECT tx_hash FROM treasury_attempts
          WHERE chain = $1 AND from_address = $2 AND guard->>'nonce' = $3 AND id <> $4`,
        [chain, attempt.from, String(nonce), attempt.id],
      );
      for (const row of rows) {
        if (await receipt(row.tx_hash)) {
          return { state: "expired", reason: `nonce ${nonce} was used by ${row.tx_hash}` };
        }
      }
      return { state: "unknown" };
    },

    async replace(_tx, attempt) {
      // A sweep's attempt leaves a deposit address whose key this sender does not hold: never re-signed here.
      if (attempt.from !== address) return null;
      const old = parseTransaction(attempt.raw as Hex);
      if (old.nonce === undefined || !old.to || old.gas === undefined) return null;
      const base = {
        chainId: old.chainId ?? chainId ?? 0,
        nonce: old.nonce,
        to: old.to,
        value: old.value ?? 0n,
        gas: old.gas,
        data: old.data,
      };
      let f: Fees;
      if (old.type === "eip1559" && old.maxFeePerGas !== undefined && old.maxPriorityFeePerGas !== undefined) {
        const tip = bump(old.maxPriorityFeePerGas);
        // At least 12.5% over the old cap (the node's replacement rule), and enough for today's base fee.
        const cap = [bump(old.maxFeePerGas), (node.lastBaseFee() ?? 0n) * 2n + tip].reduce((a, b) => (a > b ? a : b));
        f = { type: "eip1559", maxFeePerGas: cap, maxPriorityFeePerGas: tip };
      } else if (old.gasPrice !== undefined) {
        f = { type: "legacy", gasPrice: bump(old.gasPrice) };
      } else {
        return null;
      }
      return signAttempt(base, f, attempt.orders);
    },

    async fill(_tx, attempt) {
      // Only this address's own nonces: a sweep's deposit key is not held here.
      if (attempt.from !== address) return null;
      const old = parseTransaction(attempt.raw as Hex);
      if (old.nonce === undefined) return null;
      // Never in a mempool (refused), so no replacement rule applies: the refused one's fees will do.
      let f: Fees;
      if (old.type === "eip1559" && old.maxFeePerGas !== undefined && old.maxPriorityFeePerGas !== undefined) {
        f = { type: "eip1559", maxFeePerGas: old.maxFeePerGas, maxPriorityFeePerGas: old.maxPriorityFeePerGas };
      } else if (old.gasPrice !== undefined) {
        f = { type: "legacy", gasPrice: old.gasPrice };
      } else {
        return null;
      }
      const base = {
        chainId: old.chainId ?? chainId ?? 0,
        nonce: old.nonce,
        to: address,
        value: 0n,
        gas: NATIVE_TRANSFER_GAS,
      };
      const signed = await signAttempt(base, f, []);
      // Recorded as what it is: the filler of the refused attempt's nonce, carrying no send.
      return { ...signed, guard: { ...signed.guard, fills: attempt.id } };
    },
  };
}
