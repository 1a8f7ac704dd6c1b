export { type BalancePollerOptions, startBalancePoller } from "./balance-poller.ts";
export type { ChainFamilyModule, FamilyOf } from "./chain-family-module.ts";
// The whole sender contract is public: the types the senders implement and the funds error.
export * from "./chain-sender.ts";
export { createChainSenders, treasurySendAddresses, verifiedSenders } from "./create-chain-senders.ts";
export type { HoldingsReader } from "./reconcile/holdings-reader.ts";
export type { KnownOutput } from "./reconcile/known-output.ts";
export {
  type ReconcileLine,
  type ReconcileReport,
  type ReconcileTarget,
  reconcileChains,
} from "./reconcile/reconcile-chains.ts";
export { countReconcileResults, recordReconcileReport } from "./reconcile/reconcile-results.ts";
export type { SendCheck, SendCheckOf } from "./send-check.ts";
export {
  createSendPipeline,
  SEND_STAGES,
  type SendPipeline,
  type SendPipelineOptions,
  type SendStage,
} from "./send-pipeline.ts";
export {
  findSend,
  listOpenSends,
  requestSend,
  type SendPurpose,
  type SendRequest,
  type SendState,
  type TreasurySend,
} from "./send-requests.ts";
export type { SenderFactoryOptions } from "./sender-factory-options.ts";
export { DEFAULT_SWEEP_CONFIG, type SweepConfig, sweepConfigFromEnv } from "./sweeps/index.ts";
export { createTransferTreasury } from "./transfer-treasury.ts";
export { treasuryBalanceJson, treasurySendJson } from "./treasury-json.ts";
export { registerTreasuryMetrics } from "./treasury-metrics.ts";
export {
  countSendsByState,
  listTreasuryAddresses,
  oldestOpenSendAges,
  readTreasuryBalances,
  recordTreasuryAddresses,
  storeTreasuryBalances,
  type TreasuryAddress,
  type TreasuryBalance,
} from "./treasury-store.ts";
