import { createHash } from "node:crypto";
import type { TronKey } from "./keys.ts";
import { type Payment, type SignedTransaction, transferLog } from "./transactions.ts";

/** Block interval of the real chain; block timestamps advance by it. */
export const BLOCK_MS = 3_000;
/** The block header version current mainnet blocks carry. */
const BLOCK_VERSION = 32;
/**
 * Bandwidth the receipts report (bandwidth is free on this node: no TRX is burnt for it) and the
 * energy a TRC-20 transfer takes. Energy is not free: an account's staked energy pays first, the
 * rest is burnt in TRX at the energy price, at most fee_limit (see execute).
 */
const TRX_TRANSFER_NET_USAGE = 268;
const TOKEN_TRANSFER_NET_USAGE = 345;
export const TOKEN_TRANSFER_ENERGY = 14_650n;
/** Sun burnt per unit of energy (the chain parameter getEnergyFee) until a test changes it. */
export const DEFAULT_ENERGY_PRICE = 100n;
/** Energy a reverted TRC-20 transfer reports. */
const REVERT_ENERGY = 1_215;
const FORWARD_NET_USAGE = 400;
const FORWARD_ENERGY_PER_PAYMENT = 9_800;
/** `note` of an internal transaction made by CALL: hex of "call", as java-tron writes it. */
const CALL_NOTE = Buffer.from("call").toString("hex");
const REVERT_MESSAGE_HEX = Buffer.from("REVERT opcode executed").toString("hex");

/** `energy`: energy used out of an account's staked energy (undone with the rest on a reorg). */
type Ledger = "trx" | "token" | "energy";
interface Effect {
  ledger: Ledger;
  address: string;
  delta: bigint;
}

/** What a contract call consumed: staked energy, TRX burnt for the rest, and how it ended. */
export interface Receipt {
  result: "SUCCESS" | "REVERT" | "OUT_OF_ENERGY";
  energyUsage: bigint;
  energyFee: bigint;
  energyTotal: bigint;
}

export interface IncludedTransaction {
  tx: SignedTransaction;
  failed: boolean;
  effects: Effect[];
  /** TRC-20 transfers: energy and how the call ended. */
  receipt?: Receipt;
}

export interface Block {
  number: number;
  blockID: string;
  parentHash: string;
  timestamp: number;
  witnessHex: string;
  txTrieRoot: string;
  witnessSignature: string;
  transactions: IncludedTransaction[];
  /** Rendered answers, built on first request (a real node serves stored blocks). */
  blockJson?: string;
  infosJson?: string;
}

export interface ReorgOptions {
  /** txIDs left out of the replacement blocks (they vanish from the chain). */
  drop?: readonly string[];
}

export interface Balances {
  trx: Map<string, bigint>;
  token: Map<string, bigint>;
  energy: Map<string, bigint>;
}

/**
 * The in-memory chain: balances of TRX (sun) and of the node's one TRC-20, blocks, and the queue
 * of signed transactions waiting for the next block. Every height holds a block.
 *
 * What is real and what is not: keys, addresses, signatures, txIDs and raw_data_hex are real (see
 * transactions.ts). A blockID is real in form: 8 bytes of height followed by 24 bytes of a sha256,
 * but that sha256 is over a JSON encoding of the header fields (number, parentHash, txTrieRoot,
 * timestamp, witness_address, version), not over the protobuf header; txTrieRoot is a plain
 * sha256 Merkle root of the txIDs (zero hash for an empty block). The witness producing a height
 * rotates with a fork counter, so a block replaced by `reorg` gets a new id even with the same
 * transactions.
 */
export class TronChain {
  readonly blocks: Block[] = [];
  /** Sun burnt per unit of energy (getEnergyFee); a test may raise it between estimate and execution. */
  energyPrice = DEFAULT_ENERGY_PRICE;
  /** While true, accepted transactions wait in the pending pool instead of landing (so one can expire). */
  holding = false;
  private pending: SignedTransaction[] = [];
  private balances: Balances = { trx: new Map(), token: new Map(), energy: new Map() };
  /** Staked energy per account (what FreezeBalanceV2 for ENERGY would give it). */
  private readonly energyLimits = new Map<string, bigint>();
  /** Where each transaction of the canonical chain is: block number and position. */
  private located = new Map<string, { number: number; index: number }>();
  private forkNonce = 0;

