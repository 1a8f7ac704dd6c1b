import { Block, type Network, script, Transaction } from "bitcoinjs-lib";
import { type BlockSummary, displayHash, transactionJson } from "./core-json.ts";
import {
  checkDust,
  checkTransaction,
  feeRatePerKvb,
  formatFeeRate,
  formatMoney,
  MIN_RELAY_SAT_PER_KVB,
  RPC_TRANSACTION_ALREADY_IN_CHAIN,
  RPC_TRANSACTION_ERROR,
  signalsReplaceability,
  TransactionRejected,
  verifyInput,
  virtualSize,
} from "./mempool-policy.ts";
import type { NodeWallet, SpendableOutput } from "./node-wallet.ts";

export { TransactionRejected } from "./mempool-policy.ts";

/**
 * The test node's chain: real blocks (bitcoinjs-lib, BIP-34 coinbase, BIP-141 witness commitment,
 * regtest proof of work), the UTXO set, the mempool, mining and reorgs. Every block is kept, so a
 * block that left the active chain still answers getblock with confirmations -1, like Core.
 */

/** Regtest consensus values (src/kernel/chainparams.cpp). */
export const REGTEST_BITS = 0x207fffff;
const REGTEST_HALVING_INTERVAL = 150;
const COINBASE_MATURITY = 100;
const BLOCK_VERSION = 0x20000000;
const INITIAL_SUBSIDY = 50n * 100_000_000n;
/** The regtest genesis block (shared with mainnet's coinbase "The Times 03/Jan/2009 ..."). */
const GENESIS_COINBASE_HEX =
  "01000000010000000000000000000000000000000000000000000000000000000000000000ffffffff4d04ffff001d010445" +
  "5468652054696d65732030332f4a616e2f32303039204368616e63656c6c6f72206f6e206272696e6b206f66207365636f" +
  "6e64206261696c6f757420666f722062616e6b73ffffffff0100f2052a01000000434104678afdb0fe5548271967f1a671" +
  "30b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf1" +
  "1d5fac00000000";
const GENESIS_TIME = 1296688602;
const GENESIS_NONCE = 2;
const WITNESS_COMMITMENT_HEADER = Uint8Array.from([0xaa, 0x21, 0xa9, 0xed]);
const OP_RETURN = 0x6a;

export interface StoredBlock extends BlockSummary {
  block: Block;
  txs: Transaction[];
  txids: string[];
  /** getblock verbosity 1 and 2 `tx` arrays, rendered once: a block never changes. */
  txidsJson: string;
  txsJson: string;
}

export interface Coin {
  value: bigint;
  script: Uint8Array;
  /** null while the creating transaction is in the mempool. */
  height: number | null;
  coinbase: boolean;
}

/** A transaction waiting in the mempool, with the coins it spends (restored if it is replaced). */
export interface MempoolEntry {
  tx: Transaction;
  txid: string;
  fee: bigint;
  vsize: number;
  /** Unix seconds it entered. */
  time: number;
  /** Chain height when it entered. */
  height: number;
  spent: Map<string, Coin>;
}

/** What mine() takes from the mempool (test control: make a send stuck). */
export interface MiningPolicy {
  /** Leave every mempool transaction out of blocks. */
  hold: boolean;
  /** Leave out transactions paying less than this (sat/vB), and their descendants. */
  minFeeRateSatPerVb: number;
}

