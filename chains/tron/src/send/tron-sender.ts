import { type ChainAsset, ConfigError, chainFamily, ValidationError } from "@mp/core";
import type { SenderFactoryOptions } from "@mp/treasury/ports";
import {
  type ChainSender,
  InsufficientTreasuryFundsError,
  type SendOrder,
  type StoredAttempt,
} from "@mp/treasury/ports";
import { utils } from "tronweb";
import { base58ToHex, isTronAddress } from "../tron-address.ts";
import { TronApiError } from "../tron-api-error.ts";
import { resolveTronAssets } from "../tron-assets.ts";
import { decodeHex, TronNode, type TronTransactionInfo, type UnsignedTronTransaction } from "./tron-node.ts";

/** fee_limit = energy estimate x energy price, plus this share: the estimate can be a little low. */
const FEE_LIMIT_BUFFER_PERCENT = 30n;
/** java-tron refuses a fee_limit above 15,000 TRX (getMaxFeeLimit). */
const MAX_FEE_LIMIT = 15_000_000_000n;
/**
 * TRX kept back for bandwidth: a transaction is ~270-350 bytes, burnt at 1,000 sun per byte when
 * the account's free daily bandwidth is used up (this sender does not count the free part).
 */
export const BANDWIDTH_RESERVE_SUN = 400_000n;
/** Transactions expire 60 s (20 blocks) after their reference block; they are never replaced. */
const STUCK_AFTER_BLOCKS = 20;
const TRANSFER_SELECTOR = "a9059cbb";
/**
 * broadcasttransaction refusals after which the same bytes can never be accepted (java-tron's
 * Return codes). Others (SERVER_BUSY, NO_CONNECTION, BANDWITH_ERROR, ...) may pass later: retried.
 */
const REFUSED_FOR_GOOD = new Set([
  "TRANSACTION_EXPIRATION_ERROR",
  "TAPOS_ERROR",
  "SIGERROR",
  "CONTRACT_VALIDATE_ERROR",
  "TOO_BIG_TRANSACTION_ERROR",
]);
const BALANCE_OF_SELECTOR = "70a08231";

/**
 * What sign() needs, read by prepare(): the unsigned transaction the node built, already checked
 * against our own arguments (so sign() makes no call inside the pipeline's database transaction).
 */
interface TronPrepared {
  order: SendOrder;
  unsigned: UnsignedTronTransaction & { visible: false };
  fee: Record<string, string>;
}

/** The replay guard of a Tron attempt: past `expiration` (head block time) it can never land. */
interface TronGuard {
  expiration: number;
  refBlockBytes: string;
  refBlockHash: string;
}

const word = (hex: string) => hex.padStart(64, "0");
export const transferData = (toHex: string, amount: bigint) =>
  `${TRANSFER_SELECTOR}${word(toHex.slice(2))}${word(amount.toString(16))}`;

/** fee_limit of a call estimated at `energy`: its cost at `price` sun per energy plus the buffer, within java-tron's cap. */
export function tronFeeLimit(energy: bigint, price: bigint): bigint {
  const cost = energy * price;
  return min(cost + (cost * FEE_LIMIT_BUFFER_PERCENT + 99n) / 100n, MAX_FEE_LIMIT);
}

/**
 * The Tron family's ChainSender: TRX TransferContract and TRC-20 `transfer` from the treasury key
 * (m/44'/195'/0'/0/0). In prepare() the node builds the transaction (createtransaction,
 * triggersmartcontract, as tronweb's TransactionBuilder does) and the sender checks with tronweb
 * that it is exactly what was asked for (raw_data_hex and txID recomputed from our own arguments);
 * sign() signs it offline, with no call inside the pipeline's database transaction. A TRC-20 call carries fee_limit = energy estimate
 * (triggerconstantcontract) x energy price (getEnergyFee) + 30%: the most TRX it may burn.
 *
 * The replay guard is the expiration (reference block + 60 s): once the head block's time has
 * passed it and the transaction is in no block, it can never land (`expired`), and only then does
 * the pipeline sign the order again. OUT_OF_ENERGY (and REVERT) is a `failed` attempt: the fee is
 * burnt, no token moved. There is no fee bump on Tron: replace() gives null.
 */