  constructor(
    private readonly witnesses: readonly TronKey[],
    private readonly genesis: { timestamp: number; parentHash: string; fund: (balances: Balances) => void },
  ) {
    this.genesis.fund(this.balances);
    this.blocks.push(this.produce(0, genesis.parentHash, genesis.timestamp, []));
  }

  setEnergyLimit(addressHex: string, energy: bigint): void {
    this.energyLimits.set(addressHex, energy);
  }

  /** Staked energy, and how much of it is used (this node never recovers used energy). */
  energy(addressHex: string): { limit: bigint; used: bigint } {
    return { limit: this.energyLimits.get(addressHex) ?? 0n, used: this.balance("energy", addressHex) };
  }

  /** Whether the account exists (it has received TRX or sent a transaction), as getaccount answers. */
  hasAccount(addressHex: string): boolean {
    return this.balances.trx.has(addressHex);
  }

  /** The canonical transaction and its block, if it landed. */
  find(txID: string): { block: Block; included: IncludedTransaction } | undefined {
    const at = this.located.get(txID);
    const block = at === undefined ? undefined : this.blocks[at.number];
    const included = at === undefined ? undefined : block?.transactions[at.index];
    return block && included ? { block, included } : undefined;
  }

  pendingTransactions(): readonly SignedTransaction[] {
    return this.pending;
  }

  isPending(txID: string): boolean {
    return this.pending.some((tx) => tx.txID === txID);
  }

  /**
   * TaPoS: whether ref_block_bytes/ref_block_hash name a block of this chain, as java-tron checks
   * them against its recent block ids (the newest block whose number ends in those two bytes).
   */
  knowsReference(refBlockBytes: string, refBlockHash: string): boolean {
    const low = Number.parseInt(refBlockBytes, 16);
    if (!/^[0-9a-f]{4}$/i.test(refBlockBytes) || !/^[0-9a-f]{16}$/i.test(refBlockHash)) return false;
    const tip = this.tip().number;
    const number = tip - ((tip - low) & 0xffff);
    const block = number < 0 ? undefined : this.blocks[number];
    return block !== undefined && block.blockID.slice(16, 32) === refBlockHash.toLowerCase();
  }

  tip(): Block {
    const tip = this.blocks.at(-1);
    if (!tip) throw new Error("the chain has no genesis block");
    return tip;
  }

  block(number: number): Block | undefined {
    return this.blocks[number];
  }

  balance(ledger: Ledger, addressHex: string): bigint {
    return this.balances[ledger].get(addressHex) ?? 0n;
  }

  enqueue(tx: SignedTransaction): void {
    this.pending.push(tx);
  }

  /**
   * Produces `count` blocks; the first takes every queued transaction (none while `holding`).
   * A pending transaction whose expiration is not after the parent block's time is dropped, as
   * java-tron drops it: it can never land.
   */
  mine(count = 1): number[] {
    const heights: number[] = [];
    for (let i = 0; i < count; i++) {
      const tip = this.tip();
      this.pending = this.pending.filter((tx) => expirationOf(tx) > tip.timestamp);
      const queued = this.holding ? [] : this.pending;
      if (!this.holding) this.pending = [];
      const block = this.produce(tip.number + 1, tip.blockID, tip.timestamp + BLOCK_MS, queued);
      this.push(block);
      heights.push(block.number);
    }
    return heights;
  }

