import { btcToSatoshis } from "@mp/bitcoin-protocol";
import { stringifyJson } from "@mp/rpc";
import { address as bitcoinAddress, type Network, Transaction } from "bitcoinjs-lib";
import type { ChainState, StoredBlock } from "./chain-state.ts";
import { TransactionRejected } from "./chain-state.ts";
import {
  blockHeaderJsonValue,
  blockJson,
  btcAmount,
  coreDouble,
  difficultyOf,
  transactionJsonValue,
  transactionWeight,
} from "./core-json.ts";
import { signalsReplaceability } from "./mempool-policy.ts";
import { InsufficientFundsError, type NodeWallet } from "./node-wallet.ts";
import { type Dispatch, RPC_METHOD_NOT_FOUND, RpcFailure } from "./rpc-server.ts";
import { describeScript, scriptToAsm } from "./script-json.ts";

/**
 * The Bitcoin Core RPC subset the Bitcoin adapter, faucet and treasury sender use, with Core's parameter names
 * (named parameters work), defaults, results and error codes (src/rpc/protocol.h).
 */

const RPC_MISC_ERROR = -1;
const RPC_TYPE_ERROR = -3;
const RPC_INVALID_ADDRESS_OR_KEY = -5;
const RPC_WALLET_INSUFFICIENT_FUNDS = -6;
const RPC_INVALID_PARAMETER = -8;
const RPC_DESERIALIZATION_ERROR = -22;
/** sendrawtransaction's default maxfeerate: 0.10 BTC/kvB. */
const DEFAULT_MAX_FEE_RATE_PER_KVB = 10_000_000n;

export interface NodeInternals {
  chain: ChainState;
  wallet: NodeWallet;
  network: Network;
  /** getblockchaininfo.chain: "main", "test" or "regtest". */
  chainName: string;
  /** Mines `count` blocks paying `payoutScript`; returns their hashes. */
  mine(count: number, payoutScript: Uint8Array): string[];
  /** Wallet send: signs, adds to the mempool, returns the txid. */
  sendFromWallet(outputs: { script: Uint8Array; value: bigint }[], subtractFee: boolean): Transaction;
  /** What estimatesmartfee answers, in sat/vB; null answers Core's "Insufficient data" (fresh regtest). */
  feeEstimateSatPerVb: number | null;
  /**
   * Runs as with `-txindex`: getrawtransaction finds a mined transaction without a blockhash. Off
   * (Core's default), it finds only mempool transactions unless given the block that holds one.
   */
  txindex: boolean;
  /** Blocks below this height have no data any more (a pruned node); 0: none pruned. */
  pruneHeight: number;
}

class Params {
  constructor(
    private readonly raw: unknown[] | Record<string, unknown>,
    private readonly names: readonly string[],
  ) {
    if (!Array.isArray(raw)) {
      for (const key of Object.keys(raw)) {
        if (!names.includes(key)) throw new RpcFailure(RPC_INVALID_PARAMETER, `Unknown named parameter ${key}`);
      }
    } else if (raw.length > names.length) {
      throw new RpcFailure(RPC_INVALID_PARAMETER, `Too many parameters (${raw.length}, at most ${names.length})`);
    }
  }

  private get(index: number): unknown {
    const value = Array.isArray(this.raw) ? this.raw[index] : this.raw[this.names[index] ?? ""];
    return value === null ? undefined : value;
  }

  private required(index: number): unknown {
    const value = this.get(index);
    if (value === undefined)
      throw new RpcFailure(RPC_INVALID_PARAMETER, `Missing required parameter ${this.names[index]}`);
    return value;
  }

  int(index: number, fallback?: number): number {
    const value = fallback === undefined ? this.required(index) : (this.get(index) ?? fallback);
    if (typeof value !== "number" || !Number.isInteger(value)) throw typeError(value, "number");
    return value;
  }

  string(index: number, fallback?: string): string {
    const value = fallback === undefined ? this.required(index) : (this.get(index) ?? fallback);
    if (typeof value !== "string") throw typeError(value, "string");
    return value;
  }

  /** A transaction id (ParseHashV), lowercased. */
  txid(index: number): string {
    return this.hash(index);
  }

  /** An optional BTC amount that may be 0 (sendrawtransaction's maxfeerate), in satoshis. */
  optionalAmount(index: number): bigint | undefined {
    const value = this.get(index);
    if (value === undefined) return undefined;
    if (typeof value !== "string" && typeof value !== "number") throw typeError(value, "number");
    const satoshis = btcToSatoshis(value);
    if (satoshis === null) throw new RpcFailure(RPC_TYPE_ERROR, "Invalid amount");
    return satoshis;
  }

