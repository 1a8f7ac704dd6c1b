import { hashToAddress, type Signer } from "./keys.ts";
import { LedgerState, type UndoEntry } from "./ledger-state.ts";
import { FINALIZATION_DEPTH, LEADER_FEE_SHARE_DIVISOR, MAX_PROCESSING_AGE } from "./programs.ts";
import { executeTransaction, type IncludedTransaction, type RuntimeContext } from "./runtime.ts";
import type { SignedTransaction } from "./transaction-builder.ts";

export interface Block {
  slot: number;
  parentSlot: number;
  blockHeight: number;
  blockTime: number;
  blockhash: string;
  previousBlockhash: string;
  transactions: IncludedTransaction[];
  /** Leader's share of the fees and its balance after it, for the `rewards` list. */
  leaderReward: bigint;
  leaderBalance: bigint;
  /** State changes of this block, newest last; dropped for blocks too old to reorg. */
  undo: UndoEntry[] | undefined;
  /** getBlock answers already rendered (UTF-8 JSON), by variant. */
  rendered: Map<string, Buffer>;
}

export interface ReorgOptions {
  /** Signatures to leave out of the new fork entirely (they vanish, as if never landed). */
  drop?: readonly string[];
  /** Signatures to leave out of the new fork and put back in the queue: they land in the next mined block. */
  delay?: readonly string[];
}

/** The genesis block's parent is unknown; agave shows the all-ones hash when a parent is unavailable. */
const UNAVAILABLE_BLOCKHASH = "11111111111111111111111111111111";
/** Blocks whose undo log is kept, i.e. the deepest reorg the node can do. */
const REORG_HORIZON = 1_000;

/**
 * The simulated cluster: a chain of blocks at increasing slots (with gaps for skipped slots), the
 * queue of submitted transactions, and the account state they act on.
 */
export class SolanaChain {
  readonly state = new LedgerState();
  private readonly blocks: Block[] = [];
  private readonly bySlot = new Map<number, Block>();
  private pending: SignedTransaction[] = [];
  private readonly pendingSignatures = new Set<string>();
  /** Every transaction on the current fork by signature (the status cache and transaction history in one). */
  private readonly bySignature = new Map<string, { slot: number; included: IncludedTransaction }>();
  private forkNonce = 0;
  private skipBeforeNext = 0;
  /** Slots below this were purged from the ledger (agave's --limit-ledger-size cleanup). */
  private purgedBelow = 0;

  constructor(
    private readonly seed: string,
    private readonly leader: Signer,
    private readonly runtime: RuntimeContext,
    private readonly genesisTime: number,
    private readonly slotMs: number,
    initializeGenesis: (state: LedgerState) => void,
  ) {
    // Genesis accounts are part of slot 0 and can never be reorged.
    initializeGenesis(this.state);
    this.state.takeUndoLog();
    const genesis: Block = {
      slot: 0,
      parentSlot: 0,
      blockHeight: 0,
      blockTime: genesisTime,
      blockhash: hashToAddress(seed, "genesis"),
      previousBlockhash: UNAVAILABLE_BLOCKHASH,
      transactions: [],
      leaderReward: 0n,
      leaderBalance: 0n,
      undo: undefined,
      rendered: new Map(),
    };
    this.append(genesis);
  }

  tip(): Block {
    const tip = this.blocks.at(-1);
    if (!tip) throw new Error("chain has no genesis");
    return tip;
  }

  /** The newest block `FINALIZATION_DEPTH` blocks below the tip (genesis early on). */
  finalized(): Block {
    return this.blocks[Math.max(0, this.blocks.length - 1 - FINALIZATION_DEPTH)] ?? this.tip();
  }

  block(slot: number): Block | undefined {
    return this.bySlot.get(slot);
  }

  /** The hash of the genesis config (getGenesisHash): fixed by the seed, like a cluster's. */
  genesisHash(): string {
    return hashToAddress(this.seed, "genesis-config");
  }