export function createTronSender(options: SenderFactoryOptions): ChainSender {
  const { config, keys, logger } = options;
  if (chainFamily(config.chain) !== "tron") {
    throw new ConfigError(`CHAINS_CONFIG.${config.chain}`, "is not a Tron chain");
  }
  const assets = resolveTronAssets(config);
  const key = keys.key("tron");
  const address = key.address;
  const ownerHex = base58ToHex(address);
  const privateKeyHex = Buffer.from(key.privateKey).toString("hex");
  const node = new TronNode({
    url: config.rpcUrl,
    setting: `CHAINS_CONFIG.${config.chain}.rpcUrl`,
    fetch: options.fetch,
  });

  const assetOf = (symbol: string): ChainAsset => {
    const asset = assets.bySymbol(symbol);
    if (!asset) throw new ValidationError(`asset ${symbol} is not configured on ${config.chain}`, "asset");
    return asset;
  };
  const tokenBalance = async (contractHex: string): Promise<bigint> => {
    const call = await node.constantCall(ownerHex, contractHex, `${BALANCE_OF_SELECTOR}${word(ownerHex.slice(2))}`);
    return call.result === "" ? 0n : BigInt(`0x${call.result}`);
  };
  const short = (asset: string, needed: bigint, available: bigint, what: string) =>
    new InsufficientTreasuryFundsError(
      `the Tron treasury ${address} holds ${available} of ${asset}, ${what} needs ${needed}`,
      {
        asset,
        needed: needed.toString(),
        available: available.toString(),
      },
    );

  /** Checks that the node built exactly the transaction of our own arguments. */
  const checked = (tx: UnsignedTronTransaction, args: Record<string, unknown>, feeLimit?: bigint) => {
    const json = { ...tx, visible: false as const };
    // txCheck: raw_data_hex and txID are the encoding of the raw_data shown (what java-tron hashes
    // and executes); txCheckWithArgs: they are also the encoding of our own arguments.
    const same =
      utils.transaction.txCheck(json as never) &&
      utils.transaction.txCheckWithArgs(
        json as never,
        args as never,
        (feeLimit === undefined ? {} : { fee_limit: Number(feeLimit) }) as never,
      );
    if (!same) {
      throw new TronApiError("build", "the node built another transaction than the one asked for; not signed");
    }
    return json;
  };

  return {
    chain: config.chain,
    address,
    maxBatch: 1,
    stuckAfterBlocks: STUCK_AFTER_BLOCKS,

    verifyNode: () => node.verify(config.chain),
    head: async () => (await node.head()).number,
    blockHash: (height) => node.blockId(height),

    async balances() {
      const result: Record<string, bigint> = {};
      for (const asset of assets.list()) {
        result[asset.asset] =
          asset.address === null ? await node.balance(ownerHex) : await tokenBalance(base58ToHex(asset.address));
      }
      return result;
    },

    async prepare(orders): Promise<TronPrepared> {
      const [order, ...more] = orders;
      if (order === undefined || more.length > 0) throw new RangeError("a Tron transaction carries exactly one order");
      if (!isTronAddress(order.to)) throw new ValidationError(`not a Tron address: ${order.to}`, "to");
      const asset = assetOf(order.asset);
      const toHex = base58ToHex(order.to);
      // java-tron refuses a TRX transfer to its own owner; such a request can never be sent.
      if (toHex === ownerHex) throw new ValidationError("the treasury does not send to itself", "to");
      const trx = await node.balance(ownerHex);
      if (asset.address === null) {
        if (order.amountRaw > BigInt(Number.MAX_SAFE_INTEGER)) throw new ValidationError("amount too large", "amount");
        const needed = order.amountRaw + BANDWIDTH_RESERVE_SUN;
        if (trx < needed) throw short(asset.asset, needed, trx, `sending ${order.amountRaw} sun`);
        const built = await node.createTransfer(ownerHex, toHex, order.amountRaw);
        const args = { owner_address: ownerHex, to_address: toHex, amount: Number(order.amountRaw) };
        return { order, unsigned: checked(built, args), fee: {} };
      }
      const contractHex = base58ToHex(asset.address);
      const held = await tokenBalance(contractHex);
      if (held < order.amountRaw) throw short(asset.asset, order.amountRaw, held, "the transfer");
      const [estimate, price, staked] = await Promise.all([
        node.constantCall(ownerHex, contractHex, transferData(toHex, order.amountRaw)),
        node.energyPrice(),
        node.freeEnergy(ownerHex),
      ]);
      if (estimate.reverted || estimate.energyUsed <= 0) {
        throw new TronApiError("/wallet/triggerconstantcontract", "the transfer's dry run reverted; not signed");
      }
      const energy = BigInt(estimate.energyUsed);
      const feeLimit = tronFeeLimit(energy, price);
      // Staked energy pays first; what it does not cover is burnt in TRX (fee_limit is only a cap).
      const burn = (energy > staked ? energy - staked : 0n) * price;
      const needed = burn + BANDWIDTH_RESERVE_SUN;
      if (trx < needed) throw short(assets.native.asset, needed, trx, `the energy of a ${asset.asset} transfer`);
      const data = transferData(toHex, order.amountRaw);
      const built = await node.createCall(ownerHex, contractHex, data, feeLimit);
      const args = { owner_address: ownerHex, contract_address: contractHex, data, call_value: 0 };
      return {
        order,
        unsigned: checked(built, args, feeLimit),
        fee: { feeLimit: feeLimit.toString(), energyEstimate: energy.toString() },
      };
    },

    async sign(_tx, orders, preparedValue) {
      const prepared = preparedValue as TronPrepared;
      if (orders.length !== 1 || orders[0]?.id !== prepared.order.id) {
        throw new RangeError("sign() takes the order prepare() read");
      }
      // Offline: tronweb signs the txID (sha256 of raw_data) that prepare() checked.
      const signed = utils.crypto.signTransaction(privateKeyHex, {
        ...prepared.unsigned,
        signature: [],
      } as never) as unknown as typeof prepared.unsigned & { signature: string[] };
      const guard: TronGuard = {
        expiration: signed.raw_data.expiration,
        refBlockBytes: signed.raw_data.ref_block_bytes,
        refBlockHash: signed.raw_data.ref_block_hash,
      };
      return {
        txHash: signed.txID.toLowerCase(),
        raw: JSON.stringify(signed),
        from: address,
        guard: { ...guard },
        fee: prepared.fee,
        orders: [{ id: prepared.order.id }],
      };
    },

    async broadcast(attempt) {
      const answer = await node.broadcast(JSON.parse(attempt.raw));
      // The node (or its peers) already has it: broadcasting again after a crash is success.
      if (answer.accepted || answer.code === "DUP_TRANSACTION_ERROR") return;
      const log = { chain: config.chain, txHash: attempt.txHash, code: answer.code, message: answer.message };
      if (REFUSED_FOR_GOOD.has(answer.code)) {
        // These bytes can never land (expired, unknown reference block, invalid): nothing more to
        // send. Returning lets the pipeline watch the attempt, and status() proves it `expired` once
        // the head block's time passes its expiration; the order is then prepared (funds checked
        // again) and signed anew. Throwing would leave it stored as unsent, retried for ever.
        logger.warn(log, "tron node refused the transaction for good: it expires unmined");
        return;
      }
      logger.warn(log, "tron node refused the transaction for now");
      throw new TronApiError("/wallet/broadcasttransaction", `refused: ${answer.code} ${answer.message}`, {
        details: { code: answer.code, txHash: attempt.txHash },
      });
    },

    async status(attempt) {
      const guard = attempt.guard as Partial<TronGuard>;
      // The head first: a transaction in no block at or below a head past its expiration never lands.
      const head = await node.head();
      const info = await node.transactionInfo(attempt.txHash);
      if (info !== null) {
        const blockHash = await node.blockId(info.blockNumber);
        if (blockHash === null) return { state: "unknown" };
        const result = info.receipt?.result;
        if (info.result === "FAILED" || (result !== undefined && result !== "SUCCESS")) {
          return { state: "failed", blockHeight: info.blockNumber, blockHash, reason: failureReason(info, attempt) };
        }
        return { state: "mined", blockHeight: info.blockNumber, blockHash };
      }
      if (typeof guard.expiration === "number" && head.timestamp >= guard.expiration) {
        return {
          state: "expired",
          reason: `expiration ${new Date(guard.expiration).toISOString()} passed (head block ${head.number} at ${new Date(head.timestamp).toISOString()}) and the transaction is in no block`,
        };
      }
      return { state: "unknown" };
    },

    replace: async () => null,
  };
}

/** A clear reason for a mined, failed call: OUT_OF_ENERGY names the fee_limit and what was burnt. */
function failureReason(info: TronTransactionInfo, attempt: StoredAttempt) {
  const result = info.receipt?.result ?? info.result ?? "FAILED";
  const burnt = info.fee ?? info.receipt?.energy_fee ?? 0;
  const node = decodeHex(info.resMessage);
  if (result === "OUT_OF_ENERGY") {
    return `OUT_OF_ENERGY: the call needed more energy than fee_limit ${String(attempt.fee.feeLimit ?? "?")} sun buys (estimate ${String(attempt.fee.energyEstimate ?? "?")} energy); ${burnt} sun burnt, nothing transferred${node === "" ? "" : ` (${node})`}`;
  }
  return `${result}: the call failed on chain; ${burnt} sun burnt, nothing transferred${node === "" ? "" : ` (${node})`}`;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