  /**
   * Replaces the newest `depth` blocks with a fork at the same heights: each replacement block has
   * another witness (so another id, and every later parentHash changes) and the same transactions
   * re-executed in order, except `drop`ped ones. Returns the replaced heights.
   */
  reorg(depth: number, options: ReorgOptions = {}): number[] {
    if (!Number.isInteger(depth) || depth < 1 || depth >= this.blocks.length) {
      throw new RangeError(`reorg depth must be between 1 and ${this.blocks.length - 1}`);
    }
    const replaced = this.blocks.splice(-depth);
    for (const block of replaced) for (const included of block.transactions) this.located.delete(included.tx.txID);
    const known = new Set(replaced.flatMap((block) => block.transactions.map((included) => included.tx.txID)));
    for (const txID of options.drop ?? []) {
      if (!known.has(txID)) throw new RangeError(`transaction ${txID} is not in the last ${depth} blocks`);
    }
    // Undo the replaced blocks' effects, newest first.
    for (const block of [...replaced].reverse()) {
      for (const included of block.transactions) for (const effect of included.effects) this.apply(effect, -1n);
    }
    this.forkNonce++;
    const drop = new Set(options.drop ?? []);
    for (const old of replaced) {
      const keep = old.transactions.map((included) => included.tx).filter((tx) => !drop.has(tx.txID));
      this.push(this.produce(old.number, this.tip().blockID, old.timestamp, keep));
    }
    return replaced.map((block) => block.number);
  }

  private push(block: Block): void {
    this.blocks.push(block);
    block.transactions.forEach((included, index) => {
      this.located.set(included.tx.txID, { number: block.number, index });
    });
  }

  private produce(number: number, parentHash: string, timestamp: number, queued: SignedTransaction[]): Block {
    const transactions: IncludedTransaction[] = [];
    for (const tx of queued) {
      const included = this.execute(tx);
      if (included) transactions.push(included);
    }
    const witness = this.witnesses[(number + this.forkNonce) % this.witnesses.length] as TronKey;
    const txTrieRoot = merkleRoot(transactions.map((included) => included.tx.txID));
    const headerHash = createHash("sha256")
      .update(
        JSON.stringify({
          number,
          parentHash,
          txTrieRoot,
          timestamp,
          witness_address: witness.addressHex,
          version: BLOCK_VERSION,
        }),
      )
      .digest("hex");
    const blockID = `${number.toString(16).padStart(16, "0")}${headerHash.slice(16)}`;
    return {
      number,
      blockID,
      parentHash,
      timestamp,
      witnessHex: witness.addressHex,
      txTrieRoot,
      witnessSignature: witness.sign(headerHash),
      transactions,
    };
  }

  /**
   * Executes a transaction. A TRX payment (or call value) the sender cannot cover is never included
   * (a real node refuses it at broadcast); a token transfer that cannot be covered, or is marked to
   * revert, is included as failed (REVERT) and changes no balance. A forwarder call moves its call
   * value to the contract, which pays on every forwarded payment but the rejected ones (their
   * inner call fails and is caught: the contract keeps that TRX); a reverted call moves nothing.
   */
  private execute(tx: SignedTransaction): IncludedTransaction | null {
    const payment = tx.payment;
    if (payment.kind === "forward") {
      if (this.balance("trx", payment.from) < payment.amount) return null;
      if (payment.revert) return { tx, failed: true, effects: [] };
      const paid = payment.payments.filter((p) => !p.rejected);
      const kept = payment.amount - paid.reduce((sum, p) => sum + p.amount, 0n);
      const effects: Effect[] = [
        { ledger: "trx", address: payment.from, delta: -payment.amount },
        { ledger: "trx", address: payment.contract, delta: kept },
        ...paid.map((p): Effect => ({ ledger: "trx", address: p.to, delta: p.amount })),
      ];
      for (const effect of effects) this.apply(effect, 1n);
      return { tx, failed: false, effects };
    }
    if (payment.kind === "token") return this.executeToken(tx, payment);
    if (this.balance("trx", payment.from) < payment.amount) return null;
    const effects: Effect[] = [
      { ledger: "trx", address: payment.from, delta: -payment.amount },
      { ledger: "trx", address: payment.to, delta: payment.amount },
    ];
    for (const effect of effects) this.apply(effect, 1n);
    return { tx, failed: false, effects };
  }