export interface ReorgOptions {
  /** Transactions (and their descendants) removed for good, as if double-spent. */
  drop?: readonly string[];
  /** Transactions put back into the mempool instead of the new blocks. */
  toMempool?: readonly string[];
  /** txid -> index (0-based) of the replacement block it lands in; default 0. */
  move?: Readonly<Record<string, number>>;
  /** Length of the replacement branch; default `depth` (the tip height stays the same). */
  blocks?: number;
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

function outpoint(txid: string, vout: number): string {
  return `${txid}:${vout}`;
}

function targetOf(bits: number): bigint {
  const exponent = bits >>> 24;
  const mantissa = BigInt(bits & 0x007fffff);
  return exponent <= 3 ? mantissa >> BigInt(8 * (3 - exponent)) : mantissa << BigInt(8 * (exponent - 3));
}

/** Expected hashes to find a block: 2^256 / (target + 1), as chainwork counts it. */
function workOf(bits: number): bigint {
  return (1n << 256n) / (targetOf(bits) + 1n);
}

function subsidyAt(height: number): bigint {
  const halvings = Math.floor(height / REGTEST_HALVING_INTERVAL);
  return halvings >= 64 ? 0n : INITIAL_SUBSIDY >> BigInt(halvings);
}

export class ChainState {
  private readonly blocksByHash = new Map<string, StoredBlock>();
  private active: StoredBlock[] = [];
  private readonly coins = new Map<string, Coin>();
  private readonly walletCoins = new Set<string>();
  private readonly mempoolTxs = new Map<string, MempoolEntry>();
  /** Outpoint -> the mempool transaction spending it (conflict detection, BIP-125). */
  private readonly mempoolSpends = new Map<string, string>();
  /** txid -> every stored block carrying it (on the active chain or not), for getrawtransaction. */
  private readonly txBlocks = new Map<string, StoredBlock[]>();
  miningPolicy: MiningPolicy = { hold: false, minFeeRateSatPerVb: 0 };
  private forks = 0;

  constructor(
    private readonly network: Network,
    private readonly wallet: NodeWallet,
    private readonly now: () => number = () => Math.floor(Date.now() / 1000),
  ) {
    const coinbase = Transaction.fromHex(GENESIS_COINBASE_HEX);
    const block = new Block();
    block.version = 1;
    block.prevHash = new Uint8Array(32);
    block.merkleRoot = Block.calculateMerkleRoot([coinbase]);
    block.timestamp = GENESIS_TIME;
    block.bits = REGTEST_BITS;
    block.nonce = GENESIS_NONCE;
    block.transactions = [coinbase];
    // The genesis output is not spendable (it never entered the UTXO set), so no coin is added.
    this.store(block, 0, null, [undefined]);
  }

  get height(): number {
    return this.active.length - 1;
  }

  get tip(): StoredBlock {
    const tip = this.active.at(-1);
    if (tip === undefined) throw new Error("chain has no genesis");
    return tip;
  }

  blockAt(height: number): StoredBlock | undefined {
    return this.active[height];
  }

  blockByHash(hash: string): StoredBlock | undefined {
    return this.blocksByHash.get(hash);
  }

  /** Core's confirmations: 1 at the tip, -1 once the block left the active chain. */
  confirmations(block: StoredBlock): number {
    return this.active[block.height] === block ? this.height - block.height + 1 : -1;
  }

  nextHash(block: StoredBlock): string | null {
    if (this.active[block.height] !== block) return null;
    return this.active[block.height + 1]?.hash ?? null;
  }

  mempool(): string[] {
    return [...this.mempoolTxs.keys()];
  }

  /**
   * Wallet outputs it will spend. Like Core's wallet, a coinbase needs 101 confirmations (one more
   * than consensus asks), which is why regtest setups mine 101 blocks first.
   */
  spendableWalletCoins(): SpendableOutput[] {
    const coins: SpendableOutput[] = [];
    for (const point of this.walletCoins) {
      const coin = this.coins.get(point);
      if (coin === undefined || !this.mature(coin, this.height)) continue;
      const key = this.wallet.keyFor(hex(coin.script));
      if (key === undefined) continue;
      const separator = point.indexOf(":");
      coins.push({ txid: point.slice(0, separator), vout: Number(point.slice(separator + 1)), value: coin.value, key });
    }
    return coins;
  }

  /**
   * An unspent output, as gettxout sees it: with `includeMempool`, outputs of mempool transactions
   * count and outputs spent in the mempool do not; without, only the chain's UTXO set.
   */
  unspent(txid: string, vout: number, includeMempool: boolean): Readonly<Coin> | undefined {
    const point = outpoint(txid, vout);
    const coin = this.coins.get(point);
    if (coin !== undefined) return includeMempool || coin.height !== null ? coin : undefined;
    if (includeMempool) return undefined;
    const spender = this.mempoolSpends.get(point);
    const spent = spender === undefined ? undefined : this.mempoolTxs.get(spender)?.spent.get(point);
    return spent?.height === null ? undefined : spent;
  }

