import { createHash } from "node:crypto";
import type { TronKey } from "./keys.ts";
import { type Payment, type SignedTransaction, transferLog } from "./transactions.ts";

/** Block interval of the real chain; block timestamps advance by it. */
export const BLOCK_MS = 3_000;
/** The block header version current mainnet blocks carry. */
const BLOCK_VERSION = 32;
/** Bandwidth and energy the receipts report (resources are free on this node: no TRX is burnt). */
const TRX_TRANSFER_NET_USAGE = 268;
const TOKEN_TRANSFER_NET_USAGE = 345;
const TOKEN_TRANSFER_ENERGY = 14_650;
const FORWARD_NET_USAGE = 400;
const FORWARD_ENERGY_PER_PAYMENT = 9_800;
/** `note` of an internal transaction made by CALL: hex of "call", as java-tron writes it. */
const CALL_NOTE = Buffer.from("call").toString("hex");
const REVERT_MESSAGE_HEX = Buffer.from("REVERT opcode executed").toString("hex");

type Ledger = "trx" | "token";
interface Effect {
  ledger: Ledger;
  address: string;
  delta: bigint;
}

export interface IncludedTransaction {
  tx: SignedTransaction;
  failed: boolean;
  effects: Effect[];
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
  private pending: SignedTransaction[] = [];
  private balances: Balances = { trx: new Map(), token: new Map() };
  private forkNonce = 0;

  constructor(
    private readonly witnesses: readonly TronKey[],
    private readonly genesis: { timestamp: number; parentHash: string; fund: (balances: Balances) => void },
  ) {
    this.genesis.fund(this.balances);
    this.blocks.push(this.produce(0, genesis.parentHash, genesis.timestamp, []));
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

  /** Produces `count` blocks; the first takes every queued transaction. Returns the new heights. */
  mine(count = 1): number[] {
    const heights: number[] = [];
    for (let i = 0; i < count; i++) {
      const queued = this.pending;
      this.pending = [];
      const tip = this.tip();
      const block = this.produce(tip.number + 1, tip.blockID, tip.timestamp + BLOCK_MS, queued);
      this.blocks.push(block);
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
      this.blocks.push(this.produce(old.number, this.tip().blockID, old.timestamp, keep));
    }
    return replaced.map((block) => block.number);
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
    const ledger: Ledger = payment.kind === "trx" ? "trx" : "token";
    const covered = this.balance(ledger, payment.from) >= payment.amount;
    if (payment.kind === "trx" && !covered) return null;
    const failed = payment.kind === "token" && (payment.revert || !covered);
    const effects: Effect[] = failed
      ? []
      : [
          { ledger, address: payment.from, delta: -payment.amount },
          { ledger, address: payment.to, delta: payment.amount },
        ];
    for (const effect of effects) this.apply(effect, 1n);
    return { tx, failed, effects };
  }

  private apply(effect: Effect, sign: 1n | -1n): void {
    const ledger = this.balances[effect.ledger];
    ledger.set(effect.address, (ledger.get(effect.address) ?? 0n) + sign * effect.delta);
  }
}

/** The transaction as it appears in a block: the signed body plus its result. */
export function renderTransaction(included: IncludedTransaction): Record<string, unknown> {
  return { ret: [{ contractRet: included.failed ? "REVERT" : "SUCCESS" }], ...included.tx.json };
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

function transactionInfo(block: Block, included: IncludedTransaction): Record<string, unknown> {
  const base = { id: included.tx.txID, blockNumber: block.number, blockTimeStamp: block.timestamp };
  const payment: Payment = included.tx.payment;
  if (payment.kind === "trx") {
    return { ...base, contractResult: [""], receipt: { net_usage: TRX_TRANSFER_NET_USAGE } };
  }
  if (payment.kind === "forward") return forwardInfo(base, included.failed, payment);
  if (included.failed) {
    return {
      ...base,
      contractResult: [""],
      contract_address: payment.contract,
      receipt: { energy_usage_total: 1_215, net_usage: TOKEN_TRANSFER_NET_USAGE, result: "REVERT" },
      result: "FAILED",
      resMessage: REVERT_MESSAGE_HEX,
    };
  }
  return {
    ...base,
    contractResult: ["0000000000000000000000000000000000000000000000000000000000000001"],
    contract_address: payment.contract,
    receipt: { energy_usage_total: TOKEN_TRANSFER_ENERGY, net_usage: TOKEN_TRANSFER_NET_USAGE, result: "SUCCESS" },
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