  /**
   * A TRC-20 transfer needs TOKEN_TRANSFER_ENERGY. Staked energy pays first; the rest is burnt in
   * TRX at `energyPrice`, at most fee_limit (and at most the TRX the caller holds). When that is
   * not enough the call runs out of energy as on the real chain: OUT_OF_ENERGY, all the energy it
   * was allowed is consumed (staked energy used up, the TRX it could burn burnt), no token moves.
   */
  private executeToken(tx: SignedTransaction, payment: Extract<Payment, { kind: "token" }>): IncludedTransaction {
    if (payment.revert || this.balance("token", payment.from) < payment.amount) {
      const receipt: Receipt = { result: "REVERT", energyUsage: 0n, energyFee: 0n, energyTotal: BigInt(REVERT_ENERGY) };
      return { tx, failed: true, effects: [], receipt };
    }
    const price = this.energyPrice;
    const { limit, used } = this.energy(payment.from);
    const staked = limit > used ? limit - used : 0n;
    const fromStake = smaller(staked, TOKEN_TRANSFER_ENERGY);
    const burnNeeded = (TOKEN_TRANSFER_ENERGY - fromStake) * price;
    const trx = this.balance("trx", payment.from);
    const canBurn = smaller(payment.feeLimit, trx);
    let effects: Effect[];
    let receipt: Receipt;
    if (burnNeeded > canBurn) {
      const burnt = (canBurn / price) * price;
      effects = [
        { ledger: "trx", address: payment.from, delta: -burnt },
        { ledger: "energy", address: payment.from, delta: staked },
      ];
      receipt = { result: "OUT_OF_ENERGY", energyUsage: staked, energyFee: burnt, energyTotal: staked + burnt / price };
    } else {
      effects = [
        { ledger: "trx", address: payment.from, delta: -burnNeeded },
        { ledger: "energy", address: payment.from, delta: fromStake },
        { ledger: "token", address: payment.from, delta: -payment.amount },
        { ledger: "token", address: payment.to, delta: payment.amount },
      ];
      receipt = {
        result: "SUCCESS",
        energyUsage: fromStake,
        energyFee: burnNeeded,
        energyTotal: TOKEN_TRANSFER_ENERGY,
      };
    }
    effects = effects.filter((effect) => effect.delta !== 0n);
    for (const effect of effects) this.apply(effect, 1n);
    return { tx, failed: receipt.result !== "SUCCESS", effects, receipt };
  }

  private apply(effect: Effect, sign: 1n | -1n): void {
    const ledger = this.balances[effect.ledger];
    ledger.set(effect.address, (ledger.get(effect.address) ?? 0n) + sign * effect.delta);
  }
}

/** The transaction as it appears in a block: the signed body plus its result. */
export function renderTransaction(included: IncludedTransaction): Record<string, unknown> {
  const contractRet = included.receipt?.result ?? (included.failed ? "REVERT" : "SUCCESS");
  return { ret: [{ contractRet }], ...included.tx.json };
}

/** `/wallet/getblockbynum` answer. Proto3 defaults are omitted as java-tron does (block 0 has no `number`). */
export function renderBlock(block: Block): string {
  block.blockJson ??= JSON.stringify({
    blockID: block.blockID,
    block_header: {
      raw_data: {
        ...(block.number === 0 ? {} : { number: block.number }),
        txTrieRoot: block.txTrieRoot,
        witness_address: block.witnessHex,
        parentHash: block.parentHash,
        version: BLOCK_VERSION,
        timestamp: block.timestamp,
      },
      witness_signature: block.witnessSignature,
    },
    ...(block.transactions.length === 0 ? {} : { transactions: block.transactions.map(renderTransaction) }),
  });
  return block.blockJson;
}

/** `/wallet/gettransactioninfobyblocknum` answer: one TransactionInfo per transaction, in block order. */
export function renderTransactionInfos(block: Block): string {
  block.infosJson ??= JSON.stringify(block.transactions.map((included) => transactionInfo(block, included)));
  return block.infosJson;
}

/** `/wallet/gettransactioninfobyid` answer for a landed transaction. */
export function renderTransactionInfo(block: Block, included: IncludedTransaction): string {
  return JSON.stringify(transactionInfo(block, included));
}