  mempoolEntry(txid: string): MempoolEntry | undefined {
    return this.mempoolTxs.get(txid);
  }

  /** The active-chain block holding `txid`, if any. */
  blockOf(txid: string): StoredBlock | undefined {
    return this.txBlocks.get(txid)?.find((block) => this.active[block.height] === block);
  }

  /** Mempool transactions spending an output of `txid`. */
  mempoolChildren(txid: string): string[] {
    const children = new Set<string>();
    for (const [point, spender] of this.mempoolSpends) if (point.startsWith(`${txid}:`)) children.add(spender);
    return [...children];
  }

  /**
   * Validates like Core's AcceptToMemoryPool and adds the transaction: consensus checks, dust,
   * inputs exist and are unspent (or spent only by mempool transactions it replaces under BIP-125),
   * mature, value in >= out, minimum relay fee, `maxFeeRatePerKvb` (sendrawtransaction's
   * maxfeerate), then every input's script. Throws TransactionRejected with Core's code and reason.
   */
  acceptToMempool(tx: Transaction, options: { maxFeeRatePerKvb?: bigint } = {}): string {
    const txid = tx.getId();
    checkTransaction(tx);
    checkDust(tx);
    if (this.mempoolTxs.has(txid)) throw new TransactionRejected("txn-already-in-mempool");
    for (let vout = 0; vout < tx.outs.length; vout++) {
      if (this.coins.get(outpoint(txid, vout))?.height != null) {
        throw new TransactionRejected("Transaction outputs already in utxo set", RPC_TRANSACTION_ALREADY_IN_CHAIN);
      }
    }
    const conflicts = new Set<string>();
    const prevouts: Coin[] = [];
    for (const input of tx.ins) {
      const point = outpoint(displayHash(input.hash), input.index);
      let coin = this.coins.get(point);
      if (coin === undefined) {
        const spender = this.mempoolSpends.get(point);
        coin = spender === undefined ? undefined : this.mempoolTxs.get(spender)?.spent.get(point);
        if (spender === undefined || coin === undefined) {
          throw new TransactionRejected("bad-txns-inputs-missingorspent", RPC_TRANSACTION_ERROR);
        }
        conflicts.add(spender);
      }
      if (!this.mature(coin, this.height + 1)) {
        const depth = coin.height === null ? 0 : this.height + 1 - coin.height;
        throw new TransactionRejected(
          `bad-txns-premature-spend-of-coinbase, tried to spend coinbase at depth ${depth}`,
        );
      }
      prevouts.push(coin);
    }
    // Rule 1 (this node, like Core before 28's full-RBF default): every replaced transaction signals.
    for (const conflict of conflicts) {
      const entry = this.mempoolTxs.get(conflict);
      if (entry !== undefined && !signalsReplaceability(entry.tx))
        throw new TransactionRejected("txn-mempool-conflict");
    }
    const replaced = this.withDescendants(conflicts);
    for (const input of tx.ins) {
      if (replaced.has(displayHash(input.hash))) throw new TransactionRejected("bad-txns-spends-conflicting-tx");
    }
    const inputValue = prevouts.reduce((sum, coin) => sum + coin.value, 0n);
    const outputValue = tx.outs.reduce((sum, output) => sum + output.value, 0n);
    if (outputValue > inputValue) {
      throw new TransactionRejected(
        `bad-txns-in-belowout, value in (${formatMoney(inputValue)}) < value out (${formatMoney(outputValue)})`,
      );
    }
    const fee = inputValue - outputValue;
    const vsize = virtualSize(tx);
    const feeRate = feeRatePerKvb(fee, vsize);
    if (options.maxFeeRatePerKvb !== undefined && options.maxFeeRatePerKvb > 0n && feeRate > options.maxFeeRatePerKvb) {
      throw new TransactionRejected(
        "Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)",
        RPC_TRANSACTION_ERROR,
      );
    }
    const minFee = (MIN_RELAY_SAT_PER_KVB * BigInt(vsize)) / 1000n;
    if (fee < minFee) throw new TransactionRejected(`min relay fee not met, ${fee} < ${minFee}`);
    if (conflicts.size > 0) this.checkReplacement(tx, txid, fee, vsize, conflicts, replaced);
    for (const [index, coin] of prevouts.entries()) verifyInput(tx, index, coin);

    for (const conflict of [...replaced].reverse()) this.removeFromMempool(conflict);
    const spent = new Map<string, Coin>();
    for (const input of tx.ins) {
      const point = outpoint(displayHash(input.hash), input.index);
      const coin = this.coins.get(point);
      if (coin === undefined) throw new Error(`coin ${point} vanished while accepting ${txid}`);
      spent.set(point, coin);
      this.coins.delete(point);
      this.walletCoins.delete(point);
      this.mempoolSpends.set(point, txid);
    }
    this.addOutputs(tx, null);
    this.mempoolTxs.set(txid, { tx, txid, fee, vsize, time: this.now(), height: this.height, spent });
    return txid;
  }

