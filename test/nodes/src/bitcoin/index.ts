import { createHash } from "node:crypto";
import { BITCOIN_NETWORKS, type BitcoinNetworkName } from "@mp/bitcoin-protocol";
import { HDKey } from "@scure/bip32";
import { address as bitcoinAddress, script as bitcoinScript, crypto } from "bitcoinjs-lib";
import { close, listen } from "../shared/served-node.ts";
import { ChainState, type MiningPolicy, type ReorgOptions } from "./chain-state.ts";
import { NodeWallet } from "./node-wallet.ts";
import { createDispatch, type NodeInternals } from "./rpc-methods.ts";
import { createRpcHttpServer } from "./rpc-server.ts";

export type { MiningPolicy, ReorgOptions } from "./chain-state.ts";

export interface BitcoinTestNodeOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Address encoding and the chain name getblockchaininfo reports; consensus stays regtest's. */
  network?: BitcoinNetworkName;
  rpcUser?: string;
  rpcPassword?: string;
  /** Blocks mined to the node wallet at start; 101 makes the first coinbase spendable. */
  premineBlocks?: number;
  /** Mine one block every this many ms (local sandbox); off by default. */
  blockIntervalMs?: number;
  /** The node wallet's fee rate (sendtoaddress), sat/vB. */
  feeRateSatPerVb?: number;
  /** What estimatesmartfee answers, sat/vB; null (default) answers "Insufficient data" like a fresh regtest node. */
  feeEstimateSatPerVb?: number | null;
  /** Seeds the node wallet's keys; nodes with the same seed have the same wallet. */
  walletSeed?: string;
  /**
   * As with Core's `-txindex`: getrawtransaction finds mined transactions without a blockhash, and
   * getindexinfo lists the index. Off by default, as Core's default is: a mined transaction is then
   * found only with the hash of its block.
   */
  txindex?: boolean;
}

/** An output for sendOutputs: to an address, or to any raw script (OP_RETURN, non-standard). */
export type TestOutput = { address: string; amount: bigint } | { script: Uint8Array; amount: bigint };

export interface BitcoinTestNode {
  /** `http://user:pass@127.0.0.1:port`, as CHAINS_CONFIG takes it. */
  readonly url: string;
  readonly port: number;
  readonly network: BitcoinNetworkName;
  readonly height: number;
  /** Whether it runs as with `-txindex`. */
  readonly txindex: boolean;
  blockHash(height: number): string;
  /** The hash of the active-chain block holding `txid` (what a test needs for getrawtransaction without -txindex). */
  blockOf(txid: string): string | undefined;
  /** Mines `count` blocks with the mempool (to a new wallet address unless given); returns hashes. */
  mine(count?: number, toAddress?: string): string[];
  /** A new receive address of the node wallet. */
  newAddress(): string;
  /** Pays `amount` satoshis to `address` from the node wallet into the mempool (sendtoaddress). */
  send(address: string, amount: bigint): { txid: string; vout: number };
  /** One transaction with these outputs, in this order, plus change last. */
  sendOutputs(outputs: readonly TestOutput[]): { txid: string; vouts: number[] };
  /** Replaces the last `depth` blocks with a new branch; see ReorgOptions. */
  reorg(depth: number, options?: ReorgOptions): { removed: string[]; added: string[] };
  mempool(): string[];
  /** Drops the data of every block below `height`, as a pruned node (`-prune`) has: getblock answers -1. */
  prune(height: number): void;
  /**
   * What mine() takes from the mempool: `hold` leaves every transaction out (a send stays stuck),
   * `minFeeRateSatPerVb` leaves out those paying less (and their descendants), as miners would.
   */
  setMiningPolicy(policy: Partial<MiningPolicy>): void;
  /** What estimatesmartfee answers (sat/vB), null for "Insufficient data or no feerate found". */
  setFeeEstimate(satPerVb: number | null): void;
  /** Closes the RPC port (connections refused) keeping the chain; restart() opens it again. */
  stop(): Promise<void>;
  restart(): Promise<void>;
}

/** An OP_RETURN output script carrying `data`. */
export function opReturnScript(data: Uint8Array): Uint8Array {
  return bitcoinScript.compile([bitcoinScript.OPS.OP_RETURN, data]);
}

/**
 * P2WPKH receive addresses of real keys (BIP-84 path m/84'/coin'/0'/0/i of a test seed), for tests
 * that need addresses the node wallet does not own.
 */
export function deriveTestAddresses(
  count: number,
  network: BitcoinNetworkName = "regtest",
  seed = "customer",
): string[] {
  const params = BITCOIN_NETWORKS[network];
  const account = HDKey.fromMasterSeed(createHash("sha256").update(`mp-test-addresses:${seed}`).digest()).derive(
    `m/84'/${params.coinType}'/0'/0`,
  );
  const addresses: string[] = [];
  for (let index = 0; index < count; index++) {
    const publicKey = account.deriveChild(index).publicKey;
    if (publicKey === null) throw new Error("key derivation failed");
    addresses.push(bitcoinAddress.toBech32(crypto.hash160(publicKey), 0, params.encoding.bech32));
  }
  return addresses;
}