function transactionInfo(block: Block, included: IncludedTransaction): Record<string, unknown> {
  const base = { id: included.tx.txID, blockNumber: block.number, blockTimeStamp: block.timestamp };
  const payment: Payment = included.tx.payment;
  if (payment.kind === "trx") {
    return { ...base, contractResult: [""], receipt: { net_usage: TRX_TRANSFER_NET_USAGE } };
  }
  if (payment.kind === "forward") return forwardInfo(base, included.failed, payment);
  const receipt = included.receipt ?? {
    result: included.failed ? "REVERT" : "SUCCESS",
    energyUsage: 0n,
    energyFee: 0n,
    energyTotal: included.failed ? BigInt(REVERT_ENERGY) : TOKEN_TRANSFER_ENERGY,
  };
  // Proto3 zero values are left out, as java-tron prints them.
  const receiptJson = {
    ...(receipt.energyFee > 0n ? { energy_fee: Number(receipt.energyFee) } : {}),
    ...(receipt.energyUsage > 0n ? { energy_usage: Number(receipt.energyUsage) } : {}),
    energy_usage_total: Number(receipt.energyTotal),
    net_usage: TOKEN_TRANSFER_NET_USAGE,
    result: receipt.result,
  };
  const fee = receipt.energyFee > 0n ? { fee: Number(receipt.energyFee) } : {};
  if (included.failed) {
    const outOfEnergy = `Not enough energy for 'SSTORE' operation executing: curInvokeEnergyLimit[${receipt.energyTotal}], curOpEnergy[20000], usedEnergy[${receipt.energyTotal}]`;
    return {
      ...base,
      ...fee,
      contractResult: [""],
      contract_address: payment.contract,
      receipt: receiptJson,
      result: "FAILED",
      resMessage: receipt.result === "OUT_OF_ENERGY" ? Buffer.from(outOfEnergy).toString("hex") : REVERT_MESSAGE_HEX,
    };
  }
  return {
    ...base,
    ...fee,
    contractResult: ["0000000000000000000000000000000000000000000000000000000000000001"],
    contract_address: payment.contract,
    receipt: receiptJson,
    log: [transferLog(payment.contract, payment.from, payment.to, payment.amount)],
  };
}

/**
 * The TransactionInfo of a forwarder call, as java-tron (with `vm.saveInternalTx`) reports it: one
 * `internal_transactions` entry per inner CALL in execution order (caller = the contract, the TRX
 * in `callValueInfo[0].callValue`, note "call" in hex), `rejected: true` on an inner call that
 * failed and on every one of a reverted transaction. The entry's `hash` is a sha256 of the txID
 * and the entry's index (java-tron derives it from the transaction too; the form is the same).
 */
function forwardInfo(
  base: Record<string, unknown>,
  failed: boolean,
  payment: Extract<Payment, { kind: "forward" }>,
): Record<string, unknown> {
  const txID = String(base.id);
  const energy = FORWARD_ENERGY_PER_PAYMENT * payment.payments.length;
  return {
    ...base,
    contractResult: [""],
    contract_address: payment.contract,
    receipt: { energy_usage_total: energy, net_usage: FORWARD_NET_USAGE, result: failed ? "REVERT" : "SUCCESS" },
    ...(failed ? { result: "FAILED", resMessage: REVERT_MESSAGE_HEX } : {}),
    internal_transactions: payment.payments.map((p, index) => ({
      hash: createHash("sha256").update(`${txID}:${index}`).digest("hex"),
      caller_address: payment.contract,
      transferTo_address: p.to,
      callValueInfo: [{ callValue: Number(p.amount) }],
      note: CALL_NOTE,
      ...(failed || p.rejected ? { rejected: true } : {}),
    })),
  };
}

function smaller(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}

function expirationOf(tx: SignedTransaction): number {
  return Number((tx.json.raw_data as { expiration?: unknown } | undefined)?.expiration ?? 0);
}

function merkleRoot(txIDs: readonly string[]): string {
  if (txIDs.length === 0) return "0".repeat(64);
  let level: Buffer[] = txIDs.map((id) => Buffer.from(id, "hex"));
  while (level.length > 1) {
    const next: Buffer[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i] as Buffer;
      const right = level[i + 1];
      next.push(right ? createHash("sha256").update(left).update(right).digest() : left);
    }
    level = next;
  }
  return (level[0] as Buffer).toString("hex");
}
