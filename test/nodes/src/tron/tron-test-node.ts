import { createHash } from "node:crypto";
import { z } from "zod";
import { serveTestNode, type TestChainNode, type TestToken } from "../shared/served-node.ts";
import { createTronHttpServer } from "./http-api.ts";
import { addressToHex, hexToAddress, labelToContractHex, TronKey } from "./keys.ts";
import { type Payment, signPayment } from "./transactions.ts";
import { type ReorgOptions, TronChain } from "./tron-chain.ts";

export interface TronTestNodeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Produce a block every this many ms (local sandbox); without it the caller mines. */
  blockIntervalMs?: number;
  /** Seed of every key, address and hash: the same seed gives the same chain. */
  seed?: string;
  /**
   * java-tron's `storage.transHistory.switch` (on by default, as here): off, the node keeps no
   * TransactionInfo, so gettransactioninfobyid answers {} and gettransactioninfobyblocknum [] for
   * every transaction.
   */
  transactionHistory?: boolean;
  /**
   * java-tron's `vm.saveInternalTx` (off by default in java-tron, on at TronGrid and here): off,
   * TransactionInfo carries no `internal_transactions`, so TRX a contract pays on is not listed.
   */
  internalTransactions?: boolean;
}

/** Who signs and pays (default: the node's funded faucet key). */
export interface TronSendOptions {
  from?: TronKey;
}

/** The node's TRC-20 (USDT, 6 decimals); `address` is the base58 contract address. */
export type TronTestToken = TestToken;
export interface ForwardPayment {
  to: string;
  amount: bigint;
  rejected?: boolean;
}

export interface TronTestNode extends TestChainNode<ReorgOptions> {
  /** The faucet's private key (hex), for a sandbox config's `faucetPrivateKey`. */
  readonly faucetPrivateKey: string;
  /** Queues a TRX TransferContract (sun); returns its txID (lands at the next mine). */
  transfer(to: string, amountSun: bigint, options?: TronSendOptions): string;
  /** Queues a USDT `transfer(to, amount)` call. */
  transferToken(to: string, amount: bigint, options?: TronSendOptions): string;
  /** Queues a USDT transfer that reverts on chain (contractRet / receipt.result REVERT, no log). */
  failTransfer(to: string, amount: bigint, options?: TronSendOptions): string;
  /**
   * Queues a call to the node's forwarder contract (a TriggerSmartContract with `call_value` = the
   * sum of the payments) that passes TRX on to each recipient in an inner call: internal
   * transactions, as a multisig or exchange hot wallet contract pays. A payment marked `rejected`
   * has its inner call fail (the contract keeps that TRX); `revert` fails the whole call.
   */
  forwardTrx(payments: readonly ForwardPayment[], options?: TronSendOptions & { revert?: boolean }): string;
  /** base58 address of the forwarder contract. */
  readonly forwarderAddress: string;
  blockId(height: number): string | undefined;
  /** Where a transaction landed, if it did. */
  transaction(txID: string): { height: number; failed: boolean } | undefined;
  balance(address: string): bigint;
  tokenBalance(address: string): bigint;
  /**
   * While held, transactions accepted by `/wallet/broadcasttransaction` (and queued ones) stay in
   * the pending pool instead of landing at the next block, and are dropped once the head block's
   * time reaches their expiration: how a transaction expires unmined. `hold(false)` lets them land.
   */
  hold(held: boolean): void;
  /** Sun burnt per unit of energy (getEnergyFee); raising it after an estimate makes a call run out of energy. */
  setEnergyPrice(sun: bigint): void;
  /** Gives an account this much staked energy (as FreezeBalanceV2 for ENERGY would). */
  stakeEnergy(address: string, energy: bigint): void;
  /** Staked energy and how much of it is used. */
  energy(address: string): { limit: bigint; used: bigint };
}

/** 10 billion TRX: large, yet every amount stays a safe integer in sun. */
const FAUCET_SUN = 10n ** 16n;
/** 1 billion USDT. */
const FAUCET_TOKEN_UNITS = 10n ** 15n;
/** The faucet stakes for energy, as an exchange's hot wallet does: its TRC-20 transfers burn no TRX. */
const FAUCET_ENERGY = 10n ** 15n;
const WITNESSES = 3;
/** fee_limit of the node's own TRC-20 transfers: 100 TRX. */
const TOKEN_FEE_LIMIT = 100_000_000n;

const controlSchema = z.object({
  to: z.string(),
  /** "TRX" or the token's base58 contract address. */
  asset: z.string(),
  amount: z.string().regex(/^[1-9]\d*$/, "a positive integer in base units"),
});

/**
 * A Tron full node for tests and the local sandbox, on 127.0.0.1, serving `/wallet/getnowblock`,
 * `/wallet/getblockbynum`, `/wallet/getblockbylimitnext` and `/wallet/gettransactioninfobyblocknum`
 * in java-tron's JSON shapes over an in-memory chain (see tron-chain.ts for what is real), the
 * sending endpoints of wallet-api.ts (build, broadcast with java-tron's validation, receipts), with
 * one TRC-20, "USDT", whose transfers emit real Transfer logs. `POST /_test/transfer
 * {to, asset, amount}` pays from the faucet key (what the sandbox faucet uses).
 */