  /** BIP-125 rules 2, 3, 4 and 6 as Core's ReplacementChecks words them. */
  private checkReplacement(
    tx: Transaction,
    txid: string,
    fee: bigint,
    vsize: number,
    conflicts: Set<string>,
    replaced: Set<string>,
  ): void {
    const newRate = feeRatePerKvb(fee, vsize);
    for (const conflict of conflicts) {
      const entry = this.mempoolTxs.get(conflict);
      if (entry === undefined) continue;
      const oldRate = feeRatePerKvb(entry.fee, entry.vsize);
      if (newRate <= oldRate) {
        throw new TransactionRejected(
          `insufficient fee, rejecting replacement ${txid}; new feerate ${formatFeeRate(newRate)} <= old feerate ${formatFeeRate(oldRate)}`,
        );
      }
    }
    const conflictInputs = new Set<string>();
    for (const conflict of conflicts) {
      for (const point of this.mempoolTxs.get(conflict)?.spent.keys() ?? []) conflictInputs.add(point);
    }
    tx.ins.forEach((input, index) => {
      const point = outpoint(displayHash(input.hash), input.index);
      const coin = this.coins.get(point);
      if (coin !== undefined && coin.height === null && !conflictInputs.has(point)) {
        throw new TransactionRejected(
          `replacement-adds-unconfirmed, replacement ${txid} adds unconfirmed input, idx ${index}`,
        );
      }
    });
    let oldFees = 0n;
    for (const id of replaced) oldFees += this.mempoolTxs.get(id)?.fee ?? 0n;
    if (fee < oldFees) {
      throw new TransactionRejected(
        `insufficient fee, rejecting replacement ${txid}, less fees than conflicting txs; ${formatMoney(fee)} < ${formatMoney(oldFees)}`,
      );
    }
    const relayFee = (MIN_RELAY_SAT_PER_KVB * BigInt(vsize)) / 1000n;
    if (fee - oldFees < relayFee) {
      throw new TransactionRejected(
        `insufficient fee, rejecting replacement ${txid}, not enough additional fees to relay; ${formatMoney(fee - oldFees)} < ${formatMoney(relayFee)}`,
      );
    }
  }

  /** `roots` and every mempool transaction descending from them, parents before children. */
  private withDescendants(roots: Iterable<string>): Set<string> {
    const found = new Set<string>();
    const queue = [...roots];
    while (queue.length > 0) {
      const txid = queue.shift() as string;
      if (found.has(txid)) continue;
      found.add(txid);
      queue.push(...this.mempoolChildren(txid));
    }
    return found;
  }

  /** Takes a mempool transaction out (it was replaced): its inputs are unspent again, its outputs gone. */
  private removeFromMempool(txid: string): void {
    const entry = this.mempoolTxs.get(txid);
    if (entry === undefined) return;
    this.mempoolTxs.delete(txid);
    for (let vout = 0; vout < entry.tx.outs.length; vout++) {
      this.coins.delete(outpoint(txid, vout));
      this.walletCoins.delete(outpoint(txid, vout));
    }
    for (const [point, coin] of entry.spent) {
      this.mempoolSpends.delete(point);
      this.coins.set(point, coin);
      if (this.wallet.keyFor(hex(coin.script)) !== undefined) this.walletCoins.add(point);
    }
  }