  /** getrawtransaction's verbosity: a number, or a boolean as older clients send. */
  optionalVerbosity(index: number): number {
    return this.verbosity(index, 0);
  }

  bool(index: number, fallback: boolean): boolean {
    const value = this.get(index) ?? fallback;
    if (typeof value !== "boolean") throw typeError(value, "bool");
    return value;
  }

  /** A block hash parameter (ParseHashV). */
  hash(index: number): string {
    const value = this.string(index);
    if (value.length !== 64) {
      throw new RpcFailure(
        RPC_INVALID_PARAMETER,
        `${this.names[index]} must be of length 64 (not ${value.length}, for '${value}')`,
      );
    }
    if (!/^[0-9a-fA-F]{64}$/.test(value)) {
      throw new RpcFailure(RPC_INVALID_PARAMETER, `${this.names[index]} must be hexadecimal string (not '${value}')`);
    }
    return value.toLowerCase();
  }

  /** An amount in BTC (AmountFromValue): a JSON number or numeric string, exact to the satoshi. */
  amount(index: number): bigint {
    const value = this.required(index);
    if (typeof value !== "string" && typeof value !== "number") throw typeError(value, "number");
    const satoshis = btcToSatoshis(value);
    if (satoshis === null) throw new RpcFailure(RPC_TYPE_ERROR, "Invalid amount");
    if (satoshis === 0n) throw new RpcFailure(RPC_TYPE_ERROR, "Amount out of range");
    return satoshis;
  }

  /** getblock's verbosity: a number, or a boolean as older clients send. */
  verbosity(index: number, fallback: number): number {
    const value = this.get(index) ?? fallback;
    if (typeof value === "boolean") return value ? 1 : 0;
    if (typeof value !== "number" || !Number.isInteger(value)) throw typeError(value, "number");
    return value;
  }
}

function typeError(value: unknown, expected: string): RpcFailure {
  const actual =
    value === undefined ? "null" : Array.isArray(value) ? "array" : typeof value === "object" ? "object" : typeof value;
  return new RpcFailure(RPC_TYPE_ERROR, `JSON value of type ${actual} is not of expected type ${expected}`);
}

