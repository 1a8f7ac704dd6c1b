export {
  createIndexer,
  type Indexer,
  type IndexerOptions,
  type TickResult,
  type TickTimings,
} from "./create-indexer.ts";
export { forgetChain } from "./forget-chain.ts";
export { createIndexerMetrics, type IndexerMetrics, registerLeaderMetrics } from "./indexer-metrics.ts";
export { getIndexerStates, type IndexerState } from "./indexer-states.ts";
export { liveConfirmations } from "./live-confirmations.ts";