  /** Mines one block with the whole mempool (or exactly `txs`), paying the reward to `payoutScript`. */
  mine(payoutScript: Uint8Array, txs?: readonly Transaction[], extraNonce = 0): StoredBlock {
    const height = this.height + 1;
    const included: Transaction[] = [];
    const fees: (bigint | undefined)[] = [undefined];
    if (txs === undefined) {
      // Mempool order is parents first; a transaction left out keeps its descendants out too.
      const leftOut = new Set<string>();
      const minRate = BigInt(Math.round(this.miningPolicy.minFeeRateSatPerVb * 1000));
      for (const entry of this.mempoolTxs.values()) {
        const parentLeftOut = entry.tx.ins.some((input) => leftOut.has(displayHash(input.hash)));
        if (this.miningPolicy.hold || parentLeftOut || feeRatePerKvb(entry.fee, entry.vsize) < minRate) {
          leftOut.add(entry.txid);
          continue;
        }
        included.push(entry.tx);
        fees.push(entry.fee);
      }
      for (const tx of included) {
        const entry = this.mempoolTxs.get(tx.getId());
        for (const point of entry?.spent.keys() ?? []) this.mempoolSpends.delete(point);
        this.mempoolTxs.delete(tx.getId());
      }
    } else {
      for (const tx of txs) {
        included.push(tx);
        fees.push(this.applyTransaction(tx, null, height));
      }
    }
    for (const tx of included) this.confirmOutputs(tx, height);
    const totalFees = fees.reduce<bigint>((sum, fee) => sum + (fee ?? 0n), 0n);
    const coinbase = this.coinbase(height, subsidyAt(height) + totalFees, payoutScript, extraNonce, included);
    this.addOutputs(coinbase, height);
    const block = new Block();
    block.version = BLOCK_VERSION;
    block.prevHash = this.tip.block.getHash();
    block.transactions = [coinbase, ...included];
    block.merkleRoot = Block.calculateMerkleRoot(block.transactions);
    block.timestamp = Math.max(this.tip.medianTime + 1, this.now());
    block.bits = REGTEST_BITS;
    block.nonce = 0;
    // Regtest proof of work: about one hash in two meets the target.
    while (!block.checkProofOfWork()) block.nonce++;
    return this.store(block, height, this.tip, fees);
  }

