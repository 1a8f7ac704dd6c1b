import type { BlockHeader, ChainAdapter, ChainConfig, ChainId, Logger } from "@mp/core";
import type { WatchSet } from "@mp/custody";
import type { Database } from "@mp/db";
import type { AddressScreening, RateProvider } from "@mp/providers";
import type { ChainLeadership } from "./chain-leadership.ts";
import type { IndexerMetrics } from "./indexer-metrics.ts";

/** What every step of one chain's indexer works with (built once by createIndexer). */
export interface IndexerContext {
  db: Database;
  chain: ChainId;
  adapter: ChainAdapter;
  config: ChainConfig;
  watch: WatchSet;
  rates: RateProvider;
  screening?: AddressScreening | undefined;
  logger: Logger;
  metrics: IndexerMetrics | undefined;
  labels: { chain: ChainId };
  leadership: ChainLeadership;
  failpoint: (name: string) => void | Promise<void>;
  /** Block hashes kept below the cursor for reorg checks. */
  window: number;
  /** A node call, counted in the RPC error metric when it fails. */
  rpc: <T>(fn: () => Promise<T>) => Promise<T>;
  headersOf: (from: number, to: number) => Promise<BlockHeader[]>;
}
