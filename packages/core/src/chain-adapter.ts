import type { ChainId } from "./chains.ts";

/**
 * The one interface every chain family implements (chains/evm, chains/solana, chains/bitcoin,
 * chains/tron). The indexer (packages/indexer) is written once against it: cursor, batching,
 * confirmations, reorg rollback and crediting never branch on the chain.
 *
 * Heights are block numbers (EVM, Bitcoin, Tron) or slots (Solana). A height may have no block
 * (a skipped Solana slot): `blocks` simply omits it.
 */
export interface BlockHeader {
  height: number;
  hash: string;
  /** Hash of the previous block on the same chain (the parent slot's block on Solana). */
  parentHash: string;
}

/** A transfer of value to a watched address, as observed on chain. */
export interface ObservedTransfer {
  txHash: string;
  /**
   * Distinguishes transfers inside one transaction; with (chain, txHash) it is the deposit's
   * identity, so a rescan never duplicates: `log:<logIndex>` (EVM/Tron tokens), `native` (EVM/Tron
   * coin), `vout:<n>` (Bitcoin), `ix:<instruction>`/`bal:<accountIndex>` (Solana).
   */
  position: string;
  blockHeight: number;
  blockHash: string;
  from: string | null;
  /** The receive address exactly as the wallet shows it (checksummed for EVM). */
  to: string;
  /** Asset symbol from the chain config, e.g. USDC, ETH, BTC. */
  asset: string;
  /** Token contract or mint; null for the chain's native coin. */
  contractAddress: string | null;
  amountRaw: bigint;
  decimals: number;
}

/** Membership test for the addresses being watched on one chain, in canonical (normalised) form. */
export interface AddressMatcher {
  has(normalizedAddress: string): boolean;
}

export interface ScanRange {
  from: number;
  to: number;
}

export interface ChainAdapter {
  readonly chain: ChainId;
  /** Latest block height the node knows. */
  head(): Promise<number>;
  /** Headers of the blocks in [from, to] (inclusive), ascending; skipped heights are absent. */
  headers(range: ScanRange): Promise<BlockHeader[]>;
  /**
   * Every transfer in [from, to] whose recipient the matcher accepts, ascending by height.
   * Failed transactions are never returned. Implementations may split the range internally
   * (e.g. when a provider refuses a large log query) but must cover all of it or throw.
   */
  scan(range: ScanRange, watch: AddressMatcher): Promise<ObservedTransfer[]>;
  /**
   * Checks that the node serves the configured chain and network and accepts our credentials
   * (EVM `eth_chainId`, Bitcoin `getblockchaininfo.chain`, Solana genesis hash, Tron block 0), and
   * offers what the service cannot work without (docs/chains.md "Node requirements": Solana transaction
   * history, Tron transaction receipts, EVM blocks and eth_getLogs from `from` on).
   * Throws ChainMisconfiguredError when it does not; a network failure stays retryable. The
   * `regtest` network is a local node with a genesis of its own: only Bitcoin can still check it.
   * `from`: the first height the indexer will read (default the configured startHeight).
   */
  verifyNetwork(from?: number): Promise<void>;
}

/** A chain's asset as configured (native coin or token). */
export interface ChainAsset {
  asset: string;
  /** Contract or mint address; null for the native coin. */
  address: string | null;
  decimals: number;
}

/**
 * Sends real value on a local sandbox chain (anvil or a test node), for POST /v1/sandbox/deposits.
 * Never configured in production.
 */
export interface SandboxFaucet {
  readonly chain: ChainId;
  assets(): ChainAsset[];
  send(to: string, asset: string, amountRaw: bigint): Promise<{ txHash: string }>;
}

/** One chain's indexer progress (packages/indexer writes it; GET /v1/chains and /metrics show it). */
export interface IndexerState {
  chain: ChainId;
  headHeight: number | null;
  indexedHeight: number | null;
  /** head - indexed; null until something was indexed. */
  lag: number | null;
  updatedAt: Date | null;
  /**
   * Why the chain's indexer stopped (a ChainMisconfiguredError's message: wrong network, refused
   * credentials); null while it runs. Set until an indexer of the chain verifies the node again.
   */
  stoppedError: string | null;
  /** The process that leads (indexes) the chain now, by its unexpired lease; null: none. */
  leader: ChainLeader | null;
}

/** Who indexes a chain (migrations/0080-0081): a process of the indexer role, since its lease began. */
export interface ChainLeader {
  host: string;
  pid: number;
  /** Since when this process leads the chain (database time). */
  since: Date;
  /** The lease's fencing epoch: how many times the chain changed hands, plus one. */
  epoch: number;
}