  /**
   * Replaces the last `depth` blocks with a new branch. Their transactions land in the first new
   * block unless moved, dropped (with descendants) or sent back to the mempool; the old mempool is
   * re-validated. A child never lands before its parent: it follows it.
   */
  reorg(depth: number, options: ReorgOptions, payoutScript: () => Uint8Array): { removed: string[]; added: string[] } {
    if (!Number.isInteger(depth) || depth < 1 || depth > this.height) {
      throw new RangeError(`reorg depth must be 1..${this.height}`);
    }
    const newBlocks = options.blocks ?? depth;
    if (!Number.isInteger(newBlocks) || newBlocks < 1) throw new RangeError("reorg needs at least one new block");
    const removed = this.active.slice(this.height - depth + 1);
    const candidates = removed.flatMap((block) => block.txs.slice(1));
    const oldMempool = [...this.mempoolTxs.values()].map((entry) => entry.tx);
    const known = new Set([...candidates, ...oldMempool].map((tx) => tx.getId()));
    for (const txid of [...(options.drop ?? []), ...(options.toMempool ?? []), ...Object.keys(options.move ?? {})]) {
      if (!known.has(txid)) throw new RangeError(`transaction ${txid} is not in the reorganised blocks or mempool`);
    }
    for (const [txid, index] of Object.entries(options.move ?? {})) {
      if (!Number.isInteger(index) || index < 0 || index >= newBlocks) {
        throw new RangeError(`move of ${txid} must name a new block 0..${newBlocks - 1}`);
      }
    }

    const dropped = new Set(options.drop ?? []);
    const placement = new Map<string, number | "mempool">();
    for (const tx of [...candidates, ...oldMempool]) {
      const txid = tx.getId();
      const parents = tx.ins.map((input) => displayHash(input.hash));
      if (dropped.has(txid) || parents.some((parent) => dropped.has(parent))) {
        dropped.add(txid);
        continue;
      }
      const isCandidate = candidates.includes(tx);
      let place: number | "mempool" =
        !isCandidate || options.toMempool?.includes(txid) ? "mempool" : (options.move?.[txid] ?? 0);
      for (const parent of parents) {
        const parentPlace = placement.get(parent);
        if (parentPlace === "mempool") place = "mempool";
        else if (parentPlace !== undefined && place !== "mempool" && parentPlace > place) place = parentPlace;
      }
      placement.set(txid, place);
    }

    this.active = this.active.slice(0, this.height - depth + 1);
    this.rebuildCoins();
    this.mempoolTxs.clear();
    this.mempoolSpends.clear();
    const added: string[] = [];
    this.forks++;
    // A transaction that spends a coinbase not yet mature at its new height (it was mined higher up
    // on the old branch) waits for a later block, as Core's mempool would keep it; its descendants
    // wait with it. What still cannot be mined after the last new block goes back to the mempool.
    let waiting: Transaction[] = [];
    for (let index = 0; index < newBlocks; index++) {
      const height = this.height + 1;
      const txs: Transaction[] = [];
      const deferred: Transaction[] = [];
      const deferredIds = new Set<string>();
      for (const tx of [...waiting, ...candidates.filter((c) => placement.get(c.getId()) === index)]) {
        const parents = tx.ins.map((input) => displayHash(input.hash));
        if (parents.some((parent) => deferredIds.has(parent)) || this.spendsImmatureCoinbase(tx, height)) {
          deferred.push(tx);
          deferredIds.add(tx.getId());
        } else {
          txs.push(tx);
        }
      }
      waiting = deferred;
      added.push(this.mine(payoutScript(), txs, this.forks).hash);
    }
    for (const tx of waiting) placement.set(tx.getId(), "mempool");
    for (const tx of [...candidates, ...oldMempool]) {
      if (placement.get(tx.getId()) !== "mempool") continue;
      try {
        this.acceptToMempool(tx);
      } catch {
        // No longer valid on the new branch (e.g. spends a vanished coinbase): evicted, as in Core.
      }
    }
    return { removed: removed.map((block) => block.hash), added };
  }

  /** True when an input is a coinbase output that is not mature at `spendHeight`. */
  private spendsImmatureCoinbase(tx: Transaction, spendHeight: number): boolean {
    return tx.ins.some((input) => {
      const coin = this.coins.get(outpoint(displayHash(input.hash), input.index));
      return coin !== undefined && !this.mature(coin, spendHeight);
    });
  }

  private mature(coin: Coin, spendHeight: number): boolean {
    return !coin.coinbase || (coin.height !== null && spendHeight - coin.height >= COINBASE_MATURITY);
  }

  /** Spends the inputs and adds the outputs; returns the fee. Throws without changing anything. */
  private applyTransaction(tx: Transaction, height: number | null, spendHeight: number): bigint {
    let inputValue = 0n;
    const spent: string[] = [];
    for (const input of tx.ins) {
      const point = outpoint(displayHash(input.hash), input.index);
      const coin = this.coins.get(point);
      if (coin === undefined || spent.includes(point)) {
        throw new TransactionRejected("bad-txns-inputs-missingorspent", RPC_TRANSACTION_ERROR);
      }
      if (!this.mature(coin, spendHeight)) throw new TransactionRejected("bad-txns-premature-spend-of-coinbase");
      inputValue += coin.value;
      spent.push(point);
    }
    const outputValue = tx.outs.reduce((sum, output) => sum + output.value, 0n);
    if (outputValue > inputValue) throw new TransactionRejected("bad-txns-in-belowout");
    for (const point of spent) {
      this.coins.delete(point);
      this.walletCoins.delete(point);
    }
    this.addOutputs(tx, height);
    return inputValue - outputValue;
  }