export async function startTronTestNode(options: TronTestNodeOptions = {}): Promise<TronTestNode> {
  const seed = options.seed ?? "mp-tron-test-node";
  const faucet = TronKey.fromLabel(`${seed}:faucet`);
  const usdtHex = labelToContractHex(`${seed}:usdt-contract`);
  const forwarderHex = labelToContractHex(`${seed}:forwarder-contract`);
  const tokens: TronTestToken[] = [{ asset: "USDT", address: hexToAddress(usdtHex), decimals: 6 }];
  const witnesses = Array.from({ length: WITNESSES }, (_, i) => TronKey.fromLabel(`${seed}:witness:${i}`));
  const chain = new TronChain(witnesses, {
    timestamp: Math.floor(Date.now() / 3_000) * 3_000,
    parentHash: createHash("sha256").update(`${seed}:genesis-parent`).digest("hex"),
    fund: (balances) => {
      balances.trx.set(faucet.addressHex, FAUCET_SUN);
      balances.token.set(faucet.addressHex, FAUCET_TOKEN_UNITS);
    },
  });

  chain.setEnergyLimit(faucet.addressHex, FAUCET_ENERGY);

  let lastTimestamp = 0;
  // Distinct timestamps keep equal payments distinct transactions, as wallets' clocks do.
  const now = () => {
    lastTimestamp = Math.max(Date.now(), lastTimestamp + 1);
    return lastTimestamp;
  };
  const hexOf = (address: string): string => {
    const hex = addressToHex(address);
    if (hex === undefined) throw new RangeError(`not a Tron address: ${address}`);
    return hex;
  };
  const send = (payment: Payment, key: TronKey): string => {
    const tip = chain.tip();
    const tx = signPayment(key, payment, { number: tip.number, blockID: tip.blockID, timestamp: tip.timestamp }, now());
    chain.enqueue(tx);
    return tx.txID;
  };
  const trx = (to: string, amount: bigint, from: TronKey) =>
    send({ kind: "trx", from: from.addressHex, to: hexOf(to), amount }, from);
  const token = (to: string, amount: bigint, from: TronKey, revert: boolean) => {
    if (amount <= 0n) throw new RangeError("token amount must be positive");
    return send(
      {
        kind: "token",
        from: from.addressHex,
        contract: usdtHex,
        to: hexOf(to),
        amount,
        revert,
        feeLimit: TOKEN_FEE_LIMIT,
      },
      from,
    );
  };

  const forward = (payments: readonly ForwardPayment[], from: TronKey, revert: boolean) => {
    if (payments.length === 0) throw new RangeError("forwardTrx needs at least one payment");
    const resolved = payments.map((p) => {
      if (p.amount <= 0n) throw new RangeError("forwarded amounts must be positive");
      return { to: hexOf(p.to), amount: p.amount, rejected: p.rejected ?? false };
    });
    const amount = resolved.reduce((sum, p) => sum + p.amount, 0n);
    return send(
      { kind: "forward", from: from.addressHex, contract: forwarderHex, amount, payments: resolved, revert },
      from,
    );
  };

  const transactionHistory = options.transactionHistory ?? true;
  const internalTransactions = options.internalTransactions ?? true;
  const server = createTronHttpServer(
    { chain, tokenHex: usdtHex, now, transactionHistory, internalTransactions },
    (body) => {
      const parsed = controlSchema.safeParse(body);
      if (!parsed.success) throw new RangeError(parsed.error.issues[0]?.message ?? "invalid body");
      const amount = BigInt(parsed.data.amount);
      if (parsed.data.asset === "TRX") return trx(parsed.data.to, amount, faucet);
      if (tokens.some((t) => t.address === parsed.data.asset || t.asset === parsed.data.asset)) {
        return token(parsed.data.to, amount, faucet, false);
      }
      throw new RangeError(`the test node has no asset ${parsed.data.asset}`);
    },
  );
  const served = await serveTestNode(server, options, () => chain.mine(1));

  return {
    ...served,
    tokens,
    faucetAddress: faucet.address,
    faucetPrivateKey: faucet.privateKeyHex,
    head: () => chain.tip().number,
    mine: (count) => chain.mine(count),
    transfer: (to, amountSun, sendOptions) => trx(to, amountSun, sendOptions?.from ?? faucet),
    transferToken: (to, amount, sendOptions) => token(to, amount, sendOptions?.from ?? faucet, false),
    failTransfer: (to, amount, sendOptions) => token(to, amount, sendOptions?.from ?? faucet, true),
    forwardTrx: (payments, sendOptions) => forward(payments, sendOptions?.from ?? faucet, sendOptions?.revert ?? false),
    forwarderAddress: hexToAddress(forwarderHex),
    reorg: (depth, reorgOptions) => chain.reorg(depth, reorgOptions),
    blockId: (height) => chain.block(height)?.blockID,
    transaction: (txID) => {
      for (const block of chain.blocks) {
        const included = block.transactions.find((candidate) => candidate.tx.txID === txID);
        if (included) return { height: block.number, failed: included.failed };
      }
      return undefined;
    },
    balance: (address) => chain.balance("trx", hexOf(address)),
    tokenBalance: (address) => chain.balance("token", hexOf(address)),
    hold: (held) => {
      chain.holding = held;
    },
    setEnergyPrice: (sun) => {
      if (sun <= 0n) throw new RangeError("the energy price is a positive number of sun");
      chain.energyPrice = sun;
    },
    stakeEnergy: (address, energy) => chain.setEnergyLimit(hexOf(address), energy),
    energy: (address) => chain.energy(hexOf(address)),
  };
}
