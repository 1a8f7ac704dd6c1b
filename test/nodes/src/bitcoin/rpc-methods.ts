import { btcToSatoshis } from "@mp/bitcoin-protocol";
import { stringifyJson } from "@mp/rpc";
import { address as bitcoinAddress, type Network, type Transaction } from "bitcoinjs-lib";
import type { ChainState, StoredBlock } from "./chain-state.ts";
import { TransactionRejected } from "./chain-state.ts";
import { blockHeaderJsonValue, blockJson, coreDouble, difficultyOf } from "./core-json.ts";
import { InsufficientFundsError, type NodeWallet } from "./node-wallet.ts";
import { type Dispatch, RPC_METHOD_NOT_FOUND, RpcFailure } from "./rpc-server.ts";

/**
 * The Bitcoin Core RPC subset the Bitcoin adapter and faucet use, with Core's parameter names
 * (named parameters work), defaults, results and error codes (src/rpc/protocol.h).
 */

const RPC_TYPE_ERROR = -3;
const RPC_INVALID_ADDRESS_OR_KEY = -5;
const RPC_WALLET_INSUFFICIENT_FUNDS = -6;
const RPC_INVALID_PARAMETER = -8;
const RPC_VERIFY_REJECTED = -26;

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

  const blockByHash = (hash: string): StoredBlock => {
    const block = chain.blockByHash(hash);
    if (block === undefined) throw new RpcFailure(RPC_INVALID_ADDRESS_OR_KEY, "Block not found");
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
          pruned: false,
          warnings: [],
        });
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
          if (error instanceof TransactionRejected) throw new RpcFailure(RPC_VERIFY_REJECTED, error.message);
          throw error;
        }
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
