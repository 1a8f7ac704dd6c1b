import { Block, type Network, script, Transaction } from "bitcoinjs-lib";
import { type BlockSummary, displayHash, transactionJson } from "./core-json.ts";
import type { NodeWallet, SpendableOutput } from "./node-wallet.ts";

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

interface Coin {
  value: bigint;
  script: Uint8Array;
  /** null while the creating transaction is in the mempool. */
  height: number | null;
  coinbase: boolean;
}

export class TransactionRejected extends Error {}

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
  private readonly mempoolTxs = new Map<string, { tx: Transaction; fee: bigint }>();
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

  /** Validates inputs (exist, unspent, mature, enough value) and adds the transaction to the mempool. */
  acceptToMempool(tx: Transaction): string {
    const txid = tx.getId();
    if (this.mempoolTxs.has(txid) || this.coins.has(outpoint(txid, 0))) {
      throw new TransactionRejected("txn-already-known");
    }
    const fee = this.applyTransaction(tx, null, this.height + 1);
    this.mempoolTxs.set(txid, { tx, fee });
    return txid;
  }

  /** Mines one block with the whole mempool (or exactly `txs`), paying the reward to `payoutScript`. */
  mine(payoutScript: Uint8Array, txs?: readonly Transaction[], extraNonce = 0): StoredBlock {
    const height = this.height + 1;
    const included: Transaction[] = [];
    const fees: (bigint | undefined)[] = [undefined];
    if (txs === undefined) {
      for (const { tx, fee } of this.mempoolTxs.values()) {
        included.push(tx);
        fees.push(fee);
      }
      this.mempoolTxs.clear();
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
      if (coin === undefined || spent.includes(point)) throw new TransactionRejected("bad-txns-inputs-missingorspent");
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
    this.active.push(stored);
    return stored;
  }
}