  /**
   * Drops every block below `slot` from the ledger, as a validator with a ledger size limit does:
   * getBlocks then leaves them out like skipped slots, getBlock answers "cleaned up".
   */
  purgeBelow(slot: number): void {
    if (!Number.isInteger(slot) || slot < 0 || slot > this.tip().slot) {
      throw new RangeError(`purgeBelow needs a slot in 0..${this.tip().slot}`);
    }
    this.purgedBelow = Math.max(this.purgedBelow, slot);
  }

  isPurged(slot: number): boolean {
    return slot < this.purgedBelow;
  }

  /** The lowest slot whose block the ledger still holds (getFirstAvailableBlock). */
  firstAvailableBlock(): number {
    return this.blockSlots(0, this.tip().slot)[0] ?? this.tip().slot;
  }

  /** Slots holding a block in [from, to] that the ledger still holds, ascending. */
  blockSlots(requestedFrom: number, to: number): number[] {
    const from = Math.max(requestedFrom, this.purgedBelow);
    // Binary search for the first block at or after `from`: the sandbox chain grows without end.
    let low = 0;
    let high = this.blocks.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if ((this.blocks[mid]?.slot ?? 0) < from) low = mid + 1;
      else high = mid;
    }
    const slots: number[] = [];
    for (let i = low; i < this.blocks.length; i++) {
      const slot = this.blocks[i]?.slot ?? Number.POSITIVE_INFINITY;
      if (slot > to) break;
      slots.push(slot);
    }
    return slots;
  }

  /** The blockhash a wallet would sign against: a finalized one, so the transaction survives short reorgs. */
  recentBlockhash(): string {
    return this.finalized().blockhash;
  }

  enqueue(tx: SignedTransaction): void {
    this.pending.push(tx);
    this.pendingSignatures.add(tx.signature);
  }

  /** Queued for the next block and not yet in one. */
  isPending(signature: string): boolean {
    return this.pendingSignatures.has(signature);
  }

  /** The transaction with this (first) signature on the current fork, and its slot. */
  transaction(signature: string): { slot: number; included: IncludedTransaction } | undefined {
    return this.bySignature.get(signature);
  }

  /**
   * The last block height at which a transaction signed against `blockhash` may land, while that
   * blockhash is a block of the current fork recent enough to be usable by the next block;
   * undefined otherwise (unknown, from an abandoned fork, or expired).
   */
  lastValidBlockHeight(blockhash: string): number | undefined {
    const next = this.tip().blockHeight + 1;
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const block = this.blocks[i];
      if (!block || block.blockHeight + MAX_PROCESSING_AGE < next) return undefined;
      if (block.blockhash === blockhash) return block.blockHeight + MAX_PROCESSING_AGE;
    }
    return undefined;
  }

  /** The outcome of a transaction run on the tip state now, leaving the state as it was (preflight). */
  simulate(tx: SignedTransaction): IncludedTransaction | null {
    const mark = this.state.mark();
    try {
      return executeTransaction(this.state, tx, this.runtime);
    } finally {
      this.state.rollbackTo(mark);
    }
  }

  pendingCount(): number {
    return this.pending.length;
  }

  /** The next `count` slots produce no block (their leaders were offline). */
  skipSlots(count: number): void {
    if (!Number.isInteger(count) || count < 1) throw new RangeError("skipSlots needs a positive count");
    this.skipBeforeNext += count;
  }

  /** Produces `count` blocks; the first takes every queued transaction. Returns their slots. */
  mine(count = 1): number[] {
    if (!Number.isInteger(count) || count < 1) throw new RangeError("mine needs a positive count");
    const slots: number[] = [];
    for (let i = 0; i < count; i++) {
      const slot = this.tip().slot + 1 + this.skipBeforeNext;
      this.skipBeforeNext = 0;
      this.pendingSignatures.clear();
      const block = this.produce(slot, this.pending.splice(0));
      this.append(block);
      slots.push(slot);
    }
    return slots;
  }

  /**
   * Replaces the newest `depth` blocks with a competing fork at the same slots: new blockhashes,
   * the same transactions re-executed (so their balances are recomputed) except those dropped or
   * delayed. Returns the replaced slots.
   */
  reorg(depth: number, options: ReorgOptions = {}): number[] {
    if (!Number.isInteger(depth) || depth < 1 || depth >= this.blocks.length) {
      throw new RangeError(`reorg depth must be between 1 and ${this.blocks.length - 1}`);
    }
    const replaced = this.blocks.slice(-depth);
    const known = new Set(replaced.flatMap((block) => block.transactions.map((tx) => tx.signature)));
    for (const signature of [...(options.drop ?? []), ...(options.delay ?? [])]) {
      if (!known.has(signature)) throw new RangeError(`transaction ${signature} is not in the last ${depth} blocks`);
    }
    for (const block of [...replaced].reverse()) {
      if (!block.undo) throw new RangeError(`block at slot ${block.slot} is too old to reorg`);
      this.state.undo(block.undo);
      this.bySlot.delete(block.slot);
      for (const tx of block.transactions) this.bySignature.delete(tx.signature);
    }
    this.blocks.splice(-depth);
    this.forkNonce++;
    const drop = new Set(options.drop ?? []);
    const delay = new Set(options.delay ?? []);
    const delayed: SignedTransaction[] = [];
    for (const old of replaced) {
      const keep: SignedTransaction[] = [];
      for (const { source } of old.transactions) {
        if (delay.has(source.signature)) delayed.push(source);
        else if (!drop.has(source.signature)) keep.push(source);
      }
      this.append(this.produce(old.slot, keep));
    }
    this.pending = [...delayed, ...this.pending];
    for (const tx of delayed) this.pendingSignatures.add(tx.signature);
    return replaced.map((block) => block.slot);
  }

  private produce(slot: number, queue: readonly SignedTransaction[]): Block {
    const parent = this.tip();
    this.state.takeUndoLog();
    const transactions: IncludedTransaction[] = [];
    const height = parent.blockHeight + 1;
    const inBlock = new Set<string>();
    // A benchmark block holds thousands of transactions signed against a handful of blockhashes.
    const lastValidOf = new Map<string, number | undefined>();
    for (const tx of queue) {
      // What the bank refuses before executing: a signature it has already processed (the status
      // cache), a blockhash it does not know or that is too old for this height.
      if (this.bySignature.has(tx.signature) || inBlock.has(tx.signature)) continue;
      if (!lastValidOf.has(tx.recentBlockhash)) {
        lastValidOf.set(tx.recentBlockhash, this.lastValidBlockHeight(tx.recentBlockhash));
      }
      const lastValid = lastValidOf.get(tx.recentBlockhash);
      if (lastValid === undefined || lastValid < height) continue;
      const included = executeTransaction(this.state, tx, this.runtime);
      if (included) {
        transactions.push(included);
        inBlock.add(tx.signature);
      }
    }
    const fees = transactions.reduce((sum, tx) => sum + tx.fee, 0n);
    const leaderReward = fees / LEADER_FEE_SHARE_DIVISOR;
    if (leaderReward > 0n) this.state.addLamports(this.leader.address, leaderReward);
    const blockhash = hashToAddress(
      parent.blockhash,
      `${this.seed}:${slot}:${this.forkNonce}`,
      ...transactions.map((tx) => tx.signature),
    );
    return {
      slot,
      parentSlot: parent.slot,
      blockHeight: parent.blockHeight + 1,
      blockTime: this.genesisTime + Math.floor((slot * this.slotMs) / 1000),
      blockhash,
      previousBlockhash: parent.blockhash,
      transactions,
      leaderReward,
      leaderBalance: this.state.lamports(this.leader.address),
      undo: this.state.takeUndoLog(),
      rendered: new Map(),
    };
  }

  private append(block: Block): void {
    this.blocks.push(block);
    this.bySlot.set(block.slot, block);
    for (const tx of block.transactions) this.bySignature.set(tx.signature, { slot: block.slot, included: tx });
    const old = this.blocks[this.blocks.length - 1 - REORG_HORIZON];
    if (old) old.undo = undefined;
  }
}