  private addOutputs(tx: Transaction, height: number | null): void {
    const txid = tx.getId();
    const coinbase = tx.isCoinbase();
    tx.outs.forEach((output, vout) => {
      // Provably unspendable outputs never enter the UTXO set.
      if (output.script[0] === OP_RETURN) return;
      const point = outpoint(txid, vout);
      this.coins.set(point, { value: output.value, script: output.script, height, coinbase });
      if (this.wallet.keyFor(hex(output.script)) !== undefined) this.walletCoins.add(point);
    });
  }

  private confirmOutputs(tx: Transaction, height: number): void {
    const txid = tx.getId();
    for (let vout = 0; vout < tx.outs.length; vout++) {
      const coin = this.coins.get(outpoint(txid, vout));
      if (coin !== undefined) coin.height = height;
    }
  }

  private rebuildCoins(): void {
    this.coins.clear();
    this.walletCoins.clear();
    for (const block of this.active) {
      if (block.height === 0) continue;
      for (const tx of block.txs) {
        if (!tx.isCoinbase()) {
          for (const input of tx.ins) {
            const point = outpoint(displayHash(input.hash), input.index);
            this.coins.delete(point);
            this.walletCoins.delete(point);
          }
        }
        this.addOutputs(tx, block.height);
      }
    }
  }

  /** BIP-34 height (as Core's `CScript() << height << OP_0`), reward output, witness commitment. */
  private coinbase(
    height: number,
    reward: bigint,
    payoutScript: Uint8Array,
    extraNonce: number,
    txs: readonly Transaction[],
  ): Transaction {
    const coinbase = new Transaction();
    coinbase.version = 2;
    const heightPush = script.number.encode(height);
    const extra = extraNonce === 0 ? script.number.encode(0) : script.number.encode(extraNonce);
    coinbase.addInput(new Uint8Array(32), 0xffffffff, 0xffffffff, script.compile([heightPush, extra]));
    coinbase.setWitness(0, [new Uint8Array(32)]);
    coinbase.addOutput(payoutScript, reward);
    // BIP-141: the commitment hashes the witness merkle root (coinbase wtxid = 0) with the reserved value.
    const commitment = Block.calculateMerkleRoot([coinbase, ...txs], true);
    coinbase.addOutput(script.compile([OP_RETURN, Uint8Array.from([...WITNESS_COMMITMENT_HEADER, ...commitment])]), 0n);
    return coinbase;
  }

  private store(block: Block, height: number, parent: StoredBlock | null, fees: (bigint | undefined)[]): StoredBlock {
    const txs = block.transactions ?? [];
    const times = [block.timestamp];
    // Median time past over the block and its ten predecessors (the active chain up to `parent`).
    for (let h = height - 1; h >= 0 && times.length < 11; h--) {
      const ancestor = this.active[h];
      if (ancestor !== undefined) times.push(ancestor.time);
    }
    times.sort((a, b) => a - b);
    const txids = txs.map((tx) => tx.getId());
    const size = block.byteLength(false, true);
    const strippedSize = block.byteLength(false, false);
    const stored: StoredBlock = {
      hash: block.getId(),
      height,
      version: block.version,
      merkleRoot: displayHash(block.merkleRoot ?? new Uint8Array(32)),
      time: block.timestamp,
      medianTime: times[Math.floor(times.length / 2)] ?? block.timestamp,
      nonce: block.nonce,
      bits: block.bits,
      chainwork: (parent?.chainwork ?? 0n) + workOf(block.bits),
      txCount: txs.length,
      previousHash: parent?.hash ?? null,
      size,
      strippedSize,
      weight: strippedSize * 3 + size,
      block,
      txs,
      txids,
      txidsJson: JSON.stringify(txids),
      txsJson: `[${txs.map((tx, index) => transactionJson(tx, this.network, fees[index])).join(",")}]`,
    };
    this.blocksByHash.set(stored.hash, stored);
    for (const txid of txids) {
      const holders = this.txBlocks.get(txid);
      if (holders === undefined) this.txBlocks.set(txid, [stored]);
      else holders.push(stored);
    }
    this.active.push(stored);
    return stored;
  }
}