export function createDispatch(node: NodeInternals): Dispatch {
  const { chain, wallet, network } = node;

  /** Core's -5 text of getrawtransaction (rpc/rawtransaction.cpp), which depends on -txindex. */
  const noSuchTransaction = (inBlock: boolean): string =>
    `${
      inBlock
        ? "No such transaction found in the provided block"
        : node.txindex
          ? "No such mempool or blockchain transaction"
          : "No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries"
    }. Use gettransaction for wallet transactions.`;

  const blockByHash = (hash: string): StoredBlock => {
    const block = chain.blockByHash(hash);
    if (block === undefined) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
    return block;
  };
  /** The block, when the node still has its data (Core's BLOCK_HAVE_DATA; pruning drops it). */
  const blockData = (block: StoredBlock, message: string): StoredBlock => {
    if (block.height < node.pruneHeight) throw new RpcFailure(RPC_MISC_ERROR, message);
    return block;
  };
  const outputScript = (address: string, message: string): Uint8Array => {
    try {
      return bitcoinAddress.toOutputScript(address, network);
    } catch {
      throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, message);
    }
  };

  const methods: Record<string, { params: readonly string[]; run: (p: Params) => string }> = {
    getblockcount: { params: [], run: () => String(chain.height) },
    getbestblockhash: { params: [], run: () => JSON.stringify(chain.tip.hash) },
    getblockhash: {
      params: ["height"],
      run: (p) => {
        const block = chain.blockAt(p.int(0));
        if (block === undefined) throw new RpcFailure(RPC_INVALID_PARAMETER, "Block height out of range");
        return JSON.stringify(block.hash);
      },
    },
    getblockheader: {
      params: ["blockhash", "verbose"],
      run: (p) => {
        const block = blockByHash(p.hash(0));
        if (!p.bool(1, true)) return JSON.stringify(block.block.toHex(true));
        return stringifyJson(blockHeaderJsonValue(block, chain.confirmations(block), chain.nextHash(block)));
      },
    },
    getblock: {
      params: ["blockhash", "verbosity"],
      run: (p) => {
        const block = blockByHash(p.hash(0));
        const verbosity = p.verbosity(1, 1);
        blockData(block, "Block not available (pruned data)");
        if (verbosity <= 0) return JSON.stringify(block.block.toHex());
        if (verbosity >= 3) {
          throw new RpcFailure(RPC_INVALID_PARAMETER, "verbosity 3 (prevout) is not served by this test node");
        }
        const txJson = verbosity === 1 ? block.txidsJson : block.txsJson;
        return blockJson(block, chain.confirmations(block), chain.nextHash(block), txJson);
      },
    },
    getblockchaininfo: {
      params: [],
      run: () => {
        const tip = chain.tip;
        return stringifyJson({
          chain: node.chainName,
          blocks: chain.height,
          headers: chain.height,
          bestblockhash: tip.hash,
          difficulty: coreDouble(difficultyOf(tip.bits)),
          time: tip.time,
          mediantime: tip.medianTime,
          verificationprogress: 1,
          initialblockdownload: false,
          chainwork: tip.chainwork.toString(16).padStart(64, "0"),
          size_on_disk: 0,
          pruned: node.pruneHeight > 0,
          ...(node.pruneHeight > 0 ? { pruneheight: node.pruneHeight, automatic_pruning: false } : {}),
          warnings: [],
        });
      },
    },
    getindexinfo: {
      params: ["index_name"],
      run: (p) => {
        const name = p.string(0, "");
        const indexes = node.txindex ? { txindex: { synced: true, best_block_height: chain.height } } : {};
        return stringifyJson(name === "" || name === "txindex" ? indexes : {});
      },
    },
    getnewaddress: {
      params: ["label", "address_type"],
      run: (p) => {
        const type = p.string(1, "bech32");
        if (type !== "bech32") {
          throw new RpcFailure(
            RPC_INVALID_ADDRESS_OR_KEY,
            `Unknown address type '${type}' (this test node's wallet is bech32 only)`,
          );
        }
        return JSON.stringify(wallet.newAddress());
      },
    },
    sendtoaddress: {
      params: [
        "address",
        "amount",
        "comment",
        "comment_to",
        "subtractfeefromamount",
        "replaceable",
        "conf_target",
        "estimate_mode",
        "avoid_reuse",
        "fee_rate",
        "verbose",
      ],
      run: (p) => {
        const script = outputScript(p.string(0), "Invalid address");
        const amount = p.amount(1);
        const subtractFee = p.bool(4, false);
        try {
          return JSON.stringify(node.sendFromWallet([{ script, value: amount }], subtractFee).getId());
        } catch (error) {
          if (error instanceof InsufficientFundsError)
            throw new RpcFailure(RPC_WALLET_INSUFFICIENT_FUNDS, error.message);
          if (error instanceof TransactionRejected) throw new RpcFailure(error.code, error.message);
          throw error;
        }
      },
    },
    sendrawtransaction: {
      params: ["hexstring", "maxfeerate", "maxburnamount"],
      run: (p) => {
        const hexstring = p.string(0);
        const maxFeeRatePerKvb = p.optionalAmount(1) ?? DEFAULT_MAX_FEE_RATE_PER_KVB;
        let tx: Transaction;
        try {
          if (!/^([0-9a-fA-F]{2})+$/.test(hexstring)) throw new Error("not hex");
          tx = Transaction.fromHex(hexstring);
        } catch {
          throw new RpcFailure(RPC_DESERIALIZATION_ERROR, "TX decode failed. Make sure the tx has at least one input.");
        }
        const txid = tx.getId();
        // BroadcastTransaction: a transaction already in the mempool is success (it is rebroadcast).
        if (chain.mempoolEntry(txid) !== undefined) return JSON.stringify(txid);
        try {
          chain.acceptToMempool(tx, { maxFeeRatePerKvb });
        } catch (error) {
          if (error instanceof TransactionRejected) throw new RpcFailure(error.code, error.message);
          throw error;
        }
        return JSON.stringify(txid);
      },
    },
    getrawtransaction: {
      params: ["txid", "verbosity", "blockhash"],
      run: (p) => {
        const txid = p.txid(0);
        const verbosity = p.optionalVerbosity(1);
        // Core's GetTransaction: the given block only; else the mempool, then (with -txindex only)
        // the block the index names. Without -txindex a mined transaction needs its blockhash.
        const wanted = p.string(2, "") === "" ? undefined : blockData(blockByHash(p.hash(2)), "Block not available");
        const entry = wanted === undefined ? chain.mempoolEntry(txid) : undefined;
        const indexed = wanted === undefined && entry === undefined && node.txindex ? chain.blockOf(txid) : undefined;
        const block = wanted ?? indexed;
        const index = block?.txids.indexOf(txid) ?? -1;
        const tx = entry?.tx ?? (index >= 0 ? block?.txs[index] : undefined);
        if (tx === undefined) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, noSuchTransaction(wanted !== undefined));
        if (verbosity <= 0) return JSON.stringify(tx.toHex());
        const json = transactionJsonValue(tx, network) as Record<string, unknown>;
        if (block === undefined) return stringifyJson(json as never);
        const confirmations = chain.confirmations(block);
        return stringifyJson({
          ...(wanted === undefined ? {} : { in_active_chain: confirmations > 0 }),
          ...json,
          blockhash: block.hash,
          confirmations: Math.max(confirmations, 0),
          time: block.time,
          blocktime: block.time,
        } as never);
      },
    },
    getmempoolentry: {
      params: ["txid"],
      run: (p) => {
        const entry = chain.mempoolEntry(p.txid(0));
        if (entry === undefined) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Transaction not in mempool");
        const { weight } = transactionWeight(entry.tx);
        const depends = entry.tx.ins
          .map((input) => Buffer.from(input.hash).reverse().toString("hex"))
          .filter((parent, i, all) => chain.mempoolEntry(parent) !== undefined && all.indexOf(parent) === i);
        const fee = btcAmount(entry.fee);
        return stringifyJson({
          vsize: entry.vsize,
          weight,
          time: entry.time,
          height: entry.height,
          descendantcount: 1,
          descendantsize: entry.vsize,
          ancestorcount: 1 + depends.length,
          ancestorsize: entry.vsize,
          wtxid: (transactionJsonValue(entry.tx, network) as { hash: string }).hash,
          fees: { base: fee, modified: fee, ancestor: fee, descendant: fee },
          depends,
          spentby: chain.mempoolChildren(entry.txid),
          "bip125-replaceable": signalsReplaceability(entry.tx),
          unbroadcast: false,
        });
      },
    },
    gettxout: {
      params: ["txid", "n", "include_mempool"],
      run: (p) => {
        const txid = p.txid(0);
        const coin = chain.unspent(txid, p.int(1), p.bool(2, true));
        if (coin === undefined) return "null";
        const info = describeScript(coin.script, network);
        return stringifyJson({
          bestblock: chain.tip.hash,
          confirmations: coin.height === null ? 0 : chain.height - coin.height + 1,
          value: btcAmount(coin.value),
          scriptPubKey: {
            asm: scriptToAsm(coin.script),
            desc: info.desc,
            hex: Buffer.from(coin.script).toString("hex"),
            ...(info.address === undefined ? {} : { address: info.address }),
            type: info.type,
          },
          coinbase: coin.coinbase,
        });
      },
    },
    getrawmempool: {
      params: ["verbose", "mempool_sequence"],
      run: () => JSON.stringify(chain.mempool()),
    },
    estimatesmartfee: {
      params: ["conf_target", "estimate_mode"],
      run: (p) => {
        const target = p.int(0);
        if (target < 1 || target > 1008) {
          throw new RpcFailure(RPC_INVALID_PARAMETER, "Invalid conf_target, must be between 1 and 1008");
        }
        const mode = p.string(1, "economical").toLowerCase();
        if (!["unset", "economical", "conservative"].includes(mode)) {
          throw new RpcFailure(
            RPC_INVALID_PARAMETER,
            'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"',
          );
        }
        if (node.feeEstimateSatPerVb === null) {
          return stringifyJson({ errors: ["Insufficient data or no feerate found"], blocks: 0 });
        }
        const perKvb = BigInt(Math.round(node.feeEstimateSatPerVb * 1000));
        return stringifyJson({ feerate: btcAmount(perKvb), blocks: Math.max(target, 2) });
      },
    },
    generatetoaddress: {
      params: ["nblocks", "address", "maxtries"],
      run: (p) => {
        const count = p.int(0);
        const script = outputScript(p.string(1), "Error: Invalid address");
        if (count < 0) throw new RpcFailure(RPC_INVALID_PARAMETER, "nblocks must be non-negative");
        return JSON.stringify(node.mine(count, script));
      },
    },
  };

  return (method, raw) => {
    const entry = Object.hasOwn(methods, method) ? methods[method] : undefined;
    if (entry === undefined) throw new RpcFailure(RPC_METHOD_NOT_FOUND, "Method not found");
    return entry.run(new Params(raw, entry.params));
  };
}