const CHAIN_NAMES: Record<BitcoinNetworkName, string> = { mainnet: "main", testnet: "test", regtest: "regtest" };

/**
 * A Bitcoin Core stand-in on 127.0.0.1 serving the JSON-RPC subset the Bitcoin adapter and faucet
 * use, over real blocks and transactions (see chain-state.ts). Control methods act synchronously:
 * after mine() or reorg() returns, every RPC answer reflects it.
 */
export async function startBitcoinTestNode(options: BitcoinTestNodeOptions = {}): Promise<BitcoinTestNode> {
  const network = options.network ?? "regtest";
  const params = BITCOIN_NETWORKS[network];
  const user = options.rpcUser ?? "mp";
  const password = options.rpcPassword ?? "mp-test-node";
  const wallet = new NodeWallet({
    seed: createHash("sha256")
      .update(`mp-test-node-wallet:${options.walletSeed ?? "default"}`)
      .digest(),
    coinType: params.coinType,
    network: params.encoding,
    feeRateSatPerVb: options.feeRateSatPerVb ?? 10,
  });
  const chain = new ChainState(params.encoding, wallet);

  const internals: NodeInternals = {
    chain,
    wallet,
    network: params.encoding,
    chainName: CHAIN_NAMES[network],
    feeEstimateSatPerVb: options.feeEstimateSatPerVb ?? null,
    txindex: options.txindex ?? false,
    pruneHeight: 0,
    mine(count, payoutScript) {
      const hashes: string[] = [];
      for (let i = 0; i < count; i++) hashes.push(chain.mine(payoutScript).hash);
      return hashes;
    },
    sendFromWallet(outputs, subtractFee) {
      const tx = wallet.createTransaction(outputs, chain.spendableWalletCoins(), {
        lockTime: chain.height,
        subtractFee,
      });
      chain.acceptToMempool(tx);
      return tx;
    },
  };
  const walletScript = (): Uint8Array => bitcoinAddress.toOutputScript(wallet.newAddress(), params.encoding);
  internals.mine(options.premineBlocks ?? 101, walletScript());

  const server = createRpcHttpServer({ user, password, dispatch: createDispatch(internals) });
  const port = await listen(server, options.port ?? 0);
  let timer: NodeJS.Timeout | undefined;
  if (options.blockIntervalMs !== undefined && options.blockIntervalMs > 0) {
    timer = setInterval(() => internals.mine(1, walletScript()), options.blockIntervalMs);
    timer.unref();
  }

  const outputsToScripts = (outputs: readonly TestOutput[]) =>
    outputs.map((output) => ({
      script: "script" in output ? output.script : bitcoinAddress.toOutputScript(output.address, params.encoding),
      value: output.amount,
    }));

  return {
    url: `http://${encodeURIComponent(user)}:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    port,
    network,
    get height() {
      return chain.height;
    },
    txindex: internals.txindex,
    blockOf: (txid) => chain.blockOf(txid)?.hash,
    blockHash(height) {
      const block = chain.blockAt(height);
      if (block === undefined) throw new RangeError(`no block at height ${height}`);
      return block.hash;
    },
    mine(count = 1, toAddress) {
      const payout =
        toAddress === undefined ? walletScript() : bitcoinAddress.toOutputScript(toAddress, params.encoding);
      return internals.mine(count, payout);
    },
    newAddress: () => wallet.newAddress(),
    send(address, amount) {
      const tx = internals.sendFromWallet(outputsToScripts([{ address, amount }]), false);
      return { txid: tx.getId(), vout: 0 };
    },
    sendOutputs(outputs) {
      const tx = internals.sendFromWallet(outputsToScripts(outputs), false);
      return { txid: tx.getId(), vouts: outputs.map((_, index) => index) };
    },
    reorg: (depth, reorgOptions = {}) => chain.reorg(depth, reorgOptions, walletScript),
    mempool: () => chain.mempool(),
    prune(height) {
      internals.pruneHeight = Math.max(internals.pruneHeight, height);
    },
    setMiningPolicy(policy) {
      chain.miningPolicy = { ...chain.miningPolicy, ...policy };
    },
    setFeeEstimate(satPerVb) {
      internals.feeEstimateSatPerVb = satPerVb;
    },
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await close(server);
    },
    async restart() {
      if (!server.listening) await listen(server, port);
    },
  };
}

// Bitcoin Core's JSON formatting as the node renders it, exported so tests can hold it against
// recorded real responses.
export { coreDouble, difficultyOf, transactionJson } from "./core-json.ts";
export { descriptorChecksum } from "./descriptor-checksum.ts";
export { opcodeName, scriptToAsm } from "./script-json.ts";
